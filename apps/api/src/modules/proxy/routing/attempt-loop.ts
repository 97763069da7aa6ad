import type { Deployment } from '../catalog/catalog.types';
import type { Candidate } from './balancer';
import type { AttemptState, CallAttempts } from './retry-policy';
import type { RoutedAttempt } from './router';

/** What the loop needs of the dispatch: one upstream attempt, and the routing bookkeeping around it. */
export interface AttemptHooks<T> {
  /** An attempt may begin (null: it was a half-open breaker's probe that another call took: skip it). */
  begin(candidate: Candidate): Promise<RoutedAttempt | null>;
  /** The upstream attempt itself; `routed` is for its first byte (RoutingService.firstByte). */
  send(candidate: Candidate, routed: RoutedAttempt): Promise<T>;
  /** The attempt ended, answered (error null) or failed; never throws. */
  end(routed: RoutedAttempt, error: unknown): Promise<void>;
  /** Where the call stands after a failed attempt (a byte sent to the caller, the caller gone). */
  state(): AttemptState;
}

export type LoopResult<T> =
  | { answered: true; value: T; deployment: Deployment }
  /** `error`: the last attempt's failure, or null when no attempt was made (every candidate's probe was taken). */
  | { answered: false; error: unknown; retry: boolean };

/**
 * One call's attempts over one model's candidates, best first (docs/routing.md, "Retries"): the first that answers
 * serves the call; after a failure the next is tried only while `attempts` allows it (before the first byte, a
 * provider's failure, within the budget, never the same deployment twice). `retry` in a failed result says whether
 * the call may still go on to a fallback model.
 */
export async function tryCandidates<T>(
  candidates: Candidate[],
  attempts: CallAttempts,
  hooks: AttemptHooks<T>,
): Promise<LoopResult<T>> {
  let last: unknown = null;
  for (;;) {
    const candidate = attempts.next(candidates);
    if (!candidate)
      return { answered: false, error: last, retry: last === null || attempts.mayRetry(last, hooks.state()) };
    const routed = await hooks.begin(candidate);
    if (!routed) {
      attempts.skip(candidate);
      continue;
    }
    attempts.begin(candidate);
    try {
      const value = await hooks.send(candidate, routed);
      await hooks.end(routed, null);
      return { answered: true, value, deployment: candidate.deployment };
    } catch (error) {
      await hooks.end(routed, error);
      last = error;
      if (!attempts.mayRetry(error, hooks.state())) return { answered: false, error, retry: false };
    }
  }
}
