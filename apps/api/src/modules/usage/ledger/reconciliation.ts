import { Injectable } from '@nestjs/common';
import type { DataSource } from 'typeorm';
import { earningsDrifts, type MoneyDay } from './earnings-reconciliation';
import { ReconciliationRepository } from './reconciliation.repository';
import { type SponsorBooks, sponsorDrifts } from './sponsor-reconciliation';

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

/** One refund or dispute the user's balance could not cover in full: the rest is the operator's loss. */
export interface RefundLoss {
  userId: string;
  refundId: string;
  kind: string;
  lost: number;
  clawed: number;
}

export interface ReconcileReport {
  drifts: Drift[];
  usersChecked: number;
  callsChecked: number;
  /** Calls settled by the expiry sweeper whose instance died before it could write their usage record. */
  lostRecords: number;
  /** The operator's losses: how many calls, how much in all, and the largest (at most 20). */
  losses: { calls: number; micros: number; largest: OperatorLoss[] };
  /**
   * Refunds and disputes that took more than the balance held (payment_refunds.lost_micros): how many, how much in
   * all, what claw-backs of makers' earnings recovered of it, and the largest (at most 20).
   */
  refundLosses: { refunds: number; micros: number; clawed: number; largest: RefundLoss[] };
  /** Per UTC day: what users paid = provider cost + makers' earnings + operator's fees (earnings-reconciliation.ts). */
  days: MoneyDay[];
  /** Each sponsor pool's books: funded = drawn + left + taken back (sponsor-reconciliation.ts). */
  sponsorPools: SponsorBooks[];
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
 * - `loss_charge`: an operator loss whose call was not charged what the loss says it was (or is not settled);
 * - the earnings' checks (earnings-reconciliation.ts): every charged call through a marked-up app has its earnings
 *   row and none without a charge, each split exactly, moves matching the ledger, and each day adding up;
 * - the sponsor pools' checks (sponsor-reconciliation.ts): each pool's funded = drawn + left + taken back, each
 *   figure matching the ledger, its calls and its allowances.
 * Balance checks cover all time; per-call checks the calls made since `since`. The operator's losses (calls charged
 * less than their cost, within the caps: operator_losses) are reported apart: not a drift, the books account for
 * them, but CI fails on any in the money suites; so are refunds and disputes that took more than the balance held
 * (payment_refunds.lost_micros, docs/payments.md).
 */
@Injectable()
export class ReconciliationService {
  constructor(private readonly repository: ReconciliationRepository) {}

  /** Over a data source opened outside Nest (the admin CLI's reconcile). */
  static over(dataSource: DataSource): ReconciliationService {
    return new ReconciliationService(new ReconciliationRepository(dataSource));
  }

  async reconcile(since: Date | null = null, userId: string | null = null): Promise<ReconcileReport> {
    const drifts: Drift[] = [];
    const balances: Record<string, unknown>[] = await this.repository.balances(userId);
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

    const calls: Record<string, unknown>[] = await this.repository.settledCalls(since, userId);
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

    const unsettled: Record<string, unknown>[] = await this.repository.unsettledRecords(since, userId);
    for (const row of unsettled)
      drifts.push({
        userId: String(row.user_id),
        kind: 'record_unsettled',
        callId: String(row.call_id),
        expected: 0,
        actual: n(row.cost_micros),
      });

    const losses: Record<string, unknown>[] = await this.repository.losses(since, userId);
    for (const loss of losses)
      if (!loss.status || loss.status === 'open' || n(loss.settled_micros) !== n(loss.charged_micros))
        drifts.push({
          userId: String(loss.user_id),
          kind: 'loss_charge',
          callId: String(loss.call_id),
          expected: n(loss.charged_micros),
          actual: n(loss.settled_micros),
        });

    const refundLosses: Record<string, unknown>[] = await this.repository.refundLosses(since, userId);

    const earnings = await earningsDrifts(this.repository, since, userId);
    drifts.push(...earnings.drifts);
    const sponsor = await sponsorDrifts(this.repository, userId);
    drifts.push(...sponsor.drifts);

    return {
      drifts,
      days: earnings.days,
      sponsorPools: sponsor.pools,
      usersChecked: balances.length,
      callsChecked: calls.length,
      lostRecords,
      refundLosses: {
        refunds: refundLosses.length,
        micros: refundLosses.reduce((sum, loss) => sum + n(loss.lost_micros), 0),
        clawed: refundLosses.reduce((sum, loss) => sum + n(loss.clawed_micros), 0),
        largest: refundLosses.slice(0, 20).map((loss) => ({
          userId: String(loss.user_id),
          refundId: String(loss.id),
          kind: String(loss.kind),
          lost: n(loss.lost_micros),
          clawed: n(loss.clawed_micros),
        })),
      },
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
