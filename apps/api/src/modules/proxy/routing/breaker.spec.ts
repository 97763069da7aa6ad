import { AppException } from '../../../common/errors/app.exception';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import { ClientGoneError } from '../upstream/upstream-client';
import {
  afterOutcome,
  CLOSED,
  cooldownMs,
  DEFAULT_BREAKER_POLICY,
  forced,
  type LocalCounts,
  NO_COUNTS,
  type Outcome,
  outcomeOf,
  phaseOf,
  retryAfterMs,
  type SharedBreaker,
} from './breaker';

/** A breaker driven through outcomes on a fake clock. */
class Driven {
  shared: SharedBreaker = CLOSED;
  local: LocalCounts = NO_COUNTS;
  now = 1_000_000;

  apply(...outcomes: Outcome[]): this {
    for (const outcome of outcomes)
      ({ shared: this.shared, local: this.local } = afterOutcome(this.shared, this.local, outcome, this.now));
    return this;
  }

  get phase() {
    return phaseOf(this.shared, this.now);
  }
}

const fault: Outcome = { kind: 'fault' };
const success: Outcome = { kind: 'success' };

describe('circuit breaker', () => {
  it('opens after three consecutive faults, for 5 s, then lets one probe through', () => {
    const b = new Driven().apply(fault, fault);
    expect(b.phase).toBe('closed');
    b.apply(fault);
    expect(b.shared).toMatchObject({ state: 'open', until: b.now + 5_000, level: 1, reason: 'faults' });
    b.now += 4_999;
    expect(b.phase).toBe('open');
    b.now += 1;
    expect(b.phase).toBe('half_open');
  });

  it('a success in between starts the count again', () => {
    const b = new Driven().apply(fault, fault, success, fault, fault);
    expect(b.phase).toBe('closed');
  });

  it('doubles its cooldown at each failed probe, up to five minutes, and starts over once a probe succeeds', () => {
    const b = new Driven().apply(fault, fault, fault);
    const cooldowns: number[] = [];
    for (let i = 0; i < 9; i += 1) {
      cooldowns.push(b.shared.until - b.now);
      b.now = b.shared.until;
      expect(b.phase).toBe('half_open');
      b.apply({ kind: 'fault', probe: true });
      expect(b.shared.reason).toBe('probe_failed');
    }
    expect(cooldowns).toEqual([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 300_000, 300_000, 300_000]);
    b.now = b.shared.until;
    b.apply({ kind: 'success', probe: true });
    expect(b.shared).toBe(CLOSED);
    b.apply(fault, fault, fault);
    expect(b.shared.until - b.now).toBe(5_000);
    expect(cooldownMs(1000)).toBe(DEFAULT_BREAKER_POLICY.maxCooldownMs);
  });

  it('only the probe’s outcome closes or reopens a half-open breaker (not a call that was already in flight)', () => {
    const b = new Driven().apply(fault, fault, fault);
    b.now = b.shared.until;
    const open = b.shared;
    b.apply(success, fault);
    expect(b.shared).toBe(open);
    expect(b.phase).toBe('half_open');
    b.apply({ kind: 'neutral', probe: true });
    expect(b.phase).toBe('half_open');
  });

  it('opens on an error rate of half or more over the window, without three faults in a row', () => {
    const b = new Driven();
    for (let i = 0; i < 5; i += 1) {
      b.apply(fault, success);
      b.now += 1_000;
    }
    expect(b.phase).toBe('closed'); // 10 outcomes, but the last was a success: decided on faults only
    b.apply(fault);
    expect(b.shared).toMatchObject({ state: 'open', reason: 'error_rate' });
  });

  it('forgets faults older than the window', () => {
    const b = new Driven();
    for (let i = 0; i < 5; i += 1) b.apply(fault, success);
    b.now += 61_000;
    b.apply(fault, success, fault, success, fault);
    // 3 faults in 5 outcomes of the current window (too few to judge); with the old ones it would be 8 in 15
    expect(b.phase).toBe('closed');
  });

  it('a 429 cools it down for Retry-After (within 1 s and 5 min) without counting as a fault', () => {
    const b = new Driven().apply(fault, fault, { kind: 'rate_limited', retryAfterMs: 7_000 });
    expect(b.shared).toMatchObject({ state: 'open', until: b.now + 7_000, level: 0, reason: 'rate_limited' });
    expect(new Driven().apply({ kind: 'rate_limited', retryAfterMs: 0 }).shared.until).toBe(1_000_000 + 1_000);
    expect(new Driven().apply({ kind: 'rate_limited', retryAfterMs: 86_400_000 }).shared.until).toBe(
      1_000_000 + 300_000,
    );
    // A later Retry-After never shortens a cooldown already set.
    const c = new Driven().apply(
      { kind: 'rate_limited', retryAfterMs: 60_000 },
      { kind: 'rate_limited', retryAfterMs: 2_000 },
    );
    expect(c.shared.until).toBe(c.now + 60_000);
  });

  it('without Retry-After, 429s back off like faults (5 s, then 10 s…)', () => {
    const b = new Driven().apply({ kind: 'rate_limited' });
    expect(b.shared.until - b.now).toBe(5_000);
    b.now = b.shared.until;
    b.apply({ kind: 'rate_limited', probe: true });
    expect(b.shared.until - b.now).toBe(10_000);
  });

  it('a forced-open breaker ignores every outcome until it is forced closed', () => {
    const b = new Driven();
    b.shared = forced(b.shared, 'open');
    b.now += 10 ** 9;
    b.apply(success, { kind: 'success', probe: true }, { kind: 'rate_limited', retryAfterMs: 1 });
    expect(b.phase).toBe('forced_open');
    expect(forced(b.shared, 'closed')).toBe(CLOSED);
  });
});

