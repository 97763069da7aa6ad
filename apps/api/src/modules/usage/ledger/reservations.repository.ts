import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import type { SpendLimitName, SpendLimitScope } from '@switchyard/shared-dto';
import { batchQuery, hotQuery, pgArray } from '../../../database/hot-path';
import type { LimitFigures } from './spend-limit-refusal';

export interface ReserveInput {
  /** The call's id (the server's own, random): the reservation's key. */
  id: string;
  /** The caller's correlation id (X-Request-Id), stored for reading only; null for a lease. */
  requestId: string | null;
  /** A lease: a hold this instance draws many calls on (ReservationService). */
  lease?: boolean;
  userId: string;
  apiKeyId: string | null;
  oauthClientId: string | null;
  /** The worst case: what the call may cost at most. */
  worstMicros: number;
  /** The least the call needs (its input): below this it is refused. */
  minimumMicros: number;
  inputEstimateMicros: number;
  ttlSeconds: number;
  /**
   * The app's markup the call is priced at (the grant's rate; 0 without an app): the amounts above are already
   * marked up (markedUp), and settlement splits the charge by this rate (docs/earnings.md).
   */
  markupPercent?: number;
}

export interface ReserveResult {
  /** Held for the call: min(worst, remaining), or null when the balance could not cover the minimum. */
  amountMicros: number | null;
  remainingMicros: number;
  /** Credits − debits: what the usage summary shows as remaining (a budget_exhausted error states it). */
  balanceMicros: number;
  /** What the account and the caps' windows still leave once the call holds its amount (null when refused). */
  headroomMicros: number | null;
  /** Which limit refused the call: 'account' (the budget) or a key's 'total', 'daily', 'weekly', 'monthly', 'per_request'. */
  tripped: string | null;
}

/** One call that drew on a lease; `costMicros` is already capped at `holdMicros`. */
export interface LeasedSettlement {
  leaseId: string;
  /** The call's id. */
  id: string;
  requestId: string | null;
  holdMicros: number;
  costMicros: number;
  reason: string;
}

/** One call settled on its own, at exactly its cost (LedgerRepository.settleExact). */
export interface ExactSettlement {
  id: string;
  userId: string;
  apiKeyId: string | null;
  oauthClientId: string | null;
  requestId: string | null;
  /** The lease the call drew on, if it did. */
  leaseId: string | null;
  costMicros: number;
  reason: string;
}

const num = (value: unknown) => Number(value ?? 0);

/** How often a reservation is asked when PostgreSQL failed it for a deadlock or a serialization conflict. */
const RESERVE_ATTEMPTS = 3;
/** deadlock_detected, serialization_failure: the statement was undone and may be run again as it was. */
const RETRYABLE = new Set(['40P01', '40001']);

/**
 * The tail of a batched settlement: `agg` (user_id, held, settled) moves each balance's held amount out of
 * reserved and its settled amount into debits; `calls` (id, user_id, settled_micros) gets one ledger debit per
 * charged call, keyed by the call's id. Yields the CTEs `locked`, `b` and `l`.
 * A batch names several users, and two batches (two instances, or a batch and the sweeper) may name the same ones:
 * `locked` takes their balance rows in user id order before `b` updates any (b cannot yield a row before `locked`'s
 * one row, its count, exists), so two batches never hold one balance each while waiting for the other's. Updating in
 * whatever order the join came up with, they did: PostgreSQL failed one of them, and a reservation queued behind
 * either could be the one it failed (docs/budgets.md, "Locks").
 */
const debitCtes = (calls: string) => `locked AS (
         SELECT count(*) AS n FROM (SELECT 1 FROM balances WHERE user_id IN (SELECT user_id FROM agg)
                                     ORDER BY user_id FOR NO KEY UPDATE) AS o),
       b AS (
         UPDATE balances SET reserved_micros = balances.reserved_micros - agg.held,
                debits_micros = balances.debits_micros + agg.settled, updated_at = now()
           FROM agg, locked WHERE balances.user_id = agg.user_id AND locked.n >= 0 RETURNING 1),
       l AS (
         INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key)
         SELECT user_id, -settled_micros, 'usage', id::text, 'usage:' || id::text FROM ${calls} WHERE settled_micros > 0
         RETURNING 1)`;

/**
 * The only code touching reservations (and, as a call settles, the balance and its ledger debit in the same
 * statement): holding a call's worst case (sy_reserve), settling it once, batches, leases, the sweeper's reads and
 * the activity's money trace. Each statement is atomic and holds across instances.
 */
