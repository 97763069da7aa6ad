import { worthFallingBack } from '../errors/upstream-errors';
import type { Candidate } from './balancer';

/** Attempts a call may make after its first (docs/routing.md, "Retries"): at most 3 upstream attempts per call. */
export const DEFAULT_RETRY_BUDGET = 2;

/** Where a call stands when an attempt failed. */
export interface AttemptState {
  /** A byte of the answer reached the caller (its status line, a stream's first frame): no retry can be invisible. */
  firstByteSent: boolean;
  /** The caller left, or the shutdown cut the call. */
  aborted: boolean;
}

/**
 * One call's attempts over its candidates (and, once they are spent, its fallback models' candidates): a retry
 * happens only before the first byte reached the caller, only on a provider's failure (unreachable, timed out, 5xx,
 * 429, its own key refused: providers/upstream-errors.ts worthFallingBack), within the call's retry budget, and
 * never twice on the same deployment in one call.
 */
export class CallAttempts {
  private readonly tried = new Set<string>();
  private made = 0;

  constructor(private readonly budget: number = DEFAULT_RETRY_BUDGET) {}

  /** Attempts made so far. */
  get attempts(): number {
    return this.made;
  }

  /** The deployments tried so far, in order. */
  get deployments(): string[] {
    return [...this.tried];
  }

  /** The next candidate not tried yet in this call, or null when none is left or the budget is spent. */
  next(candidates: Candidate[]): Candidate | null {
    if (this.made > this.budget) return null;
    return candidates.find((c) => !this.tried.has(c.deployment.key)) ?? null;
  }

  /** An attempt on the candidate begins: it counts against the budget and is never tried again in this call. */
  begin(candidate: Candidate): void {
    this.tried.add(candidate.deployment.key);
    this.made += 1;
  }

  /** A candidate left without an attempt (its probe was taken by another call): not tried in this call. */
  skip(candidate: Candidate): void {
    this.tried.add(candidate.deployment.key);
  }

  /** Whether the call may try again after `error`. */
  mayRetry(error: unknown, state: AttemptState): boolean {
    return !state.firstByteSent && !state.aborted && this.made <= this.budget && worthFallingBack(error);
  }
}