describe('outcomeOf', () => {
  const now = 1_700_000_000_000;
  it('counts the provider’s failures as faults, and the caller’s 4xx (other than 408 and 429) as an answer', () => {
    expect(outcomeOf(null, now).kind).toBe('success');
    expect(outcomeOf(new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'x'), now).kind).toBe('fault');
    expect(outcomeOf(new GatewayException(GatewayErrorCode.UPSTREAM_TIMEOUT, 'x'), now).kind).toBe('fault');
    expect(outcomeOf(new AppException('REQUEST_TIMEOUT', 408, 'x'), now).kind).toBe('fault');
    expect(outcomeOf(new AppException('INVALID_REQUEST', 400, 'bad'), now).kind).toBe('success');
    expect(outcomeOf(new AppException('CONTEXT_LENGTH_EXCEEDED', 413, 'big'), now).kind).toBe('success');
    expect(outcomeOf(new GatewayException(GatewayErrorCode.UPSTREAM_RATE_LIMITED, 'slow down'), now)).toEqual({
      kind: 'rate_limited',
      retryAfterMs: null,
      probe: false,
    });
    const limited = new GatewayException(GatewayErrorCode.UPSTREAM_RATE_LIMITED, 'slow down', {
      headers: { 'Retry-After': '12' },
    });
    expect(outcomeOf(limited, now, true)).toEqual({ kind: 'rate_limited', retryAfterMs: 12_000, probe: true });
  });

  it('learns nothing from a caller who left, or from the gateway’s own failure', () => {
    expect(outcomeOf(new ClientGoneError('gone'), now).kind).toBe('neutral');
    expect(outcomeOf(new TypeError('bug'), now).kind).toBe('neutral');
    expect(outcomeOf(new AppException('INTERNAL', 500, 'oops'), now).kind).toBe('neutral');
  });
});

describe('retryAfterMs', () => {
  const now = Date.parse('2026-03-01T12:00:00Z');
  it('reads seconds, an HTTP date, or OpenAI’s retry-after-ms, in any letter case', () => {
    expect(retryAfterMs({ 'retry-after': '3' }, now)).toBe(3_000);
    expect(retryAfterMs({ 'Retry-After': '1.5' }, now)).toBe(1_500);
    expect(retryAfterMs({ 'retry-after': 'Sun, 01 Mar 2026 12:00:30 GMT' }, now)).toBe(30_000);
    expect(retryAfterMs({ 'retry-after': 'Sun, 01 Mar 2026 11:00:00 GMT' }, now)).toBe(0);
    expect(retryAfterMs({ 'retry-after-ms': '250', 'retry-after': '9' }, now)).toBe(250);
    expect(retryAfterMs({ 'retry-after': ['4', '5'] }, now)).toBe(4_000);
  });

  it('is null when absent or unreadable', () => {
    expect(retryAfterMs(undefined, now)).toBeNull();
    expect(retryAfterMs({}, now)).toBeNull();
    expect(retryAfterMs({ 'retry-after': 'soon' }, now)).toBeNull();
    expect(retryAfterMs({ 'retry-after': '-5' }, now)).toBeNull();
    expect(retryAfterMs({ 'retry-after': '2026' }, now)).toBe(2_026_000);
    expect(retryAfterMs({ 'retry-after-ms': 'x' }, now)).toBeNull();
  });
});