@Injectable()
export class ReservationsRepository {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  /** Per app (client_id): settled amounts and open holds of this user's calls since the UTC month began. */
  async appSpendThisMonth(userId: string): Promise<Map<string, number>> {
    const rows: { client: string; spent: string }[] = await this.dataSource.query(
      `SELECT oauth_client_id AS client, sum(CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END) AS spent
         FROM reservations
        WHERE user_id = $1 AND oauth_client_id IS NOT NULL
          AND created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'
        GROUP BY oauth_client_id`,
      [userId],
    );
    return new Map(rows.map((row) => [row.client, Number(row.spent ?? 0)]));
  }

  /**
   * Per API key of this user: settled amounts and open holds, this UTC month and all time, in one grouped query
   * (the same sums sy_spend checks a key's limits against).
   */
  async keySpend(userId: string): Promise<Map<string, { month: number; total: number }>> {
    const rows: { key: string; month: string; total: string }[] = await this.dataSource.query(
      `SELECT api_key_id AS key,
              COALESCE(sum(spend) FILTER (WHERE created_at >= date_trunc('month', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'), 0) AS month,
              sum(spend) AS total
         FROM (SELECT api_key_id, created_at, CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END AS spend
                 FROM reservations WHERE user_id = $1 AND api_key_id IS NOT NULL) AS calls
        GROUP BY api_key_id`,
      [userId],
    );
    return new Map(rows.map((row) => [row.key, { month: Number(row.month), total: Number(row.total ?? 0) }]));
  }

  /**
   * Holds min(worst, remaining) against the balance, if the remaining balance covers at least the minimum
   * (sy_reserve, money-functions.ts). The balance row is locked while it decides, so
   * concurrent reservations on any instance serialise on it.
   */
  async reserve(input: ReserveInput): Promise<ReserveResult> {
    const values = [
      input.userId,
      input.worstMicros,
      input.minimumMicros,
      input.id,
      input.requestId,
      input.apiKeyId,
      input.oauthClientId,
      input.inputEstimateMicros,
      input.ttlSeconds,
      input.lease === true,
      input.markupPercent ?? 0,
    ];
    let rows: Record<string, unknown>[];
    for (let attempt = 1; ; attempt++) {
      try {
        rows = await hotQuery(
          this.dataSource,
          'sy_reserve',
          'SELECT remaining, amount, tripped, balance, headroom FROM sy_reserve($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)',
          values,
        );
        break;
      } catch (error) {
        // A reservation queued on a balance row behind statements that deadlocked among themselves can be the one
        // PostgreSQL fails to break the cycle. The statement was undone as a whole, so it is simply asked again
        // rather than answered 500 (docs/budgets.md, "Locks").
        if (attempt >= RESERVE_ATTEMPTS || !RETRYABLE.has((error as { code?: string }).code ?? '')) throw error;
      }
    }
    const row = rows[0] ?? {};
    return {
      amountMicros: row.amount === null || row.amount === undefined ? null : num(row.amount),
      remainingMicros: num(row.remaining),
      balanceMicros: num(row.balance),
      headroomMicros: row.headroom === null || row.headroom === undefined ? null : num(row.headroom),
      tripped: (row.tripped as string | null) ?? null,
    };
  }

  /**
   * Settles a reservation exactly once: debits min(cost, held) (so spend can never pass what was reserved),
   * releases the rest, and writes the usage debit to the ledger. Returns the amount debited, or null when the
   * reservation was already settled (by this call, another instance, or the expiry sweeper).
   */
  async settle(id: string, costMicros: number, reason: string): Promise<number | null> {
    const rows = await hotQuery(
      this.dataSource,
      'sy_settle',
      `WITH r AS (
         UPDATE reservations SET status = CASE WHEN LEAST($2::bigint, amount_micros) > 0 THEN 'settled' ELSE 'released' END,
                settled_micros = LEAST($2::bigint, amount_micros), reason = $3, settled_at = now()
          WHERE id = $1 AND status = 'open'
          RETURNING id, user_id, amount_micros, settled_micros),
       b AS (
         UPDATE balances SET reserved_micros = balances.reserved_micros - r.amount_micros,
                debits_micros = balances.debits_micros + r.settled_micros, updated_at = now()
           FROM r WHERE balances.user_id = r.user_id RETURNING 1),
       l AS (
         INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key)
         SELECT user_id, -settled_micros, 'usage', id::text, 'usage:' || id::text FROM r WHERE settled_micros > 0
         RETURNING 1)
       SELECT (SELECT settled_micros FROM r) AS settled, (SELECT count(*) FROM b) AS balances, (SELECT count(*) FROM l) AS entries`,
      [id, Math.max(0, Math.round(costMicros)), reason],
    );
    const settled = rows[0]?.settled;
    return settled === null || settled === undefined ? null : num(settled);
  }

