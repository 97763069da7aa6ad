import { randomUUID } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** One app's sponsor pool as stored (micro-units); `users`: allowances given. */
export interface SponsorPoolRow {
  clientId: string;
  makerId: string;
  fundedMicros: number;
  leftMicros: number;
  drawnMicros: number;
  takenBackMicros: number;
  allowanceMicros: number;
  endsAt: Date | null;
  withdrawnAt: Date | null;
  users: number;
}

/** One user's allowance from one app's open pool (micro-units); `leftMicros` is never more than the pool has left. */
export interface SponsorAllowanceRow {
  clientId: string;
  allowanceMicros: number;
  leftMicros: number;
  endsAt: Date | null;
}

const num = (value: unknown) => Number(value ?? 0);

/**
 * The only code touching sponsor_pools and sponsor_allowances (docs/earnings.md, "Sponsored credits"). Funding and
 * taking back are the SQL functions sy_sponsor_fund and sy_sponsor_take_back (sponsor-functions.ts), each one
 * statement that locks the maker's balance, then the pool, as sy_reserve does; draws happen inside sy_reserve.
 */
@Injectable()
export class SponsorRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async pool(clientId: string): Promise<SponsorPoolRow | null> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT p.*, (SELECT count(*) FROM sponsor_allowances a WHERE a.oauth_client_id = p.oauth_client_id) AS users
         FROM sponsor_pools p WHERE p.oauth_client_id = $1`,
      [clientId],
    );
    const row = rows[0];
    if (!row) return null;
    return {
      clientId: String(row.oauth_client_id),
      makerId: String(row.maker_id),
      fundedMicros: num(row.funded_micros),
      leftMicros: num(row.left_micros),
      drawnMicros: num(row.drawn_micros),
      takenBackMicros: num(row.taken_back_micros),
      allowanceMicros: num(row.allowance_micros),
      endsAt: (row.ends_at as Date | null) ?? null,
      withdrawnAt: (row.withdrawn_at as Date | null) ?? null,
      users: num(row.users),
    };
  }

  /** 'ok', 'balance' (the maker's free balance cannot pay `amountMicros`) or 'owner' (another maker's pool). */
  async fund(
    makerId: string,
    clientId: string,
    amountMicros: number,
    allowanceMicros: number,
    endsAt: Date | null,
  ): Promise<'ok' | 'balance' | 'owner'> {
    const [row] = await this.dataSource.query<{ outcome: 'ok' | 'balance' | 'owner' }[]>(
      'SELECT outcome FROM sy_sponsor_fund($1, $2, $3, $4, $5, $6)',
      [makerId, clientId, amountMicros, allowanceMicros, endsAt, randomUUID()],
    );
    return row.outcome;
  }

  /** What was taken back into the maker's balance (the pool is withdrawn), or null without a pool. */
  async takeBack(clientId: string): Promise<number | null> {
    const [row] = await this.dataSource.query<{ taken: string | null }[]>(
      'SELECT taken FROM sy_sponsor_take_back($1, $2)',
      [clientId, randomUUID()],
    );
    return row.taken === null ? null : num(row.taken);
  }

  /**
   * What the app pays of this user's calls at most, if they approve now: what is left of their allowance, or the
   * pool's allowance for a user who has none yet; never more than the pool has left; 0 when the pool is closed.
   */
  async offer(clientId: string, userId: string, consented: boolean): Promise<number> {
    const rows: { offer: string }[] = await this.dataSource.query(
      `SELECT CASE WHEN a.user_id IS NULL AND $3 THEN 0
                   ELSE LEAST(p.left_micros, COALESCE(a.allowance_micros - a.drawn_micros, p.allowance_micros)) END AS offer
         FROM sponsor_pools p LEFT JOIN sponsor_allowances a ON a.oauth_client_id = p.oauth_client_id AND a.user_id = $2
        WHERE p.oauth_client_id = $1 AND p.withdrawn_at IS NULL AND (p.ends_at IS NULL OR p.ends_at > now())`,
      [clientId, userId, consented],
    );
    return Math.max(0, num(rows[0]?.offer));
  }

  /**
   * Every allowance the user holds from an open pool (not withdrawn, before its end), in one statement: what it
   * was, and what the app still pays of it (allowance less drawn, at most what the pool has left).
   */
  async allowancesOf(userId: string): Promise<SponsorAllowanceRow[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT a.oauth_client_id, a.allowance_micros, p.ends_at,
              GREATEST(0, LEAST(p.left_micros, a.allowance_micros - a.drawn_micros)) AS left_micros
         FROM sponsor_allowances a JOIN sponsor_pools p ON p.oauth_client_id = a.oauth_client_id
        WHERE a.user_id = $1 AND p.withdrawn_at IS NULL AND (p.ends_at IS NULL OR p.ends_at > now())`,
      [userId],
    );
    return rows.map((row) => ({
      clientId: String(row.oauth_client_id),
      allowanceMicros: num(row.allowance_micros),
      leftMicros: num(row.left_micros),
      endsAt: (row.ends_at as Date | null) ?? null,
    }));
  }
}
