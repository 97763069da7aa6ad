import { AppException } from '../../../common/errors/app.exception';
import { GatewayErrorCode } from '../errors/gateway.exception';
import { retryAfterMs } from '../errors/retry-after';

export { retryAfterMs };

/**
 * A deployment's circuit breaker (docs/routing.md, "Health"), as pure functions of its state, an outcome and the
 * clock. Two halves: what every instance shares (closed, open until a time, forced open; how many times it opened in
 * a row), and what each instance counts for itself (consecutive faults, faults over a window), from which it decides
 * to open. The store (health-store.ts) keeps the shared half in Redis, or in process without REDIS_URL.
 */

export interface BreakerPolicy {
  /** Consecutive faults that open it. */
  consecutiveFaults: number;
  /** The share of faults over the window that opens it, once the window holds `minCalls` outcomes. */
  errorRate: number;
  minCalls: number;
  windowMs: number;
  /** The window is counted in buckets of this length (the oldest dropped as time goes by). */
  bucketMs: number;
  /** The first cooldown; each opening in a row doubles it, up to `maxCooldownMs`; a close starts over. */
  baseCooldownMs: number;
  maxCooldownMs: number;
  /** A provider's Retry-After is honoured within [minRetryAfterMs, maxCooldownMs]. */
  minRetryAfterMs: number;
}

export const DEFAULT_BREAKER_POLICY: BreakerPolicy = {
  consecutiveFaults: 3,
  errorRate: 0.5,
  minCalls: 10,
  windowMs: 60_000,
  bucketMs: 10_000,
  baseCooldownMs: 5_000,
  maxCooldownMs: 300_000,
  minRetryAfterMs: 1_000,
};

export type BreakerReason = 'faults' | 'error_rate' | 'rate_limited' | 'probe_failed' | 'forced';

/** The half every instance shares. Closed is also what an absent entry means. */
export interface SharedBreaker {
  state: 'closed' | 'open' | 'forced_open';
  /** Open: when its cooldown ends (epoch ms), after which one probe call may go (half-open). */
  until: number;
  /** How many times it opened in a row without closing: the next cooldown is base × 2^level. */
  level: number;
  reason: BreakerReason | null;
}

export const CLOSED: SharedBreaker = Object.freeze({ state: 'closed', until: 0, level: 0, reason: null });

/** What the balancer sees: open and forced open are skipped, half-open admits a single probe. */
export type BreakerPhase = 'closed' | 'open' | 'half_open' | 'forced_open';

export function phaseOf(shared: SharedBreaker, now: number): BreakerPhase {
  if (shared.state === 'closed' || shared.state === 'forced_open') return shared.state;
  return now >= shared.until ? 'half_open' : 'open';
}

/** One instance's own counts. */
export interface LocalCounts {
  consecutive: number;
  /** Outcomes per bucket, oldest first: `start` is the bucket's start (epoch ms). */
  buckets: { start: number; calls: number; faults: number }[];
}

export const NO_COUNTS: LocalCounts = Object.freeze({ consecutive: 0, buckets: [] as LocalCounts['buckets'] });

/**
 * What an attempt on a deployment told about its health:
 * - `success`: it answered (2xx, or the caller's own 4xx: the deployment is up and said no to the request);
 * - `fault`: unreachable, timed out, 5xx, 408, or refusing the gateway's own key;
 * - `rate_limited`: 429, with the provider's Retry-After when it sent one: a cooldown, not a fault;
 * - `neutral`: nothing learned (the caller left before an answer, the gateway itself failed).
 * `probe`: the attempt was the single probe of a half-open breaker (only its outcome closes or reopens it).
 */
export interface Outcome {
  kind: 'success' | 'fault' | 'rate_limited' | 'neutral';
  retryAfterMs?: number | null;
  probe?: boolean;
}

export function cooldownMs(level: number, policy: BreakerPolicy = DEFAULT_BREAKER_POLICY): number {
  return Math.min(policy.baseCooldownMs * 2 ** Math.min(level, 30), policy.maxCooldownMs);
}

/**
 * The breaker after one outcome. `shared` is returned unchanged (the same object) when the outcome changes nothing
 * every instance must know, so the store writes only transitions.
 */
