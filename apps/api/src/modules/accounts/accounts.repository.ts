import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { IsNull, QueryFailedError, Repository } from 'typeorm';
import { SessionEntity } from './entities/session.entity';
import { UserEntity } from './entities/user.entity';

export interface ActiveSession {
  sessionId: string;
  expiresAt: Date;
  user: UserEntity;
}

const UNIQUE_VIOLATION = '23505';

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  const driverError = (error as QueryFailedError & { driverError?: { code?: string; constraint?: string } })?.driverError;
  return (
    error instanceof QueryFailedError &&
    driverError?.code === UNIQUE_VIOLATION &&
    (!constraint || driverError.constraint === constraint)
  );
}

/** The only code that touches the users and sessions tables. */
@Injectable()
export class AccountsRepository {
  constructor(
    @InjectRepository(UserEntity) private readonly users: Repository<UserEntity>,
    @InjectRepository(SessionEntity) private readonly sessions: Repository<SessionEntity>,
  ) {}

  findUserByEmail(email: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ email });
  }

  findUserById(id: string): Promise<UserEntity | null> {
    return this.users.findOneBy({ id });
  }

  /** Inserts a user; returns null when the email is taken (also when two registrations race). */
  async insertUser(user: Pick<UserEntity, 'email' | 'name' | 'passwordHash' | 'role'>): Promise<UserEntity | null> {
    try {
      return await this.users.save(this.users.create(user));
    } catch (error) {
      if (isUniqueViolation(error, 'users_email_key')) return null;
      throw error;
    }
  }

  /** Creates the account or makes it an admin with this password, in one statement (safe when instances race). */
  async upsertAdmin(email: string, passwordHash: string): Promise<void> {
    await this.users.query(
      `INSERT INTO users (email, password_hash, role, name) VALUES ($1, $2, 'admin', 'Administrator')
       ON CONFLICT (email) DO UPDATE SET password_hash = EXCLUDED.password_hash, role = 'admin', updated_at = now()`,
      [email, passwordHash],
    );
  }

  async insertSession(session: Pick<SessionEntity, 'userId' | 'tokenHash' | 'expiresAt' | 'userAgent'>): Promise<SessionEntity> {
    return this.sessions.save(this.sessions.create({ ...session, revokedAt: null }));
  }

  async findActiveSession(tokenHash: string): Promise<ActiveSession | null> {
    const session = await this.sessions
      .createQueryBuilder('s')
      .innerJoinAndSelect('s.user', 'u')
      .where('s.token_hash = :tokenHash', { tokenHash })
      .andWhere('s.revoked_at IS NULL')
      .andWhere('s.expires_at > now()')
      .getOne();
    return session?.user ? { sessionId: session.id, expiresAt: session.expiresAt, user: session.user } : null;
  }

  async revokeSession(sessionId: string): Promise<void> {
    await this.sessions.update({ id: sessionId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }
}