  /**
   * Settles many reservations in one statement (the batched path of BudgetService): the same rules as
   * settle(), each reservation at most once. Returns what was debited per reservation actually settled here.
   */
  async settleMany(items: { id: string; costMicros: number; reason: string }[]): Promise<Map<string, number>> {
    const rows = await batchQuery(
      this.dataSource,
      'sy_settle_many',
      `WITH input AS (SELECT * FROM unnest($1::uuid[], $2::bigint[], $3::text[]) AS t(id, cost, reason)),
       r AS (
         UPDATE reservations res SET status = CASE WHEN LEAST(input.cost, res.amount_micros) > 0 THEN 'settled' ELSE 'released' END,
                settled_micros = LEAST(input.cost, res.amount_micros), reason = input.reason, settled_at = now()
           FROM input WHERE res.id = input.id AND res.status = 'open'
           RETURNING res.id, res.user_id, res.amount_micros, res.settled_micros),
       agg AS (SELECT user_id, sum(amount_micros) AS held, sum(settled_micros) AS settled FROM r GROUP BY user_id),
       ${debitCtes('r')}
       SELECT id, settled_micros, (SELECT count(*) FROM b) AS balances, (SELECT count(*) FROM l) AS entries FROM r`,
      [items.map((i) => i.id), items.map((i) => Math.max(0, Math.round(i.costMicros))), items.map((i) => i.reason)],
    );
    return new Map(rows.map((row) => [String(row.id), num(row.settled_micros)]));
  }

  /**
   * Settles calls that drew on a lease (a reservation this instance holds for many calls of one credential; see
   * BudgetService) in one statement: each call gets its own settled reservation row, keyed by its call id and naming
   * its lease (so key and app spend windows, activity and reconciliation see every call) and priced at its lease's
   * markup rate (docs/earnings.md), the lease shrinks by what they cost, and the balance moves that amount from
   * reserved to debited.
   * - A call whose row already exists (a batch that committed but whose answer was lost, retried) is not written
   *   again: it is reported with what it was charged. Two attempts racing on the same calls cannot both commit:
   *   the second's insert meets the first's primary keys and fails as a whole.
   * - A call whose lease is no longer open (returned, or released by the sweeper) is not written here: its id is
   *   missing from the result, and the caller charges it on its own (settleExact).
   */
  async settleLeased(items: LeasedSettlement[]): Promise<Map<string, number>> {
    const rows = await batchQuery(
      this.dataSource,
      'sy_settle_leased',
      `WITH given AS (SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::bigint[], $5::bigint[], $6::text[]) AS t(lease, id, request, hold, cost, reason)),
       existing AS (SELECT res.id, res.settled_micros FROM reservations res JOIN given ON res.id = given.id),
       input AS (SELECT * FROM given WHERE id NOT IN (SELECT id FROM existing)),
       spent AS (SELECT lease, sum(cost) AS total FROM input GROUP BY lease),
       lease AS (
         UPDATE reservations res SET amount_micros = res.amount_micros - spent.total
           FROM spent WHERE res.id = spent.lease AND res.status = 'open'
           RETURNING res.id, res.user_id, res.api_key_id, res.oauth_client_id, res.markup_percent, spent.total),
       calls AS (
         INSERT INTO reservations (id, request_id, user_id, api_key_id, oauth_client_id, amount_micros, input_estimate_micros,
                                   status, settled_micros, reason, expires_at, settled_at, lease_id, markup_percent)
         SELECT input.id, input.request, lease.user_id, lease.api_key_id, lease.oauth_client_id, input.hold, 0,
                CASE WHEN input.cost > 0 THEN 'settled' ELSE 'released' END, input.cost, input.reason, now(), now(), input.lease,
                lease.markup_percent
           FROM input JOIN lease ON lease.id = input.lease
         RETURNING id, user_id, settled_micros),
       agg AS (SELECT user_id, sum(total) AS held, sum(total) AS settled FROM lease GROUP BY user_id),
       ${debitCtes('calls')}
       SELECT id, settled_micros, (SELECT count(*) FROM b) AS balances, (SELECT count(*) FROM l) AS entries FROM calls
       UNION ALL SELECT id, settled_micros, 0, 0 FROM existing`,
      [
        pgArray(items.map((i) => i.leaseId)),
        pgArray(items.map((i) => i.id)),
        pgArray(items.map((i) => i.requestId)),
        pgArray(items.map((i) => i.holdMicros)),
        pgArray(items.map((i) => i.costMicros)),
        pgArray(items.map((i) => i.reason)),
      ],
    );
    return new Map(rows.map((row) => [String(row.id), num(row.settled_micros)]));
  }

