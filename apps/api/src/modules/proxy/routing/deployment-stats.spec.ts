import { DeploymentStats, IDLE } from './deployment-stats';

describe('DeploymentStats', () => {
  let clock: number;
  let stats: DeploymentStats;
  beforeEach(() => {
    clock = 60_000 * 1000; // the start of a minute
    stats = new DeploymentStats(() => clock);
  });

  it('counts attempts in flight and the oldest one still waiting for its first byte', () => {
    expect(stats.load('a')).toBe(IDLE);
    const first = stats.start('a');
    clock += 2_000;
    const second = stats.start('a');
    clock += 1_000;
    expect(stats.load('a')).toMatchObject({ inFlight: 2, oldestWaitMs: 3_000 });
    stats.firstByte(first);
    expect(stats.load('a')).toMatchObject({ inFlight: 2, oldestWaitMs: 1_000 });
    stats.end(first, 'success');
    stats.end(second, 'fault');
    stats.end(second, 'fault'); // once only
    expect(stats.load('a')).toMatchObject({ inFlight: 0, oldestWaitMs: 0 });
    expect(stats.totals()).toEqual([
      ['a', expect.objectContaining({ attempts: { success: 1, fault: 1, rate_limited: 0, neutral: 0 } })],
    ]);
  });

  it('keeps a moving average of the time to first byte and of output tokens per second', () => {
    for (const ms of [1_000, 1_000, 2_000]) {
      const attempt = stats.start('a');
      clock += ms;
      stats.firstByte(attempt);
      clock += 1_000;
      stats.end(attempt, 'success', { tokens: 500, outputTokens: 100 });
    }
    const load = stats.load('a');
    expect(load.ttfbMs).toBeCloseTo(1_300); // 1000, then 1000, then 1000 + 0.3 × (2000 − 1000)
    expect(load.tokensPerSecond).toBeCloseTo(50 + 0.3 * (100 / 3 - 50)); // 100 tokens in 2 s, 2 s, then 3 s
    // A failed attempt's tokens count against tpm, but not in the throughput.
    const failed = stats.start('a');
    stats.end(failed, 'fault', { tokens: 10, outputTokens: 1_000 });
    expect(stats.load('a').tokensPerSecond).toBe(load.tokensPerSecond);
    expect(stats.load('a').tokensThisMinute).toBe(1_510);
  });

  it('counts this minute’s requests and tokens, afresh each minute', () => {
    const a = stats.start('a');
    stats.end(a, 'success', { tokens: 300 });
    stats.start('a');
    expect(stats.load('a')).toMatchObject({ requestsThisMinute: 2, tokensThisMinute: 300 });
    clock += 60_000;
    expect(stats.load('a')).toMatchObject({ requestsThisMinute: 0, tokensThisMinute: 0, inFlight: 1 });
  });

  it('adds every instance’s counts once shared, without counting its own twice', () => {
    stats.start('a');
    stats.start('a');
    const [pending] = stats.pending(['limited']).filter((p) => p.key === 'a');
    expect(pending).toEqual({ key: 'a', minute: 1000, requests: 2, tokens: 0 });
    expect(stats.pending().map((p) => p.key)).toEqual(['a', 'limited']);
    stats.start('a'); // while the sync is on its way
    // The shared count after adding ours: another instance made 5.
    stats.shared('a', 1000, { requests: 2, tokens: 0 }, { requests: 7, tokens: 40 });
    expect(stats.load('a')).toMatchObject({ requestsThisMinute: 8, tokensThisMinute: 40 });
    expect(stats.pending().find((p) => p.key === 'a')).toMatchObject({ requests: 1, tokens: 0 });
    // A shared count of a minute gone by is ignored.
    stats.shared('a', 999, { requests: 1, tokens: 0 }, { requests: 100, tokens: 0 });
    expect(stats.load('a').requestsThisMinute).toBe(8);
  });
});
