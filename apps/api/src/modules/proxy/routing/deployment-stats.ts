import { LATENCY_BUCKETS } from '../../../common/metrics/call-totals';
import type { Outcome } from './breaker';

/** A deployment's load as the balancer reads it (docs/routing.md, "Balancing"). */
export interface DeploymentLoad {
  /** Attempts sent and not ended, on this instance. */
  inFlight: number;
  /** Moving average of the time to the provider's first byte (ms); null before the first answer. */
  ttfbMs: number | null;
  /** Moving average of output tokens per second, from the attempt's start to its end; null before the first. */
  tokensPerSecond: number | null;
  /** This minute's requests and tokens (every instance's, once shared through Redis), against its rpm and tpm. */
  requestsThisMinute: number;
  tokensThisMinute: number;
  /** How long the oldest attempt in flight has waited for its first byte (0: none waiting). */
  oldestWaitMs: number;
}

export const IDLE: DeploymentLoad = Object.freeze({
  inFlight: 0,
  ttfbMs: null,
  tokensPerSecond: null,
  requestsThisMinute: 0,
  tokensThisMinute: 0,
  oldestWaitMs: 0,
});

/** One attempt on one deployment, from `start` to `end`. */
export interface Attempt {
  readonly key: string;
  readonly startedAt: number;
  firstByteAt: number | null;
  ended: boolean;
}

/** Running totals per deployment for the metrics (routing-metrics.ts), read when scraped. */
export interface DeploymentTotals {
  attempts: Record<Outcome['kind'], number>;
  /** Times to first byte per bucket of LATENCY_BUCKETS (not cumulative; the last is +Inf), their sum in seconds. */
  ttfbBuckets: number[];
  ttfbSeconds: number;
}

interface Minute {
  minute: number;
  requests: number;
  tokens: number;
  /** What was already added to the shared count, and the shared count last read (both this minute). */
  pushedRequests: number;
  pushedTokens: number;
  sharedRequests: number;
  sharedTokens: number;
}

interface State {
  inFlight: number;
  waiting: Set<Attempt>;
  ttfbMs: number | null;
  tokensPerSecond: number | null;
  minute: Minute;
  totals: DeploymentTotals;
}

const MINUTE_MS = 60_000;
/** Weight of the newest sample in the moving averages. */
const ALPHA = 0.3;

/**
 * The live stats of every deployment on this instance: calls in flight, moving averages of time to first byte and of
 * throughput, this minute's requests and tokens (shared with the other instances through `pending` / `shared` when
 * a Redis store syncs them), and totals for the metrics. Synchronous and in memory: read on every call.
 */
export class DeploymentStats {
  private readonly states = new Map<string, State>();

  constructor(private readonly now: () => number = Date.now) {}

  /** An attempt begins: counted in flight and in this minute's requests. */
  start(key: string): Attempt {
    const state = this.state(key);
    const attempt: Attempt = { key, startedAt: this.now(), firstByteAt: null, ended: false };
    state.inFlight += 1;
    state.waiting.add(attempt);
    this.minute(state).requests += 1;
    return attempt;
  }

