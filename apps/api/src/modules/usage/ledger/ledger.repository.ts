import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

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

  /** The user's ledger entries, newest first, below the entry id `beforeId` (a page cursor). */
  async entries(userId: string, limit: number, beforeId: string | null): Promise<LedgerEntryRow[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT id, amount_micros, kind, source, created_at FROM ledger_entries
        WHERE user_id = $1 AND ($3::bigint IS NULL OR id < $3::bigint)
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
