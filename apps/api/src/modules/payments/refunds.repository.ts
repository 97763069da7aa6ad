import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource, EntityManager } from 'typeorm';

export type RefundKind = 'refund' | 'dispute';

export interface RefundRow {
  id: string;
  paymentId: string;
  userId: string;
  kind: RefundKind;
  amountMicros: number;
  debitedMicros: number;
  lostMicros: number;
  clawedMicros: number;
}

export type RecordOutcome =
  | { outcome: 'recorded' | 'already'; refund: RefundRow; refundableMicros: number }
  | { outcome: 'not_found' | 'not_paid' | 'nothing_left' }
  | { outcome: 'exceeds'; refundableMicros: number };

const num = (value: unknown) => Number(value ?? 0);

const toRow = (row: Record<string, unknown>): RefundRow => ({
  id: String(row.id),
  paymentId: String(row.payment_id),
  userId: String(row.user_id),
  kind: row.kind as RefundKind,
  amountMicros: num(row.amount_micros),
  debitedMicros: num(row.debited_micros),
  lostMicros: num(row.lost_micros),
  clawedMicros: num(row.clawed_micros),
});

/**
 * The only code touching payment_refunds (docs/payments.md, "Refunds and disputes"). A refund is recorded in one
 * transaction that locks the top-up's row (so refunds of one top-up, from any instance, never add up to more than
 * it) and then the user's balance row (so the debit is judged against the free balance as it stands): the
 * debit is at most the free balance (credits − debits − held), the rest is the operator's loss. Once per id.
 */
@Injectable()
export class RefundsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * `ownerId`: when given, the top-up must be that user's. `capToRemaining`: Stripe's word (a webhook) is taken up
   * to what is left of the top-up; an admin's request above it is refused (`exceeds`).
   */
  record(input: {
    id: string;
    paymentId: string;
    kind: RefundKind;
    amountMicros: number | null;
    ownerId?: string;
    capToRemaining: boolean;
    /** Runs in the refund's transaction once it is recorded (the admin's audit entry). */
    onRecorded?: (manager: EntityManager, refund: RefundRow) => Promise<unknown>;
  }): Promise<RecordOutcome> {
    return this.dataSource.transaction((manager) => this.recordIn(manager, input));
  }

  private async recordIn(
    manager: EntityManager,
    input: {
      id: string;
      paymentId: string;
      kind: RefundKind;
      amountMicros: number | null;
      ownerId?: string;
      capToRemaining: boolean;
      onRecorded?: (manager: EntityManager, refund: RefundRow) => Promise<unknown>;
    },
  ): Promise<RecordOutcome> {
    const [payment]: Record<string, unknown>[] = await manager.query(
      `SELECT id, user_id, amount_micros, credited_at FROM payments WHERE id = $1 FOR UPDATE`,
      [input.paymentId],
    );
    if (!payment || (input.ownerId !== undefined && payment.user_id !== input.ownerId)) return { outcome: 'not_found' };
    const paidMicros = num(payment.amount_micros);
    const [refunded]: Record<string, unknown>[] = await manager.query(
      `SELECT COALESCE(sum(amount_micros), 0) AS total FROM payment_refunds WHERE payment_id = $1`,
      [input.paymentId],
    );
    const left = paidMicros - num(refunded?.total);
    const [existing]: Record<string, unknown>[] = await manager.query(`SELECT * FROM payment_refunds WHERE id = $1`, [
      input.id,
    ]);
    if (existing) return { outcome: 'already', refund: toRow(existing), refundableMicros: left };
    if (!payment.credited_at) return { outcome: 'not_paid' };
    let amount = input.amountMicros ?? left;
    if (amount > left) {
      if (!input.capToRemaining) return { outcome: 'exceeds', refundableMicros: left };
      amount = left;
    }
    if (amount <= 0) return { outcome: 'nothing_left' };
    const userId = String(payment.user_id);
    await manager.query(`INSERT INTO balances (user_id) VALUES ($1) ON CONFLICT (user_id) DO NOTHING`, [userId]);
    const [balance]: Record<string, unknown>[] = await manager.query(
      `SELECT credits_micros - debits_micros - reserved_micros AS free FROM balances WHERE user_id = $1 FOR UPDATE`,
      [userId],
    );
    const debited = Math.min(amount, Math.max(num(balance?.free), 0));
    if (debited > 0) {
      await manager.query(
        `INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key) VALUES ($1, $2, 'refund', $3, $4)`,
        [userId, -debited, input.paymentId, `refund:${input.id}`],
      );
      await manager.query(
        `UPDATE balances SET debits_micros = debits_micros + $2, updated_at = now() WHERE user_id = $1`,
        [userId, debited],
      );
    }
    const clawed = await this.clawBack(manager, userId, amount);
    const [row]: Record<string, unknown>[] = await manager.query(
      `INSERT INTO payment_refunds (id, payment_id, user_id, kind, amount_micros, debited_micros, lost_micros, clawed_micros)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING *`,
      [input.id, input.paymentId, userId, input.kind, amount, debited, amount - debited, clawed],
    );
    const refund = toRow(row);
    await input.onRecorded?.(manager, refund);
    return { outcome: 'recorded', refund, refundableMicros: left - amount };
  }

  /**
   * Takes back, in proportion, the makers' pending earnings from the user's calls (docs/earnings.md, "Refunds and
   * disputes"): with T what the user paid for calls whose earnings are still pending (not moved, hold not over),
   * a refund of A takes ⌊left × A / T⌋ of each such earning's left (earnings − clawed), all of it when A ≥ T. The
   * rows are locked first, so a move or payout racing with it takes what is left after it. Answers the total.
   */
  private async clawBack(manager: EntityManager, userId: string, amountMicros: number): Promise<number> {
    const [row]: Record<string, unknown>[] = await manager.query(
      `WITH pending AS (
         SELECT call_id, paid_micros, earnings_micros - clawed_micros AS left FROM maker_earnings
          WHERE user_id = $1 AND moved_at IS NULL AND available_at > now() FOR UPDATE),
       total AS (SELECT sum(paid_micros) AS paid FROM pending),
       claw AS (
         SELECT p.call_id,
                CASE WHEN $2::numeric >= t.paid THEN p.left ELSE floor(p.left::numeric * $2 / t.paid)::bigint END AS micros
           FROM pending p, total t WHERE t.paid > 0),
       taken AS (
         UPDATE maker_earnings e SET clawed_micros = e.clawed_micros + c.micros
           FROM claw c WHERE e.call_id = c.call_id AND c.micros > 0 RETURNING c.micros)
       SELECT COALESCE(sum(micros), 0) AS clawed FROM taken`,
      [userId, amountMicros],
    );
    return num(row?.clawed);
  }

  /** What is left to refund of a top-up (outside any lock: a hint before asking Stripe, which holds the limit). */
  async refundable(paymentId: string): Promise<number> {
    const [row]: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT p.amount_micros - COALESCE((SELECT sum(amount_micros) FROM payment_refunds WHERE payment_id = p.id), 0) AS left
         FROM payments p WHERE p.id = $1`,
      [paymentId],
    );
    return num(row?.left);
  }
}