  /** The provider's first byte (its status line): a time-to-first-byte sample. */
  firstByte(attempt: Attempt): void {
    if (attempt.ended || attempt.firstByteAt !== null) return;
    const state = this.state(attempt.key);
    attempt.firstByteAt = this.now();
    state.waiting.delete(attempt);
    const ms = attempt.firstByteAt - attempt.startedAt;
    state.ttfbMs = average(state.ttfbMs, ms);
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && ms / 1000 > LATENCY_BUCKETS[bucket]) bucket += 1;
    state.totals.ttfbBuckets[bucket] += 1;
    state.totals.ttfbSeconds += ms / 1000;
  }

  /** The attempt ended (once; later calls are ignored): its tokens count in this minute's. */
  end(attempt: Attempt, outcome: Outcome['kind'], usage: { tokens?: number; outputTokens?: number } = {}): void {
    if (attempt.ended) return;
    attempt.ended = true;
    const state = this.state(attempt.key);
    state.inFlight -= 1;
    state.waiting.delete(attempt);
    state.totals.attempts[outcome] += 1;
    const tokens = usage.tokens ?? 0;
    if (tokens > 0) this.minute(state).tokens += tokens;
    const seconds = (this.now() - attempt.startedAt) / 1000;
    if (outcome === 'success' && (usage.outputTokens ?? 0) > 0 && seconds > 0)
      state.tokensPerSecond = average(state.tokensPerSecond, usage.outputTokens! / seconds);
  }

  load(key: string): DeploymentLoad {
    const state = this.states.get(key);
    if (!state) return IDLE;
    const now = this.now();
    const minute = this.minute(state);
    let oldest = now;
    for (const attempt of state.waiting) oldest = Math.min(oldest, attempt.startedAt);
    return {
      inFlight: state.inFlight,
      ttfbMs: state.ttfbMs,
      tokensPerSecond: state.tokensPerSecond,
      requestsThisMinute: minute.sharedRequests + minute.requests - minute.pushedRequests,
      tokensThisMinute: minute.sharedTokens + minute.tokens - minute.pushedTokens,
      oldestWaitMs: now - oldest,
    };
  }

  /**
   * This minute's counts not yet added to the shared ones, per deployment (for the Redis store to add), including
   * every deployment in `limited` (those with an rpm or tpm), so the other instances' counts are read for them too.
   */
  pending(limited: Iterable<string> = []): { key: string; minute: number; requests: number; tokens: number }[] {
    for (const key of limited) this.state(key);
    const pending: { key: string; minute: number; requests: number; tokens: number }[] = [];
    for (const [key, state] of this.states) {
      const minute = this.minute(state);
      pending.push({
        key,
        minute: minute.minute,
        requests: minute.requests - minute.pushedRequests,
        tokens: minute.tokens - minute.pushedTokens,
      });
    }
    return pending;
  }

  /** The shared counts after adding `added` (what `pending` gave): every instance's requests and tokens this minute. */
  shared(
    key: string,
    minute: number,
    added: { requests: number; tokens: number },
    total: { requests: number; tokens: number },
  ): void {
    const state = this.states.get(key);
    if (!state || this.minute(state).minute !== minute) return;
    const own = state.minute;
    own.pushedRequests += added.requests;
    own.pushedTokens += added.tokens;
    own.sharedRequests = Math.max(own.sharedRequests, total.requests);
    own.sharedTokens = Math.max(own.sharedTokens, total.tokens);
  }

  /** Every deployment seen so far, with its totals (metrics). */
  totals(): [string, DeploymentTotals][] {
    return [...this.states].map(([key, state]) => [key, state.totals]);
  }

  private state(key: string): State {
    let state = this.states.get(key);
    if (!state) {
      state = {
        inFlight: 0,
        waiting: new Set(),
        ttfbMs: null,
        tokensPerSecond: null,
        minute: emptyMinute(this.now()),
        totals: {
          attempts: { success: 0, fault: 0, rate_limited: 0, neutral: 0 },
          ttfbBuckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0),
          ttfbSeconds: 0,
        },
      };
      this.states.set(key, state);
    }
    return state;
  }

  /** The state's minute, started afresh when the clock entered a new one (fixed one-minute windows). */
  private minute(state: State): Minute {
    const minute = Math.floor(this.now() / MINUTE_MS);
    if (state.minute.minute !== minute) state.minute = emptyMinute(this.now());
    return state.minute;
  }
}

function emptyMinute(now: number): Minute {
  return {
    minute: Math.floor(now / MINUTE_MS),
    requests: 0,
    tokens: 0,
    pushedRequests: 0,
    pushedTokens: 0,
    sharedRequests: 0,
    sharedTokens: 0,
  };
}

function average(previous: number | null, sample: number): number {
  return previous === null ? sample : previous + ALPHA * (sample - previous);
}