  /**
   * Settles one call at exactly `costMicros` (sy_settle_exact, money-functions.ts): more than it held as far as the
   * account's free balance, the key's limits and the app's caps allow (the rest is recorded as the operator's loss),
   * as a row of its own when it drew on a lease that can no longer take it. Returns what the call was charged; a
   * retry returns the same.
   */
  async settleExact(input: ExactSettlement): Promise<number> {
    const rows = await this.dataSource.query<{ charged: unknown }[]>(
      'SELECT charged FROM sy_settle_exact($1, $2, $3, $4, $5, $6, $7, $8)',
      [
        input.id,
        input.userId,
        input.apiKeyId,
        input.oauthClientId,
        input.requestId,
        input.leaseId,
        Math.max(0, Math.round(input.costMicros)),
        input.reason,
      ],
    );
    return num(rows[0]?.charged);
  }

  /** Pushes back the expiry of reservations whose calls are still running on this instance. */
  async extend(ids: string[], ttlSeconds: number): Promise<void> {
    if (ids.length)
      await this.dataSource.query(
        `UPDATE reservations SET expires_at = now() + make_interval(secs => $2) WHERE id = ANY($1::uuid[]) AND status = 'open'`,
        [ids, ttlSeconds],
      );
  }

  /** Reservations held right now, on every instance (the metrics' gauge). */
  async countOpen(): Promise<number> {
    const [row] = await this.dataSource.query<{ n: number }[]>(
      `SELECT count(*)::int AS n FROM reservations WHERE status = 'open'`,
    );
    return Number(row.n);
  }

  /** Open reservations past their expiry (their instance died): id and what was recorded at reservation. */
  async expired(limit: number): Promise<{ id: string; inputEstimateMicros: number }[]> {
    const rows: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT id, input_estimate_micros FROM reservations WHERE status = 'open' AND expires_at < now() ORDER BY expires_at LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({ id: String(row.id), inputEstimateMicros: num(row.input_estimate_micros) }));
  }

  /** What happened to the money of these calls (by call id), read only among the user's own reservations. */
  async trace(
    userId: string,
    callIds: string[],
  ): Promise<
    Map<
      string,
      {
        reserved: number;
        settled: number | null;
        status: string;
        reason: string | null;
        markupPercent: number;
        sponsorMicros: number;
      }
    >
  > {
    const rows: Record<string, unknown>[] = callIds.length
      ? await this.dataSource.query(
          'SELECT id, amount_micros, settled_micros, status, reason, markup_percent, sponsor_micros FROM reservations WHERE user_id = $1 AND id = ANY($2::uuid[])',
          [userId, callIds],
        )
      : [];
    return new Map(
      rows.map((row) => [
        String(row.id),
        {
          reserved: num(row.amount_micros),
          settled: row.settled_micros === null ? null : num(row.settled_micros),
          status: String(row.status),
          reason: (row.reason as string) ?? null,
          markupPercent: num(row.markup_percent),
          sponsorMicros: num(row.sponsor_micros),
        },
      ]),
    );
  }

  /**
   * A key's limit, or an app's cap for this user, and what its window spent (sy_spend: settled plus held), for the
   * refusal that names it (spend-limit-refusal.ts). Read only when a call was refused.
   */
  async limitFigures(
    scope: SpendLimitScope,
    limit: SpendLimitName,
    call: { userId: string; apiKeyId: string | null; oauthClientId: string | null },
  ): Promise<LimitFigures> {
    const column = LIMIT_COLUMN[limit];
    const rows: Array<Record<string, string | null>> =
      scope === 'key'
        ? await this.dataSource.query(
            `SELECT k.${column} AS cap, s.* FROM api_keys k, sy_spend(k.id, NULL, NULL) s WHERE k.id = $1 AND k.user_id = $2`,
            [call.apiKeyId, call.userId],
          )
        : await this.dataSource.query(
            `SELECT c.${column} AS cap, s.* FROM oauth_consents c JOIN oauth_clients o ON o.id = c.client_pk,
                    sy_spend(NULL, c.user_id, o.client_id) s
              WHERE c.user_id = $1 AND o.client_id = $2`,
            [call.userId, call.oauthClientId],
          );
    const row = rows[0];
    return {
      limitMicros: num(row?.cap),
      spentMicros: row && limit !== 'per_request' ? num(row[limit]) : 0,
    };
  }
}

/** The column of each limit on api_keys and oauth_consents. */
const LIMIT_COLUMN: Record<SpendLimitName, string> = {
  total: 'limit_total_micros',
  daily: 'limit_daily_micros',
  weekly: 'limit_weekly_micros',
  monthly: 'limit_monthly_micros',
  per_request: 'limit_per_request_micros',
};
