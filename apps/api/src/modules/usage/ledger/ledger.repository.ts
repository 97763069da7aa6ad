import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { LedgerSide } from '@switchyard/shared-dto';

export type CreditKind = 'signup_credit' | 'payment' | 'gift_card' | 'admin_adjustment';

export interface BalanceRow {
  creditsMicros: number;
  debitsMicros: number;
  reservedMicros: number;
}

export interface LedgerEntryRow {
  id: string;
  amountMicros: number;
  kind: string;
  source: string | null;
  createdAt: Date;
}

const num = (value: unknown) => Number(value ?? 0);

/**
 * The only code touching ledger_entries and balances outside the call path (credits and reads). Every money
 * movement is one SQL statement (CTEs), so it is atomic, costs one round trip, and holds across instances: the
 * balance row is locked by the statement itself, never by process memory.
 */
@Injectable()
export class LedgerRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Credits once per idempotency key; returns false when the key was already used. */
  async credit(
    userId: string,
    amountMicros: number,
    kind: CreditKind,
    source: string,
    idempotencyKey: string,
  ): Promise<boolean> {
    const rows: unknown[] = await this.dataSource.query(
      `WITH entry AS (
         INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key)
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT (idempotency_key) DO NOTHING RETURNING amount_micros)
       INSERT INTO balances (user_id, credits_micros)
       SELECT $1, amount_micros FROM entry
       ON CONFLICT (user_id) DO UPDATE SET credits_micros = balances.credits_micros + EXCLUDED.credits_micros, updated_at = now()
       RETURNING user_id`,
      [userId, amountMicros, kind, source, idempotencyKey],
    );
    return rows.length > 0;
  }

  /** The user's ledger entries (of one side when given), newest first, below the entry id `beforeId` (a page cursor). */
  async entries(
    userId: string,
    limit: number,
    beforeId: string | null,
    side: LedgerSide | null = null,
  ): Promise<LedgerEntryRow[]> {
    const sign = side === 'credit' ? ' AND amount_micros > 0' : side === 'debit' ? ' AND amount_micros < 0' : '';
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT id, amount_micros, kind, source, created_at FROM ledger_entries
        WHERE user_id = $1 AND ($3::bigint IS NULL OR id < $3::bigint)${sign}
        ORDER BY id DESC LIMIT $2`,
      [userId, limit, beforeId],
    );
    return rows.map((row) => ({
      id: String(row.id),
      amountMicros: num(row.amount_micros),
      kind: String(row.kind),
      source: (row.source as string | null) ?? null,
      createdAt: row.created_at as Date,
    }));
  }

  /**
   * The user's usage debits summed per UTC day over [from, to) (dates), newest day first: at most the window's
   * days, read through the (user_id, created_at) index.
   */
  async dailySpend(
    userId: string,
    from: string,
    to: string,
  ): Promise<{ day: string; micros: number; calls: number }[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT to_char((created_at AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day, -sum(amount_micros) AS micros,
              count(*) AS calls
         FROM ledger_entries
        WHERE user_id = $1 AND kind = 'usage'
          AND created_at >= ($2::date)::timestamp AT TIME ZONE 'UTC' AND created_at < ($3::date)::timestamp AT TIME ZONE 'UTC'
        GROUP BY 1 ORDER BY 1 DESC`,
      [userId, from, to],
    );
    return rows.map((row) => ({ day: String(row.day), micros: num(row.micros), calls: num(row.calls) }));
  }

  /** The UTC day of the user's latest usage debit before `to` (a date), or null when there is none. */
  async lastSpendDayBefore(userId: string, to: string): Promise<string | null> {
    const [row]: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT to_char((max(created_at) AT TIME ZONE 'UTC')::date, 'YYYY-MM-DD') AS day FROM ledger_entries
        WHERE user_id = $1 AND kind = 'usage' AND created_at < ($2::date)::timestamp AT TIME ZONE 'UTC'`,
      [userId, to],
    );
    return (row?.day as string | null) ?? null;
  }

  async balance(userId: string): Promise<BalanceRow> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      'SELECT credits_micros, debits_micros, reserved_micros FROM balances WHERE user_id = $1',
      [userId],
    );
    return {
      creditsMicros: num(rows[0]?.credits_micros),
      debitsMicros: num(rows[0]?.debits_micros),
      reservedMicros: num(rows[0]?.reserved_micros),
    };
  }
}
