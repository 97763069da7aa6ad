import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

export type AccountTokenPurpose = 'password_reset' | 'verify_email';

/** A token that was good, and is now used: whose it was and the address it was mailed to. */
export interface UsedToken {
  userId: string;
  email: string;
}

/**
 * The only code touching account_tokens: single-use tokens that mail links carry (a password reset, an address
 * verification), stored as their SHA-256 only. Using one is one statement, so two uses racing cannot both win.
 */
@Injectable()
export class AccountTokensRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async insert(
    userId: string,
    purpose: AccountTokenPurpose,
    tokenHash: string,
    email: string,
    ttlSeconds: number,
  ): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO account_tokens (user_id, purpose, token_hash, email, expires_at)
       VALUES ($1, $2, $3, $4, now() + make_interval(secs => $5))`,
      [userId, purpose, tokenHash, email, ttlSeconds],
    );
  }

  /** Marks the token used if it is unused and unexpired, for this purpose; null otherwise (unknown, used, expired). */
  async use(tokenHash: string, purpose: AccountTokenPurpose): Promise<UsedToken | null> {
    const [rows]: [Array<{ user_id: string; email: string }>, number] = await this.dataSource.query(
      `UPDATE account_tokens SET used_at = now()
        WHERE token_hash = $1 AND purpose = $2 AND used_at IS NULL AND expires_at > now()
        RETURNING user_id, email`,
      [tokenHash, purpose],
    );
    return rows[0] ? { userId: rows[0].user_id, email: rows[0].email } : null;
  }

  /** Ends every unused token of the user for this purpose (a reset done, the password changed). */
  async endAll(userId: string, purpose: AccountTokenPurpose): Promise<void> {
    await this.dataSource.query(
      `UPDATE account_tokens SET used_at = now() WHERE user_id = $1 AND purpose = $2 AND used_at IS NULL`,
      [userId, purpose],
    );
  }

  /** Deletes tokens that can never work again (expired or used a day ago). */
  async purge(): Promise<void> {
    await this.dataSource.query(
      `DELETE FROM account_tokens WHERE expires_at < now() - interval '1 day' OR used_at < now() - interval '1 day'`,
    );
  }
}
