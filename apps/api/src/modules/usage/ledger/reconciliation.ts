import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';

/** One disagreement between the ledger, the balances, the reservations and the usage records. */
export interface Drift {
  userId: string;
  /** What disagrees (see ReconciliationService). */
  kind: string;
  /** The call concerned, for per-call drifts. */
  callId: string | null;
  /** What each side says, in micro-units. */
  expected: number;
  actual: number;
}

/** One call charged less than its cost (operator_losses): the provider billed more than its caps let the caller pay. */
export interface OperatorLoss {
  userId: string;
  callId: string;
  lost: number;
  /** The cap that bound the charge: 'account', a key's 'total' … 'per_request', an app's 'app_…'. */
  bound: string;
}

export interface ReconcileReport {
  drifts: Drift[];
  usersChecked: number;
  callsChecked: number;
  /** Calls settled by the expiry sweeper whose instance died before it could write their usage record. */
  lostRecords: number;
  /** The operator's losses: how many calls, how much in all, and the largest (at most 20). */
  losses: { calls: number; micros: number; largest: OperatorLoss[] };
}

const n = (value: unknown) => Number(value ?? 0);

/**
 * Compares, per user, what the money tables say of each other (`npm run admin -- reconcile`, run by CI after the
 * money suites; docs/budgets.md, "Reconciliation"):
 * - `balance_credits` / `balance_debits`: the balance row against the sum of the user's ledger credits and debits;
 * - `balance_reserved`: the amount the balance holds against what the user's open reservations hold;
 * - `call_ledger`: each settled call's charge against its ledger debit (none when it was charged 0);
 * - `call_record`: each settled call's charge against its usage record's cost (a call settled by the expiry
 *   sweeper may have no record: its instance died; counted in `lostRecords`, not a drift);
 * - `record_unsettled`: a usage record with a cost whose call has no settled reservation;
 * - `loss_charge`: an operator loss whose call was not charged what the loss says it was (or is not settled).
 * Balance checks cover all time; per-call checks the calls made since `since`. The operator's losses (calls charged
 * less than their cost, within the caps: operator_losses) are reported apart: not a drift, the books account for
 * them, but CI fails on any in the money suites.
 */
@Injectable()
export class ReconciliationService {
  constructor(@InjectDataSource() private readonly dataSource: DataSource) {}

  async reconcile(since: Date | null = null, userId: string | null = null): Promise<ReconcileReport> {
    const drifts: Drift[] = [];
    const balances: Record<string, unknown>[] = await this.dataSource.query(
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
    for (const row of balances) {
      const user = String(row.user_id);
      const check = (kind: string, expected: unknown, actual: unknown) => {
        if (n(expected) !== n(actual))
          drifts.push({ userId: user, kind, callId: null, expected: n(expected), actual: n(actual) });
      };
      check('balance_credits', row.credits, row.credits_micros);
      check('balance_debits', row.debits, row.debits_micros);
      check('balance_reserved', row.open_reserved, row.reserved_micros);
    }

    // Each call settled since `since` (leases are holds, not calls), with its ledger debit and usage record. Older
    // ledger debits were keyed by the call's request id (before call ids).
    const calls: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT r.id, r.user_id, r.settled_micros, r.reason, l.debit, u.cost, u.records
         FROM reservations r
         LEFT JOIN LATERAL (SELECT -sum(amount_micros) AS debit FROM ledger_entries
                             WHERE idempotency_key = 'usage:' || r.id::text OR (r.request_id IS NOT NULL AND idempotency_key = 'usage:' || r.request_id)) l ON true
         LEFT JOIN LATERAL (SELECT sum(cost_micros) AS cost, count(*) AS records FROM usage_records
                             WHERE call_id = r.id AND started_at >= r.created_at - interval '1 day') u ON true
        WHERE NOT r.lease AND r.status <> 'open' AND ($1::timestamptz IS NULL OR r.created_at >= $1) AND ($2::uuid IS NULL OR r.user_id = $2)`,
      [since, userId],
    );
    let lostRecords = 0;
    for (const call of calls) {
      const base = { userId: String(call.user_id), callId: String(call.id) };
      const charged = n(call.settled_micros);
      if (n(call.debit) !== charged)
        drifts.push({ ...base, kind: 'call_ledger', expected: charged, actual: n(call.debit) });
      if (!n(call.records)) {
        if (call.reason === 'expired') lostRecords += 1;
        else if (call.reason !== 'refused') drifts.push({ ...base, kind: 'call_record', expected: charged, actual: 0 });
      } else if (n(call.cost) !== charged)
        drifts.push({ ...base, kind: 'call_record', expected: charged, actual: n(call.cost) });
    }

    const unsettled: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT u.call_id, u.user_id, u.cost_micros FROM usage_records u
        WHERE u.cost_micros > 0 AND ($1::timestamptz IS NULL OR u.started_at >= $1) AND ($2::uuid IS NULL OR u.user_id = $2)
          AND NOT EXISTS (SELECT 1 FROM reservations r WHERE r.id = u.call_id AND r.status <> 'open')`,
      [since, userId],
    );
    for (const row of unsettled)
      drifts.push({
        userId: String(row.user_id),
        kind: 'record_unsettled',
        callId: String(row.call_id),
        expected: 0,
        actual: n(row.cost_micros),
      });

    const losses: Record<string, unknown>[] = await this.dataSource.query(
      `SELECT o.call_id, o.user_id, o.charged_micros, o.lost_micros, o.bound, r.status, r.settled_micros
         FROM operator_losses o LEFT JOIN reservations r ON r.id = o.call_id
        WHERE ($1::timestamptz IS NULL OR o.created_at >= $1) AND ($2::uuid IS NULL OR o.user_id = $2)
        ORDER BY o.lost_micros DESC`,
      [since, userId],
    );
    for (const loss of losses)
      if (!loss.status || loss.status === 'open' || n(loss.settled_micros) !== n(loss.charged_micros))
        drifts.push({
          userId: String(loss.user_id),
          kind: 'loss_charge',
          callId: String(loss.call_id),
          expected: n(loss.charged_micros),
          actual: n(loss.settled_micros),
        });

    return {
      drifts,
      usersChecked: balances.length,
      callsChecked: calls.length,
      lostRecords,
      losses: {
        calls: losses.length,
        micros: losses.reduce((sum, loss) => sum + n(loss.lost_micros), 0),
        largest: losses.slice(0, 20).map((loss) => ({
          userId: String(loss.user_id),
          callId: String(loss.call_id),
          lost: n(loss.lost_micros),
          bound: String(loss.bound),
        })),
      },
    };
  }
}
