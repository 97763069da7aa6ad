import type { Drift } from './reconciliation';
import type { ReconciliationRepository } from './reconciliation.repository';

/** One sponsor pool's books (µ): funded = drawn + left + taken back. */
export interface SponsorBooks {
  clientId: string;
  funded: number;
  drawn: number;
  left: number;
  takenBack: number;
}

const n = (value: unknown) => Number(value ?? 0);

/**
 * The sponsor pools' side of reconciliation (docs/earnings.md, "Sponsored credits"), per pool (the drift's user is
 * the maker, its call the app's client id):
 * - `sponsor_split`: funded ≠ drawn + left + taken back (the row's check keeps it; read anyway);
 * - `sponsor_funded` / `sponsor_taken_back`: the pool's funded or taken-back figure ≠ the maker's ledger entries;
 * - `sponsor_drawn`: what the pool says was drawn ≠ the users' `sponsor` ledger entries (draws less returns);
 * - `sponsor_calls`: ≠ what its calls paid (min(charge, sponsored hold)) plus what open calls hold;
 * - `sponsor_allowances`: ≠ what its users' allowances say they drew.
 */
export async function sponsorDrifts(
  repository: ReconciliationRepository,
  userId: string | null,
): Promise<{ drifts: Drift[]; pools: SponsorBooks[] }> {
  const drifts: Drift[] = [];
  const pools: SponsorBooks[] = [];
  for (const row of await repository.sponsorPools(userId)) {
    const pool = {
      clientId: String(row.oauth_client_id),
      funded: n(row.funded_micros),
      drawn: n(row.drawn_micros),
      left: n(row.left_micros),
      takenBack: n(row.taken_back_micros),
    };
    pools.push(pool);
    const check = (kind: string, expected: number, actual: unknown) => {
      if (expected !== n(actual))
        drifts.push({ userId: String(row.maker_id), kind, callId: pool.clientId, expected, actual: n(actual) });
    };
    check('sponsor_split', pool.funded, pool.drawn + pool.left + pool.takenBack);
    check('sponsor_funded', pool.funded, row.ledger_funded);
    check('sponsor_taken_back', pool.takenBack, row.ledger_back);
    check('sponsor_drawn', pool.drawn, row.ledger_drawn);
    check('sponsor_calls', pool.drawn, row.calls_drawn);
    check('sponsor_allowances', pool.drawn, row.allowances_drawn);
  }
  return { drifts, pools };
}
