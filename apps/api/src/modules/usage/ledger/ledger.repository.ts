import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';
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

  /**
   * An operator's adjustment (docs/budgets.md, "Adjustments"), once per idempotency key, in the caller's
   * transaction: a positive amount is a credit, a negative one a debit, each kept in step on the balance like any
   * credit or usage debit (so reconciliation balances). A debit the free balance cannot cover breaks the balance's
   * check constraint and the statement fails. Answers the entry's id and whether this call wrote it.
   */
  async adjust(
    manager: EntityManager,
    userId: string,
    amountMicros: number,
    source: string,
    idempotencyKey: string,
  ): Promise<{ entryId: string; applied: boolean } | null> {
    // The balance row first (an account credited nothing yet has none), so the adjustment is an UPDATE whose new
    // row the check constraint judges: an INSERT … ON CONFLICT would be judged on the row it proposes.
    await manager.query(`INSERT INTO balances (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING`, [userId]);
    const rows: Array<{ id: string; applied: boolean }> = await manager.query(
      `WITH entry AS (
         INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key)
         VALUES ($1, $2, 'admin_adjustment', $3, $4) ON CONFLICT (idempotency_key) DO NOTHING RETURNING id, amount_micros),
       b AS (
         UPDATE balances SET credits_micros = balances.credits_micros + GREATEST(entry.amount_micros, 0),
                debits_micros = balances.debits_micros + GREATEST(-entry.amount_micros, 0), updated_at = now()
           FROM entry WHERE balances.user_id = $1
         RETURNING balances.user_id)
       SELECT id, true AS applied FROM entry
       UNION ALL
       SELECT id, false FROM ledger_entries
        WHERE idempotency_key = $4 AND user_id = $1 AND NOT EXISTS (SELECT 1 FROM entry)`,
      [userId, amountMicros, source, idempotencyKey],
    );
    return rows[0] ? { entryId: String(rows[0].id), applied: rows[0].applied } : null;
  }

  /** The adjustment an idempotency key wrote for this user, read afresh (one racing with this one may just have committed). */
  async findAdjustment(manager: EntityManager, userId: string, idempotencyKey: string): Promise<string | null> {
    const rows: Array<{ id: string }> = await manager.query(
      `SELECT id FROM ledger_entries WHERE idempotency_key = $1 AND user_id = $2`,
      [idempotencyKey, userId],
    );
    return rows[0] ? String(rows[0].id) : null;
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