export function afterOutcome(
  shared: SharedBreaker,
  local: LocalCounts,
  outcome: Outcome,
  now: number,
  policy: BreakerPolicy = DEFAULT_BREAKER_POLICY,
): { shared: SharedBreaker; local: LocalCounts } {
  const phase = phaseOf(shared, now);
  if (phase === 'forced_open') return { shared, local };
  const open = (
    reason: BreakerReason,
    waitMs: number,
    level: number,
  ): { shared: SharedBreaker; local: LocalCounts } => ({
    // A later cooldown already set (a Retry-After) is never shortened.
    shared: { state: 'open', until: Math.max(now + waitMs, shared.state === 'open' ? shared.until : 0), level, reason },
    local: NO_COUNTS,
  });
  switch (outcome.kind) {
    case 'neutral':
      return { shared, local };
    case 'rate_limited': {
      if (outcome.retryAfterMs !== undefined && outcome.retryAfterMs !== null) {
        const wait = Math.min(Math.max(outcome.retryAfterMs, policy.minRetryAfterMs), policy.maxCooldownMs);
        return open('rate_limited', wait, shared.level);
      }
      return open('rate_limited', cooldownMs(shared.level, policy), shared.level + 1);
    }
    case 'success': {
      const counted = count(local, now, false, policy);
      if (phase === 'half_open' && outcome.probe) return { shared: CLOSED, local: NO_COUNTS };
      return { shared, local: counted };
    }
    case 'fault': {
      if (phase === 'half_open' && outcome.probe)
        return open('probe_failed', cooldownMs(shared.level, policy), shared.level + 1);
      const counted = count(local, now, true, policy);
      if (phase !== 'closed') return { shared, local: counted };
      if (counted.consecutive >= policy.consecutiveFaults)
        return open('faults', cooldownMs(shared.level, policy), shared.level + 1);
      const { calls, faults } = windowTotals(counted);
      if (calls >= policy.minCalls && faults / calls >= policy.errorRate)
        return open('error_rate', cooldownMs(shared.level, policy), shared.level + 1);
      return { shared, local: counted };
    }
  }
}

/** The state an operator forces (`npm run admin -- breakers open|close`): forced open stays until closed. */
export function forced(shared: SharedBreaker, state: 'open' | 'closed'): SharedBreaker {
  return state === 'closed' ? CLOSED : { state: 'forced_open', until: 0, level: shared.level, reason: 'forced' };
}

function count(local: LocalCounts, now: number, fault: boolean, policy: BreakerPolicy): LocalCounts {
  const start = now - (now % policy.bucketMs);
  const buckets = local.buckets.filter((bucket) => bucket.start > now - policy.windowMs);
  const last = buckets[buckets.length - 1];
  if (last && last.start === start)
    buckets[buckets.length - 1] = { start, calls: last.calls + 1, faults: last.faults + (fault ? 1 : 0) };
  else buckets.push({ start, calls: 1, faults: fault ? 1 : 0 });
  return { consecutive: fault ? local.consecutive + 1 : 0, buckets };
}

function windowTotals(local: LocalCounts): { calls: number; faults: number } {
  let calls = 0;
  let faults = 0;
  for (const bucket of local.buckets) {
    calls += bucket.calls;
    faults += bucket.faults;
  }
  return { calls, faults };
}

const FAULT_CODES = new Set<string>([GatewayErrorCode.UPSTREAM_ERROR, GatewayErrorCode.UPSTREAM_TIMEOUT]);

/**
 * The outcome of an attempt that failed with `error` (null: it succeeded). Only the provider's failures are faults
 * of the deployment; a caller's 4xx other than 408 and 429 is the caller's, and means the deployment answered.
 * Errors that are not the gateway's typed ones (the caller left, a bug) teach nothing.
 */
export function outcomeOf(error: unknown, now: number, probe = false): Outcome {
  if (error === null || error === undefined) return { kind: 'success', probe };
  if (!(error instanceof AppException)) return { kind: 'neutral', probe };
  if (error.code === String(GatewayErrorCode.UPSTREAM_RATE_LIMITED))
    return { kind: 'rate_limited', retryAfterMs: retryAfterMs(error.options.headers, now), probe };
  if (FAULT_CODES.has(error.code) || error.status === 408) return { kind: 'fault', probe };
  if (error.status >= 400 && error.status < 500) return { kind: 'success', probe };
  return { kind: 'neutral', probe };
}
