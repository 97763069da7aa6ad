import type { Drift } from './reconciliation';
import type { ReconciliationRepository } from './reconciliation.repository';

/** One UTC day of the books: what users paid, split into the provider's cost, makers' earnings and fees (µ). */
export interface MoneyDay {
  day: string;
  paid: number;
  provider: number;
  earnings: number;
  fees: number;
}

const n = (value: unknown) => Number(value ?? 0);

/**
 * The earnings' side of reconciliation (docs/earnings.md):
 * - `earnings_missing`: a call through a marked-up app was charged and no earnings row was written for it;
 * - `earnings_unsettled`: an earnings row whose call was not settled (no earnings without a charge);
 * - `earnings_paid`: the row's "user paid" differs from what the call was charged;
 * - `earnings_split`: the row's provider cost is not ⌊paid × 100 / (100 + markup)⌋ (markupSplit);
 * - `earnings_moved`: what a maker's rows say was moved differs from the ledger's `earnings` credits plus the
 *   payouts made of them;
 * - `day_split`: on a day, what users paid ≠ provider cost + earnings + fees.
 */
export async function earningsDrifts(
  repository: ReconciliationRepository,
  since: Date | null,
  userId: string | null,
): Promise<{ drifts: Drift[]; days: MoneyDay[] }> {
  const drifts: Drift[] = [];
  for (const call of await repository.earningsCalls(since, userId)) {
    const base = { userId: String(call.user_id), callId: String(call.id) };
    const charged = call.status === 'settled' ? n(call.settled_micros) : 0;
    if (!call.earned) {
      drifts.push({ ...base, kind: 'earnings_missing', expected: charged, actual: 0 });
      continue;
    }
    if (call.status !== 'settled')
      drifts.push({ ...base, kind: 'earnings_unsettled', expected: 0, actual: n(call.paid_micros) });
    else if (n(call.paid_micros) !== charged)
      drifts.push({ ...base, kind: 'earnings_paid', expected: charged, actual: n(call.paid_micros) });
    const provider = Number((BigInt(n(call.paid_micros)) * 100n) / BigInt(100 + n(call.markup_percent)));
    if (n(call.provider_micros) !== provider)
      drifts.push({ ...base, kind: 'earnings_split', expected: provider, actual: n(call.provider_micros) });
  }
  for (const maker of await repository.earningsMoved(userId))
    if (n(maker.moved) !== n(maker.credited))
      drifts.push({
        userId: String(maker.user_id),
        kind: 'earnings_moved',
        callId: null,
        expected: n(maker.moved),
        actual: n(maker.credited),
      });
  const days = (await repository.days(since, userId)).map((row) => ({
    day: String(row.day),
    paid: n(row.paid),
    provider: n(row.provider),
    earnings: n(row.earnings),
    fees: n(row.fees),
  }));
  for (const day of days)
    if (day.paid !== day.provider + day.earnings + day.fees)
      drifts.push({
        userId: '',
        kind: 'day_split',
        callId: day.day,
        expected: day.paid,
        actual: day.provider + day.earnings + day.fees,
      });
  return { drifts, days };
}
