import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** Sums of maker_earnings rows, in micro-units. */
export interface EarningsSums {
  calls: number;
  paid: number;
  provider: number;
  fees: number;
  earnings: number;
  pending: number;
  available: number;
  moved: number;
}

const SUMS = `count(*)::int AS calls, COALESCE(sum(e.paid_micros), 0) AS paid, COALESCE(sum(e.provider_micros), 0) AS provider,
       COALESCE(sum(e.fee_micros), 0) AS fees, COALESCE(sum(e.earnings_micros - e.clawed_micros), 0) AS earnings,
       COALESCE(sum(e.earnings_micros - e.clawed_micros) FILTER (WHERE e.moved_at IS NULL AND e.available_at > now()), 0) AS pending,
       COALESCE(sum(e.earnings_micros - e.clawed_micros) FILTER (WHERE e.moved_at IS NULL AND e.available_at <= now()), 0) AS available,
       COALESCE(sum(e.earnings_micros - e.clawed_micros) FILTER (WHERE e.moved_at IS NOT NULL), 0) AS moved`;

const n = (value: unknown) => Number(value ?? 0);
const sums = (row: Record<string, unknown> | undefined): EarningsSums => ({
  calls: n(row?.calls),
  paid: n(row?.paid),
  provider: n(row?.provider),
  fees: n(row?.fees),
  earnings: n(row?.earnings),
  pending: n(row?.pending),
  available: n(row?.available),
  moved: n(row?.moved),
});

/**
 * The only code touching maker_earnings and earnings_settings (docs/earnings.md). The rows are written by the
 * database itself, in the statement that settles a call (the sy_earn trigger); this reads them and moves available
 * earnings into the maker's budget, in one statement with the ledger credit.
 */
@Injectable()
export class EarningsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** The operator's fee and hold, as the settling trigger reads them (the running configuration writes them). */
  async writeSettings(platformFeePercent: number, holdDays: number): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO earnings_settings (id, platform_fee_percent, hold_days) VALUES (true, $1, $2)
       ON CONFLICT (id) DO UPDATE SET platform_fee_percent = $1, hold_days = $2`,
      [platformFeePercent, holdDays],
    );
  }

  async totals(makerId: string): Promise<EarningsSums> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT ${SUMS} FROM maker_earnings e WHERE e.maker_id = $1`,
      [makerId],
    );
    return sums(rows[0]);
  }

  /** Per app of the maker (those it owns now), with its name and markup. */
  async byApp(
    makerId: string,
  ): Promise<Array<EarningsSums & { clientId: string; clientName: string; markup: number }>> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT o.client_id, o.client_name, o.markup_percent, ${SUMS}
         FROM oauth_clients o LEFT JOIN maker_earnings e ON e.oauth_client_id = o.client_id AND e.maker_id = $1
        WHERE o.owner_id = $1 GROUP BY o.client_id, o.client_name, o.markup_percent ORDER BY o.client_name`,
      [makerId],
    );
    return rows.map((row) => ({
      ...sums(row),
      clientId: String(row.client_id),
      clientName: String(row.client_name),
      markup: n(row.markup_percent),
    }));
  }

  /** Per UTC day and app, the last `days` days, newest first. */
  async byDay(makerId: string, days: number): Promise<Array<EarningsSums & { date: string; clientId: string }>> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT to_char(e.call_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS date, e.oauth_client_id, ${SUMS}
         FROM maker_earnings e
        WHERE e.maker_id = $1 AND e.call_at >= (date_trunc('day', now() AT TIME ZONE 'UTC') - make_interval(days => $2)) AT TIME ZONE 'UTC'
        GROUP BY 1, 2 ORDER BY 1 DESC, 2`,
      [makerId, days],
    );
    return rows.map((row) => ({ ...sums(row), date: String(row.date), clientId: String(row.oauth_client_id) }));
  }

  /**
   * Moves every available earning of the maker into their budget, in one statement: the rows are marked moved (a
   * row locked by a concurrent move is re-read and skipped, so nothing moves twice), and their sum is credited
   * with one ledger entry of kind `earnings` keyed by `moveId`. Answers what was moved (0: nothing was available).
   */
  async moveAvailable(makerId: string, moveId: string): Promise<number> {
    const rows: { amount: string | null }[] = await this.dataSource.query(
      `WITH moved AS (
         UPDATE maker_earnings SET moved_at = now(), move_id = $2
          WHERE maker_id = $1 AND moved_at IS NULL AND available_at <= now() AND earnings_micros > clawed_micros
          RETURNING earnings_micros - clawed_micros AS earnings_micros),
       total AS (SELECT COALESCE(sum(earnings_micros), 0)::bigint AS amount FROM moved),
       entry AS (
         INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key)
         SELECT $1, amount, 'earnings', 'earnings_move', 'earnings:' || $2::text FROM total WHERE amount > 0
         RETURNING amount_micros),
       b AS (
         INSERT INTO balances (user_id, credits_micros) SELECT $1, amount_micros FROM entry
         ON CONFLICT (user_id) DO UPDATE SET credits_micros = balances.credits_micros + EXCLUDED.credits_micros, updated_at = now()
         RETURNING 1)
       SELECT (SELECT amount FROM total) AS amount, (SELECT count(*) FROM b) AS credited`,
      [makerId, moveId],
    );
    return n(rows[0]?.amount);
  }
}
