import type { ReserveInput } from './reservations.repository';

/** What a caller asks to hold: `id` is the call's own id (random, the server's), the reservation's key. */
export type ReservationRequest = Omit<ReserveInput, 'ttlSeconds' | 'lease'>;

export interface Reservation {
  /** The call's id. */
  id: string;
  amountMicros: number;
  /** Who the call was for (settleExact writes a row of its own when the call drew on a lease). */
  request: ReservationRequest;
  /** Credits − debits when it was made: the usage summary's remaining figure (for a refusal's remainingBudget). */
  balanceMicros?: number;
  /** Another hold this large would not fit beside it: the call settles before its answer ends (settleNow). */
  tight?: boolean;
  /** Set when the call drew on this instance's lease instead of reserving in the database. */
  lease?: LeaseDraw;
}

/**
 * A reservation this instance holds for many calls of one credential (user + key or app), drawn on in memory
 * so that a busy credential's calls need no database round trip before they are forwarded (Leases; docs/budgets.md).
 */
export interface Lease {
  id: string;
  takenAt: number;
  key: string;
  /** What calls may still draw: the lease's amount minus what calls hold now and what they were billed. */
  freeMicros: number;
  /** What the lease held when it was granted. */
  sizeMicros: number;
  inFlight: number;
  /** Settlements queued and not yet written: the lease is returned only once they are. */
  unwritten: number;
  lastUsedAt: number;
}

/** One call's draw on a lease; `settled` once its cost went back to the lease (it is then written in a batch). */
export interface LeaseDraw {
  lease: Lease;
  settled: boolean;
}

/** Seconds a reservation lives without a heartbeat; calls still running here extend theirs every minute. */
export const RESERVATION_TTL_SECONDS = 300;

/**
 * Leases are per credential: the user with the key, or with the app, the call came with; and per markup rate, so a
 * call drawn on a lease is settled at the rate it was priced at (the lease's row keeps it).
 */
export function leaseKey(request: ReservationRequest): string {
  return `${request.userId}|${request.apiKeyId ?? ''}|${request.oauthClientId ?? ''}|${request.markupPercent ?? 0}`;
}
