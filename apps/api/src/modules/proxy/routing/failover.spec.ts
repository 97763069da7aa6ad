import { modelWith } from '../../../../test/support/deployments';
import type { CatalogModel } from '../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import { tryCandidates } from './attempt-loop';
import { seededRandom } from './balancer';
import { DeploymentStats } from './deployment-stats';
import { InProcessHealthStore } from './health-store';
import { CallAttempts } from './retry-policy';
import { Router } from './router';

/**
 * Whole calls through the routing parts as the dispatch will run them (plan → attempt loop → begin/end), against
 * fake deployments on a fake clock: nothing sleeps; timers fire when the test moves the clock.
 */

type Behaviour = 'ok' | 'fail' | 'hang' | { slowMs: number } | { retryAfter: string };

/** Runs callbacks when the fake clock passes their time, letting promises settle after each. */
class FakeClock {
  now = 1_700_000_000_000;
  private timers: { at: number; fire: () => void }[] = [];

  after(ms: number, fire: () => void): void {
    this.timers.push({ at: this.now + ms, fire });
  }

  async advance(ms: number): Promise<void> {
    const end = this.now + ms;
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at);
      const next = this.timers[0];
      if (!next || next.at > end) break;
      this.timers.shift();
      this.now = next.at;
      next.fire();
      await settle();
    }
    this.now = end;
    await settle();
  }
}

/** Lets every promise that can settle do so (one macrotask turn, twice: the loop awaits in steps). */
const settle = async () => {
  for (let i = 0; i < 5; i += 1) await new Promise<void>((resolve) => setImmediate(resolve));
};

interface CallResult {
  served: string | null;
  /** Providers tried, in order. */
  tried: string[];
  error: unknown;
}

class Harness {
  readonly clock = new FakeClock();
  readonly store = new InProcessHealthStore(() => this.clock.now);
  readonly router = new Router(this.store, new DeploymentStats(() => this.clock.now), {
    now: () => this.clock.now,
    random: seededRandom(1),
  });
  readonly behaviour: Record<string, Behaviour> = {};
  /** Upstream attempts: provider and time. */
  readonly sent: { provider: string; at: number }[] = [];
  readonly results: CallResult[] = [];
  private open = 0;

  constructor(readonly model: CatalogModel) {
    for (const d of model.deployments) this.behaviour[d.provider.id] = 'ok';
  }

  /** Starts one call (not awaited: calls overlap like real ones). */
  start(): void {
    this.open += 1;
    void this.call().then((result) => {
      this.results.push(result);
      this.open -= 1;
    });
  }

  /** One call every `everyMs` for `forMs`, then lets the clock run on until they all ended. */
  async run(forMs: number, everyMs: number): Promise<CallResult[]> {
    const from = this.results.length;
    for (let t = 0; t < forMs; t += everyMs) {
      this.start();
      await this.clock.advance(everyMs);
    }
    await this.drain();
    return this.results.slice(from);
  }

  /** Moves the clock 100 ms at a time until every call ended (a call hung on a deployment ends at its timeout). */
  async drain(): Promise<void> {
    for (let steps = 0; this.open && steps < 1_000; steps += 1) await this.clock.advance(100);
    expect(this.open).toBe(0);
  }

  attemptsOn(provider: string, from = 0, to = Infinity): number {
    return this.sent.filter((s) => s.provider === provider && s.at >= from && s.at < to).length;
  }

