import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** A payout as stored (micro-units; whole cents). */
export interface PayoutRow {
  id: string;
  accountId: string;
  amountMicros: number;
  status: 'pending' | 'paid';
  transferId: string | null;
  sandbox: boolean;
  createdAt: Date;
  paidAt: Date | null;
}

/** One micro-unit short of a cent can never be sent: Stripe moves whole cents. */
export const CENT_MICROS = 10_000;

const toPayout = (row: Record<string, unknown>): PayoutRow => ({
  id: String(row.id),
  accountId: String(row.account_id),
  amountMicros: Number(row.amount_micros),
  status: row.status as 'pending' | 'paid',
  transferId: (row.transfer_id as string | null) ?? null,
  sandbox: Boolean(row.sandbox),
  createdAt: row.created_at as Date,
  paidAt: (row.paid_at as Date | null) ?? null,
});

/**
 * The only code touching maker_payout_accounts and maker_payouts (docs/earnings.md, "Payouts"), and the earnings
 * rows a payout takes (in one statement with the payout and the ledger credit of what is below a cent).
 */
@Injectable()
export class PayoutsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async account(userId: string): Promise<{ accountId: string; sandbox: boolean } | null> {
    const rows: { account_id: string; sandbox: boolean }[] = await this.dataSource.query(
      'SELECT account_id, sandbox FROM maker_payout_accounts WHERE user_id = $1',
      [userId],
    );
    return rows[0] ? { accountId: rows[0].account_id, sandbox: Boolean(rows[0].sandbox) } : null;
  }

  /** Keeps the first account linked for the user (a concurrent link loses and reads the winner's). */
  async saveAccount(
    userId: string,
    accountId: string,
    sandbox: boolean,
  ): Promise<{ accountId: string; sandbox: boolean }> {
    await this.dataSource.query(
      'INSERT INTO maker_payout_accounts (user_id, account_id, sandbox) VALUES ($1, $2, $3) ON CONFLICT (user_id) DO NOTHING',
      [userId, accountId, sandbox],
    );
    return (await this.account(userId))!;
  }

  /**
   * Takes every available earning of the maker for payout `id`, in one statement: the rows are marked moved (each
   * once, also under concurrent requests), their whole cents become a `pending` payout to `accountId`, and what is
   * below a cent is credited to the maker's budget (ledger `earnings`, keyed by the payout's id). Answers the
   * payout's amount (0: nothing was available, or less than a cent) and what was credited.
   */
  async start(
    makerId: string,
    id: string,
    accountId: string,
    sandbox: boolean,
  ): Promise<{ payout: number; credited: number }> {
    const rows: { payout: string | null; credited: string | null }[] = await this.dataSource.query(
      `WITH moved AS (
         UPDATE maker_earnings SET moved_at = now(), move_id = $2, payout_id = $2
          WHERE maker_id = $1 AND moved_at IS NULL AND available_at <= now() AND earnings_micros > clawed_micros
          RETURNING earnings_micros - clawed_micros AS earnings_micros),
       total AS (SELECT COALESCE(sum(earnings_micros), 0)::bigint AS amount FROM moved),
       split AS (SELECT amount, (amount / ${CENT_MICROS}) * ${CENT_MICROS} AS whole FROM total),
       payout AS (
         INSERT INTO maker_payouts (id, maker_id, account_id, amount_micros, status, sandbox)
         SELECT $2, $1, $3, whole, 'pending', $4 FROM split WHERE whole > 0 RETURNING amount_micros),
       entry AS (
         INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key)
         SELECT $1, amount - whole, 'earnings', 'earnings_payout_rest', 'earnings:' || $2::text FROM split WHERE amount > whole
         RETURNING amount_micros),
       b AS (
         INSERT INTO balances (user_id, credits_micros) SELECT $1, amount_micros FROM entry
         ON CONFLICT (user_id) DO UPDATE SET credits_micros = balances.credits_micros + EXCLUDED.credits_micros, updated_at = now()
         RETURNING 1)
       SELECT (SELECT amount_micros FROM payout) AS payout, (SELECT amount_micros FROM entry) AS credited,
              (SELECT count(*) FROM b) AS balances`,
      [makerId, id, accountId, sandbox],
    );
    return { payout: Number(rows[0]?.payout ?? 0), credited: Number(rows[0]?.credited ?? 0) };
  }

  async pending(makerId: string): Promise<PayoutRow[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT * FROM maker_payouts WHERE maker_id = $1 AND status = 'pending' ORDER BY created_at`,
      [makerId],
    );
    return rows.map(toPayout);
  }

  /** Stripe answered with its transfer: the payout is paid (once; a replayed answer changes nothing). */
  async paid(id: string, transferId: string): Promise<void> {
    await this.dataSource.query(
      `UPDATE maker_payouts SET status = 'paid', transfer_id = $2, paid_at = now() WHERE id = $1 AND status = 'pending'`,
      [id, transferId],
    );
  }

  async list(makerId: string, limit: number): Promise<PayoutRow[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      'SELECT * FROM maker_payouts WHERE maker_id = $1 ORDER BY created_at DESC LIMIT $2',
      [makerId, limit],
    );
    return rows.map(toPayout);
  }
}
