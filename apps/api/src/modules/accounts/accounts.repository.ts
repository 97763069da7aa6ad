import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { EntityManager, IsNull, Repository } from 'typeorm';
import { isUniqueViolation } from '../../common/database/postgres-errors';
import { SessionEntity } from './entities/session.entity';
import { UserEntity } from './entities/user.entity';

/** The account behind a handle it holds now or held before (handles are never handed to another user). */
export interface HandleHolder {
  userId: string;
  /** The account's handle now (differs from the one looked up when that one was released). */
  handle: string | null;
  name: string | null;
}

export interface ActiveSession {
  sessionId: string;
  expiresAt: Date;
  user: UserEntity;
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
      `INSERT INTO users (email, password_hash, role, name, email_verified_at) VALUES ($1, $2, 'admin', 'Administrator', now())
       ON CONFLICT (email) DO UPDATE SET password_hash = EXCLUDED.password_hash, role = 'admin', updated_at = now(),
         email_verified_at = COALESCE(users.email_verified_at, now())`,
      [email, passwordHash],
    );
  }

  /**
   * Makes `handle` the user's, in one statement: it joins the user's handle history unless another account holds
   * or once held it (the primary key decides between racing claims), and only then becomes users.handle.
   * Returns false when it belongs to someone else.
   */
  async claimHandle(userId: string, handle: string): Promise<boolean> {
    try {
      // TypeORM answers an UPDATE with [rows, affected].
      const [rows]: [Array<{ id: string }>, number] = await this.users.query(
        `WITH claim AS (
           INSERT INTO user_handles (handle, user_id) VALUES ($2, $1)
           ON CONFLICT (handle) DO UPDATE SET user_id = user_handles.user_id WHERE user_handles.user_id = $1
           RETURNING handle)
         UPDATE users SET handle = $2, updated_at = now() WHERE id = $1 AND EXISTS (SELECT 1 FROM claim) RETURNING id`,
        [userId, handle],
      );
      return rows.length > 0;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async findHandleHolder(handle: string): Promise<HandleHolder | null> {
    const rows: Array<{ id: string; handle: string | null; name: string | null }> = await this.users.query(
      `SELECT u.id, u.handle, u.name FROM user_handles h JOIN users u ON u.id = h.user_id WHERE h.handle = $1`,
      [handle],
    );
    return rows[0] ? { userId: rows[0].id, handle: rows[0].handle, name: rows[0].name } : null;
  }

  async insertSession(
    session: Pick<SessionEntity, 'userId' | 'tokenHash' | 'expiresAt' | 'userAgent'>,
  ): Promise<SessionEntity> {
    return this.sessions.save(this.sessions.create({ ...session, revokedAt: null }));
  }

  async findActiveSession(tokenHash: string): Promise<ActiveSession | null> {
    const session = await this.sessions
      .createQueryBuilder('s')
      .innerJoinAndSelect('s.user', 'u')
      .where('s.token_hash = :tokenHash', { tokenHash })
      .andWhere('s.revoked_at IS NULL')
      .andWhere('s.expires_at > now()')
      .andWhere('u.disabled_at IS NULL')
      .getOne();
    return session?.user ? { sessionId: session.id, expiresAt: session.expiresAt, user: session.user } : null;
  }

  async revokeSession(sessionId: string): Promise<void> {
    await this.sessions.update({ id: sessionId, revokedAt: IsNull() }, { revokedAt: () => 'now()' });
  }

  /** Revokes every live session of the user, but the one named in `except`; answers how many. */
  async revokeSessions(userId: string, except: string | null): Promise<number> {
    const [, affected]: [unknown, number] = await this.sessions.query(
      `UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR id <> $2)`,
      [userId, except],
    );
    return affected;
  }

  async setName(userId: string, name: string): Promise<void> {
    await this.users.update({ id: userId }, { name });
  }

  async setPasswordHash(userId: string, passwordHash: string): Promise<void> {
    await this.users.update({ id: userId }, { passwordHash });
  }

  /**
   * Disables the account (and revokes every session, in the same statement) or enables it again, in the caller's
   * transaction. False when nothing changed: already so, deleted, or no such account.
   */
  async setDisabled(manager: EntityManager, userId: string, disabled: boolean): Promise<boolean> {
    const rows: Array<{ id: string }> = await manager.query(
      `WITH u AS (
         UPDATE users SET disabled_at = CASE WHEN $2 THEN now() ELSE NULL END, updated_at = now()
          WHERE id = $1 AND deleted_at IS NULL AND (disabled_at IS NULL) = $2 RETURNING id),
       s AS (
         UPDATE sessions SET revoked_at = now() WHERE $2 AND user_id IN (SELECT id FROM u) AND revoked_at IS NULL)
       SELECT id FROM u`,
      [userId, disabled],
    );
    return rows.length > 0;
  }

  /** Marks the address verified, if it is still the account's address. */
  async markEmailVerified(userId: string, email: string): Promise<void> {
    await this.users.query(
      `UPDATE users SET email_verified_at = COALESCE(email_verified_at, now()), updated_at = now() WHERE id = $1 AND email = $2`,
      [userId, email],
    );
  }

  /**
   * Deletes the account in one statement: the row stays for the ledger's sake, anonymised (no email, name,
   * handle or usable password), and every session is revoked. False when it was already deleted.
   */
  async anonymise(userId: string, unusableHash: string): Promise<boolean> {
    // A statement that ends in a SELECT: TypeORM answers with its rows.
    const rows: Array<{ id: string }> = await this.users.query(
      `WITH gone AS (
         UPDATE users SET email = 'deleted-' || id || '@deleted.invalid', name = NULL, handle = NULL,
                          password_hash = $2, deleted_at = now(), updated_at = now()
          WHERE id = $1 AND deleted_at IS NULL RETURNING id),
       sessions_gone AS (
         UPDATE sessions SET revoked_at = now() WHERE user_id IN (SELECT id FROM gone) AND revoked_at IS NULL)
       SELECT id FROM gone`,
      [userId, unusableHash],
    );
    return rows.length > 0;
  }
}