  private async call(): Promise<CallResult> {
    const plan = this.router.plan(this.model);
    const tried: string[] = [];
    if (!plan.candidates.length) return { served: null, tried, error: this.router.unavailable(this.model, plan) };
    const attempts = new CallAttempts();
    const result = await tryCandidates(plan.candidates, attempts, {
      begin: (candidate) => this.router.begin(candidate),
      send: (candidate, routed) => {
        const provider = candidate.deployment.provider.id;
        tried.push(provider);
        this.sent.push({ provider, at: this.clock.now });
        return new Promise<string>((resolve, reject) => {
          const behaviour = this.behaviour[provider];
          const answer = () => {
            this.router.firstByte(routed);
            resolve(provider);
          };
          if (behaviour === 'ok') this.clock.after(200, answer);
          else if (behaviour === 'fail')
            reject(new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider failed (status 502)'));
          else if (behaviour === 'hang')
            this.clock.after(candidate.deployment.provider.timeoutMs, () =>
              reject(new GatewayException(GatewayErrorCode.UPSTREAM_TIMEOUT, 'timed out')),
            );
          else if ('slowMs' in behaviour) this.clock.after(behaviour.slowMs, answer);
          else
            reject(
              new GatewayException(GatewayErrorCode.UPSTREAM_RATE_LIMITED, 'slow down', {
                headers: { 'Retry-After': behaviour.retryAfter },
              }),
            );
        });
      },
      end: (routed, error) => this.router.end(routed, error),
      state: () => ({ firstByteSent: false, aborted: false }),
    });
    return result.answered
      ? { served: result.deployment.provider.id, tried, error: null }
      : { served: null, tried, error: result.error };
  }
}

describe('failover through the routing parts (fake clock)', () => {
  const twoEqual = () => modelWith([{ provider: 'p1' }, { provider: 'p2' }]);

  it('leaves a failing deployment after three faults, probes it once per cooldown, and returns to it once it answers', async () => {
    const h = new Harness(twoEqual());
    const warm = await h.run(2_000, 100);
    expect(warm.every((r) => r.served)).toBe(true);
    expect(h.attemptsOn('p1')).toBeGreaterThan(5);

    h.behaviour.p1 = 'fail';
    const failingFrom = h.clock.now;
    await h.run(1_000, 100);
    // Three faults open it; every call was still served (by p2, after one retry at most).
    expect(h.attemptsOn('p1', failingFrom)).toBe(3);
    expect(h.store.breaker('p1/up-p1')).toMatchObject({ state: 'open', reason: 'faults', level: 1 });
    const openedUntil = h.store.breaker('p1/up-p1').until;

    // While open: not one attempt on p1, not one extra attempt per call.
    const whileOpen = await h.run(openedUntil - h.clock.now - 100, 100);
    expect(whileOpen.every((r) => r.served === 'p2' && r.tried.length === 1)).toBe(true);
    expect(h.attemptsOn('p1', failingFrom)).toBe(3);

    // Half-open: exactly one probe, which fails: open again, for twice as long.
    await h.run(1_000, 100);
    expect(h.attemptsOn('p1', openedUntil)).toBe(1);
    expect(h.store.breaker('p1/up-p1')).toMatchObject({ state: 'open', reason: 'probe_failed', level: 2 });
    expect(h.store.breaker('p1/up-p1').until - openedUntil).toBeGreaterThanOrEqual(10_000);

    // p1 recovers; the next probe closes the breaker and p1 takes its share again.
    h.behaviour.p1 = 'ok';
    const reopenedUntil = h.store.breaker('p1/up-p1').until;
    await h.run(reopenedUntil - h.clock.now + 100, 100);
    expect(h.store.breaker('p1/up-p1').state).toBe('closed');
    const back = h.clock.now;
    const after = await h.run(4_000, 100);
    expect(after.every((r) => r.served)).toBe(true);
    expect(h.attemptsOn('p1', back)).toBeGreaterThan(8);
    expect(h.results.every((r) => r.served)).toBe(true);
  });

  it('cools a deployment down for its Retry-After after a 429, without failing a call, then probes it', async () => {
    const h = new Harness(twoEqual());
    await h.run(1_000, 100);
    h.behaviour.p1 = { retryAfter: '7' };
    const from = h.clock.now;
    await h.run(2_000, 100);
    expect(h.attemptsOn('p1', from)).toBe(1);
    const breaker = h.store.breaker('p1/up-p1');
    expect(breaker).toMatchObject({ state: 'open', reason: 'rate_limited', level: 0 });
    const limitedAt = h.sent.filter((s) => s.provider === 'p1' && s.at >= from)[0].at;
    expect(breaker.until).toBe(limitedAt + 7_000);
    h.behaviour.p1 = 'ok';
    await h.run(limitedAt + 7_000 - h.clock.now - 100, 100);
    expect(h.attemptsOn('p1', from)).toBe(1);
    await h.run(1_000, 100);
    expect(h.store.breaker('p1/up-p1').state).toBe('closed');
    expect(h.attemptsOn('p1', limitedAt + 7_000)).toBeGreaterThan(1);
    expect(h.results.every((r) => r.served)).toBe(true);
  });

  it('leaves a deployment that hangs within a few calls: it goes last, then its timeouts open the breaker', async () => {
    const h = new Harness(twoEqual());
    await h.run(3_000, 500); // p1 answers in 200 ms: its usual time to first byte
    h.behaviour.p1 = 'hang';
    const from = h.clock.now;
    const during = await h.run(60_000, 500);
    // 120 calls: a handful went to p1 before it looked stalled (5 s without a first byte), then none but probes.
    expect(h.attemptsOn('p1', from)).toBeLessThanOrEqual(8);
    expect(h.store.breaker('p1/up-p1').state).toBe('open');
    // Every call was served: those that hung on p1 by p2 after the timeout.
    expect(during.every((r) => r.served === 'p2')).toBe(true);
    h.behaviour.p1 = 'ok';
    await h.run(h.store.breaker('p1/up-p1').until - h.clock.now + 1_000, 500);
    expect(h.store.breaker('p1/up-p1').state).toBe('closed');
  });

  it('sends a half-open breaker exactly one probe, however many calls arrive meanwhile', async () => {
    const h = new Harness(twoEqual());
    h.behaviour.p1 = 'fail';
    await h.run(1_000, 100);
    const until = h.store.breaker('p1/up-p1').until;
    await h.clock.advance(until - h.clock.now);
    h.behaviour.p1 = { slowMs: 3_000 }; // the probe takes 3 s to answer
    for (let i = 0; i < 20; i += 1) h.start(); // 20 calls at the same instant
    await h.clock.advance(1_000);
    for (let i = 0; i < 10; i += 1) {
      h.start();
      await h.clock.advance(100);
    }
    expect(h.attemptsOn('p1', until)).toBe(1);
    await h.drain();
    expect(h.store.breaker('p1/up-p1').state).toBe('closed');
  });

  it('answers at once, without an upstream attempt, when every deployment is open; 503 with Retry-After', async () => {
    const h = new Harness(modelWith([{ provider: 'p1' }]));
    h.behaviour.p1 = 'fail';
    const results = await h.run(1_000, 100);
    expect(h.attemptsOn('p1')).toBe(3);
    const refused = results.slice(3);
    expect(refused.length).toBeGreaterThan(0);
    for (const result of refused) {
      expect(result.tried).toEqual([]);
      const error = result.error as GatewayException;
      expect(error.status).toBe(503);
      expect(error.code).toBe('UPSTREAM_ERROR');
      expect(Number(error.options.headers?.['Retry-After'])).toBeGreaterThanOrEqual(1);
      expect(Number(error.options.headers?.['Retry-After'])).toBeLessThanOrEqual(5);
    }
  });
});
