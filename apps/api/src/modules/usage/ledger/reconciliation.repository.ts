import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/**
 * The reconciliation's reads (ReconciliationService): the money tables side by side — balances, ledger_entries,
 * reservations, usage_records and operator_losses —, each query optionally for one user. Reads only.
 */
@Injectable()
export class ReconciliationRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /**
   * Per user (or one user): the balance row's credits, debits and reserved amount, beside the ledger's sums and what
   * the open reservations hold.
   */
  balances(userId: string | null): Promise<Record<string, unknown>[]> {
    return this.dataSource.query(
      `WITH l AS (
         SELECT user_id, COALESCE(sum(amount_micros) FILTER (WHERE amount_micros > 0), 0) AS credits,
                COALESCE(-sum(amount_micros) FILTER (WHERE amount_micros < 0), 0) AS debits
           FROM ledger_entries WHERE $1::uuid IS NULL OR user_id = $1 GROUP BY user_id),
       r AS (SELECT user_id, sum(amount_micros) AS reserved FROM reservations WHERE status = 'open' AND ($1::uuid IS NULL OR user_id = $1) GROUP BY user_id)
       SELECT coalesce(b.user_id, l.user_id) AS user_id, b.credits_micros, b.debits_micros, b.reserved_micros,
              l.credits, l.debits, COALESCE(r.reserved, 0) AS open_reserved
         FROM balances b FULL JOIN l ON l.user_id = b.user_id LEFT JOIN r ON r.user_id = coalesce(b.user_id, l.user_id)
        WHERE $1::uuid IS NULL OR coalesce(b.user_id, l.user_id) = $1`,
      [userId],
    );
  }

  /**
   * Each call settled since `since` (leases are holds, not calls), with its ledger debit and its usage records' cost
   * and count. Older ledger debits were keyed by the call's request id (before call ids).
   */
  settledCalls(since: Date | null, userId: string | null): Promise<Record<string, unknown>[]> {
    return this.dataSource.query(
      `SELECT r.id, r.user_id, r.settled_micros, r.reason, l.debit, u.cost, u.records
         FROM reservations r
         LEFT JOIN LATERAL (SELECT -sum(amount_micros) AS debit FROM ledger_entries
                             WHERE idempotency_key = 'usage:' || r.id::text OR (r.request_id IS NOT NULL AND idempotency_key = 'usage:' || r.request_id)) l ON true
         LEFT JOIN LATERAL (SELECT sum(cost_micros) AS cost, count(*) AS records FROM usage_records
                             WHERE call_id = r.id AND started_at >= r.created_at - interval '1 day') u ON true
        WHERE NOT r.lease AND r.status <> 'open' AND ($1::timestamptz IS NULL OR r.created_at >= $1) AND ($2::uuid IS NULL OR r.user_id = $2)`,
      [since, userId],
    );
  }

  /** Usage records with a cost whose call has no settled reservation. */
  unsettledRecords(since: Date | null, userId: string | null): Promise<Record<string, unknown>[]> {
    return this.dataSource.query(
      `SELECT u.call_id, u.user_id, u.cost_micros FROM usage_records u
        WHERE u.cost_micros > 0 AND ($1::timestamptz IS NULL OR u.started_at >= $1) AND ($2::uuid IS NULL OR u.user_id = $2)
          AND NOT EXISTS (SELECT 1 FROM reservations r WHERE r.id = u.call_id AND r.status <> 'open')`,
      [since, userId],
    );
  }

  /**
   * Each call through a marked-up app that settled, or that has an earnings row (docs/earnings.md), beside that
   * row: what the call was charged at which rate, and what the row says the user paid and the provider cost.
   */
  earningsCalls(since: Date | null, userId: string | null): Promise<Record<string, unknown>[]> {
    return this.dataSource.query(
      `SELECT r.id, r.user_id, r.status, r.settled_micros, r.markup_percent, e.call_id AS earned, e.paid_micros,
              e.provider_micros
         FROM reservations r LEFT JOIN maker_earnings e ON e.call_id = r.id
        WHERE NOT r.lease AND r.markup_percent > 0 AND r.oauth_client_id IS NOT NULL
          AND ((r.status = 'settled' AND r.settled_micros > 0) OR e.call_id IS NOT NULL)
          AND ($1::timestamptz IS NULL OR r.created_at >= $1) AND ($2::uuid IS NULL OR r.user_id = $2)`,
      [since, userId],
    );
  }

  /** Per maker: earnings marked moved beside the ledger's `earnings` credits plus the payouts made of them. */
  earningsMoved(userId: string | null): Promise<Record<string, unknown>[]> {
    return this.dataSource.query(
      `WITH m AS (SELECT maker_id AS user_id, sum(earnings_micros - clawed_micros) AS moved FROM maker_earnings
                   WHERE moved_at IS NOT NULL AND maker_id IS NOT NULL GROUP BY maker_id),
            l AS (SELECT user_id, sum(amount_micros) AS credited FROM ledger_entries WHERE kind = 'earnings' GROUP BY user_id
                  UNION ALL
                  SELECT maker_id, sum(amount_micros) FROM maker_payouts GROUP BY maker_id),
            c AS (SELECT user_id, sum(credited) AS credited FROM l GROUP BY user_id)
       SELECT coalesce(m.user_id, c.user_id) AS user_id, COALESCE(m.moved, 0) AS moved, COALESCE(c.credited, 0) AS credited
         FROM m FULL JOIN c ON c.user_id = m.user_id
        WHERE $1::uuid IS NULL OR coalesce(m.user_id, c.user_id) = $1`,
      [userId],
    );
  }

  /**
   * Per UTC day of the calls: what users paid for settled calls, and how it splits: the provider's cost (all of a
   * call without markup), the makers' earnings and the operator's fees.
   */
  days(since: Date | null, userId: string | null): Promise<Record<string, unknown>[]> {
    return this.dataSource.query(
      `SELECT to_char(r.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, sum(r.settled_micros) AS paid,
              sum(COALESCE(e.provider_micros, r.settled_micros)) AS provider, COALESCE(sum(e.earnings_micros), 0) AS earnings,
              COALESCE(sum(e.fee_micros), 0) AS fees
         FROM reservations r LEFT JOIN maker_earnings e ON e.call_id = r.id
        WHERE NOT r.lease AND r.status = 'settled' AND ($1::timestamptz IS NULL OR r.created_at >= $1)
          AND ($2::uuid IS NULL OR r.user_id = $2)
        GROUP BY 1 ORDER BY 1`,
      [since, userId],
    );
  }

  /** Operator losses since `since`, largest first, each beside its call's reservation status and charge. */
  losses(since: Date | null, userId: string | null): Promise<Record<string, unknown>[]> {
    return this.dataSource.query(
      `SELECT o.call_id, o.user_id, o.charged_micros, o.lost_micros, o.bound, r.status, r.settled_micros
         FROM operator_losses o LEFT JOIN reservations r ON r.id = o.call_id
        WHERE ($1::timestamptz IS NULL OR o.created_at >= $1) AND ($2::uuid IS NULL OR o.user_id = $2)
        ORDER BY o.lost_micros DESC`,
      [since, userId],
    );
  }

  /**
   * Per sponsor pool (of one maker, or all): its own figures beside the ledger's `sponsor_fund`, `sponsor_back` and
   * `sponsor` (the users' draws, net of what calls gave back) entries naming the app, what its calls paid or hold
   * (min(charge, sponsored hold), an open call its hold), and what its allowances say was drawn.
   */
  sponsorPools(userId: string | null): Promise<Record<string, unknown>[]> {
    return this.dataSource.query(
      `SELECT p.oauth_client_id, p.maker_id, p.funded_micros, p.left_micros, p.drawn_micros, p.taken_back_micros,
              (SELECT COALESCE(-sum(amount_micros), 0) FROM ledger_entries
                WHERE kind = 'sponsor_fund' AND source = p.oauth_client_id) AS ledger_funded,
              (SELECT COALESCE(sum(amount_micros), 0) FROM ledger_entries
                WHERE kind = 'sponsor_back' AND source = p.oauth_client_id) AS ledger_back,
              (SELECT COALESCE(sum(amount_micros), 0) FROM ledger_entries
                WHERE kind = 'sponsor' AND source = p.oauth_client_id) AS ledger_drawn,
              (SELECT COALESCE(sum(CASE WHEN status = 'open' THEN sponsor_micros
                                        ELSE LEAST(GREATEST(COALESCE(settled_micros, 0), 0), sponsor_micros) END), 0)
                 FROM reservations WHERE oauth_client_id = p.oauth_client_id AND sponsor_micros > 0) AS calls_drawn,
              (SELECT COALESCE(sum(drawn_micros), 0) FROM sponsor_allowances a
                WHERE a.oauth_client_id = p.oauth_client_id) AS allowances_drawn
         FROM sponsor_pools p WHERE $1::uuid IS NULL OR p.maker_id = $1`,
      [userId],
    );
  }

  /**
   * Refunds and disputes that took more than the user's balance still held (payment_refunds.lost_micros > 0, since
   * `since`), largest first: the rest is the operator's loss (docs/payments.md), less what was clawed back.
   */
  refundLosses(since: Date | null, userId: string | null): Promise<Record<string, unknown>[]> {
    return this.dataSource.query(
      `SELECT id, user_id, kind, amount_micros, debited_micros, lost_micros, clawed_micros FROM payment_refunds
        WHERE lost_micros > 0 AND ($1::timestamptz IS NULL OR created_at >= $1) AND ($2::uuid IS NULL OR user_id = $2)
        ORDER BY lost_micros DESC`,
      [since, userId],
    );
  }
}
