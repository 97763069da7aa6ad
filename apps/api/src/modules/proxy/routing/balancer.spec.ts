import { modelWith } from '../../../../test/support/deployments';
import type { CatalogModel } from '../catalog/catalog.types';
import {
  balance,
  type BalanceOptions,
  type RoutableDeployment,
  referenceCost,
  seededRandom,
  weightedOrder,
} from './balancer';
import { CLOSED, type SharedBreaker } from './breaker';
import { type DeploymentLoad, IDLE } from './deployment-stats';

/** The model's deployments as the balancer sees them: idle and closed unless given per provider id. */
function routable(
  model: CatalogModel,
  loads: Record<string, Partial<DeploymentLoad>> = {},
  breakers: Record<string, SharedBreaker> = {},
): RoutableDeployment[] {
  return model.deployments.map((deployment) => ({
    deployment,
    load: { ...IDLE, ...loads[deployment.provider.id] },
    breaker: breakers[deployment.provider.id] ?? CLOSED,
  }));
}

const NOW = 1_000_000;
const DRAWS = 20_000;
/** Over 20,000 seeded draws a share's standard error is at most 0.0036: 0.02 is more than five of them. */
const TOLERANCE = 0.02;

const open = (until: number, reason: SharedBreaker['reason'] = 'faults'): SharedBreaker => ({
  state: 'open',
  until,
  level: 1,
  reason,
});

/** How often each provider comes first over `DRAWS` seeded draws. */
function firstShares(run: (random: () => number) => string): Record<string, number> {
  const random = seededRandom(42);
  const counts: Record<string, number> = {};
  for (let i = 0; i < DRAWS; i += 1) {
    const first = run(random);
    counts[first] = (counts[first] ?? 0) + 1;
  }
  return Object.fromEntries(Object.entries(counts).map(([id, n]) => [id, n / DRAWS]));
}

const order = (list: { deployment: { provider: { id: string } } }[]) => list.map((c) => c.deployment.provider.id);

describe('balance', () => {
  const options = (extra: Partial<BalanceOptions> = {}): BalanceOptions => ({
    strategy: 'weighted',
    now: NOW,
    ...extra,
  });

  it('weighted: each deployment comes first in proportion to its weight; a standby (weight 0) always last', () => {
    const model = modelWith([
      { provider: 'p1', weight: 3 },
      { provider: 'p2', weight: 1 },
      { provider: 'p3', weight: 0 },
    ]);
    let standbyLast = 0;
    const shares = firstShares((random) => {
      const ids = order(balance(routable(model), options({ random })).candidates);
      if (ids.length === 3 && ids[2] === 'p3') standbyLast += 1;
      return ids[0];
    });
    expect(standbyLast).toBe(DRAWS);
    expect(Math.abs(shares.p1 - 0.75)).toBeLessThan(TOLERANCE);
    expect(Math.abs(shares.p2 - 0.25)).toBeLessThan(TOLERANCE);
    expect(shares.p3).toBeUndefined();
  });

  it('weighted: the second place follows the weights of those left (2:1:1 → p2 second half the time p1 is first)', () => {
    const model = modelWith([
      { provider: 'p1', weight: 2 },
      { provider: 'p2', weight: 1 },
      { provider: 'p3', weight: 1 },
    ]);
    const random = seededRandom(7);
    let p1First = 0;
    let p2Second = 0;
    for (let i = 0; i < DRAWS; i += 1) {
      const ids = order(weightedOrder(routable(model), random));
      if (ids[0] !== 'p1') continue;
      p1First += 1;
      if (ids[1] === 'p2') p2Second += 1;
    }
    expect(Math.abs(p1First / DRAWS - 0.5)).toBeLessThan(TOLERANCE);
    expect(Math.abs(p2Second / p1First - 0.5)).toBeLessThan(2 * TOLERANCE);
  });

  it('least-busy: fewest calls in flight first; equal ones share the calls by weight', () => {
    const model = modelWith([{ provider: 'p1' }, { provider: 'p2' }, { provider: 'p3' }], 'least-busy');
    const { candidates } = balance(
      routable(model, { p1: { inFlight: 4 }, p2: { inFlight: 1 }, p3: { inFlight: 2 } }),
      options({ strategy: 'least-busy' }),
    );
    expect(order(candidates)).toEqual(['p2', 'p3', 'p1']);
    const shares = firstShares(
      (random) =>
        order(
          balance(routable(model, { p1: { inFlight: 3 } }), options({ strategy: 'least-busy', random })).candidates,
        )[0],
    );
    expect(shares.p1).toBeUndefined();
    expect(Math.abs(shares.p2 - 0.5)).toBeLessThan(TOLERANCE);
  });

  it('latency: lowest moving time to first byte first, an unmeasured one first of all, within 10% counted equal', () => {
    const model = modelWith(
      [{ provider: 'p1' }, { provider: 'p2' }, { provider: 'p3' }, { provider: 'p4' }],
      'latency',
    );
    const loads = { p1: { ttfbMs: 900 }, p2: { ttfbMs: 300 }, p3: { ttfbMs: 500 }, p4: { ttfbMs: null } };
    expect(order(balance(routable(model, loads), options({ strategy: 'latency' })).candidates)).toEqual([
      'p4',
      'p2',
      'p3',
      'p1',
    ]);
    const close = { p1: { ttfbMs: 900 }, p2: { ttfbMs: 300 }, p3: { ttfbMs: 320 }, p4: { ttfbMs: 2000 } };
    const shares = firstShares(
      (random) => order(balance(routable(model, close), options({ strategy: 'latency', random })).candidates)[0],
    );
    expect(Math.abs(shares.p2 - 0.5)).toBeLessThan(TOLERANCE);
    expect(Math.abs(shares.p3 - 0.5)).toBeLessThan(TOLERANCE);
  });

  it('cheapest: by what the call costs at each (its estimate when given, else a reference call)', () => {
    const model = modelWith(
      [
        { provider: 'p1', pricing: { inputPerMTok: 3, outputPerMTok: 15 } },
        { provider: 'p2', pricing: { inputPerMTok: 1, outputPerMTok: 20 } },
        { provider: 'p3', pricing: { inputPerMTok: 2, outputPerMTok: 10 } },
      ],
      'cheapest',
    );
    expect(order(balance(routable(model), options({ strategy: 'cheapest' })).candidates)).toEqual(['p3', 'p1', 'p2']);
    // A prompt-heavy call: input prices decide.
    const cost = (d: { pricing: { inputPerMTok?: number } }) => d.pricing.inputPerMTok!;
    expect(order(balance(routable(model), options({ strategy: 'cheapest', cost })).candidates)).toEqual([
      'p2',
      'p3',
      'p1',
    ]);
    expect(referenceCost({ inputPerMTok: 2, outputPerMTok: 10, perRequest: 0.001 })).toBe(2_000 + 10_000 + 1_000);
  });

  it('skips a deployment over its rpm or tpm while another is within its limits; keeps them all when none is', () => {
    const model = modelWith([
      { provider: 'p1', weight: 100, rpm: 10 },
      { provider: 'p2', weight: 1, tpm: 1000 },
      { provider: 'p3', weight: 1 },
    ]);
    const busy = { p1: { requestsThisMinute: 10 }, p2: { tokensThisMinute: 1000 } };
    expect(order(balance(routable(model, busy), options()).candidates)).toEqual(['p3']);
    const below = { p1: { requestsThisMinute: 9 }, p2: { tokensThisMinute: 999 } };
    expect(balance(routable(model, below), options()).candidates).toHaveLength(3);
    const two = modelWith([
      { provider: 'p1', rpm: 1 },
      { provider: 'p2', rpm: 1 },
    ]);
    expect(
      balance(routable(two, { p1: { requestsThisMinute: 5 }, p2: { requestsThisMinute: 5 } }), options()).candidates,
    ).toHaveLength(2);
  });

  it('leaves out open and forced-open breakers; a half-open one comes first, as the probe', () => {
    const model = modelWith([
      { provider: 'p1', weight: 100 },
      { provider: 'p2' },
      { provider: 'p3' },
      { provider: 'p4' },
    ]);
    const breakers = {
      p1: open(NOW + 1),
      p2: { state: 'forced_open', until: 0, level: 0, reason: 'forced' } as SharedBreaker,
      p3: open(NOW),
    };
    const { candidates } = balance(routable(model, {}, breakers), options());
    expect(candidates.map((c) => [c.deployment.provider.id, c.probe])).toEqual([
      ['p3', true],
      ['p4', false],
    ]);
  });

  it('with every breaker open: no candidate, and when the first cooldown ends (429 only when all were 429s)', () => {
    const model = modelWith([{ provider: 'p1' }, { provider: 'p2' }]);
    const failing = balance(
      routable(model, {}, { p1: open(NOW + 8_000), p2: open(NOW + 3_000, 'rate_limited') }),
      options(),
    );
    expect(failing).toEqual({ candidates: [], retryAfterMs: 3_000, rateLimited: false });
    const limited = balance(
      routable(model, {}, { p1: open(NOW + 8_000, 'rate_limited'), p2: open(NOW + 3_000, 'rate_limited') }),
      options(),
    );
    expect(limited).toEqual({ candidates: [], retryAfterMs: 3_000, rateLimited: true });
    const off = { state: 'forced_open', until: 0, level: 0, reason: 'forced' } as SharedBreaker;
    expect(balance(routable(model, {}, { p1: off, p2: off }), options())).toEqual({
      candidates: [],
      retryAfterMs: null,
      rateLimited: false,
    });
    expect(balance(routable(model, {}, { p1: CLOSED }), options()).retryAfterMs).toBeNull();
  });

  it('one deployment (its own short path): its breaker alone decides; busy, over its limits or stalled, it is still tried', () => {
    const one = modelWith([{ provider: 'p1' }], 'least-busy');
    const off = { state: 'forced_open', until: 0, level: 0, reason: 'forced' } as SharedBreaker;
    const busy = { inFlight: 9, oldestWaitMs: 60_000, requestsThisMinute: 1e9, tokensThisMinute: 1e12 };
    const deployment = one.deployments[0];
    const cases: [SharedBreaker, ReturnType<typeof balance>][] = [
      [CLOSED, { candidates: [{ deployment, probe: false }], retryAfterMs: null, rateLimited: false }],
      // Cooled down: half-open, and the call is its probe.
      [open(NOW - 1), { candidates: [{ deployment, probe: true }], retryAfterMs: null, rateLimited: false }],
      [open(NOW + 4_000), { candidates: [], retryAfterMs: 4_000, rateLimited: false }],
      [open(NOW + 2_500, 'rate_limited'), { candidates: [], retryAfterMs: 2_500, rateLimited: true }],
      [off, { candidates: [], retryAfterMs: null, rateLimited: false }],
    ];
    for (const [breaker, expected] of cases) {
      expect(balance(routable(one, { p1: busy }, { p1: breaker }), options())).toEqual(expected);
      expect(balance(routable(one, {}, { p1: breaker }), options({ strategy: 'weighted' }))).toEqual(expected);
    }
  });

  it('puts last a deployment whose oldest attempt waits far longer than usual for a first byte (it may hang)', () => {
    const model = modelWith([{ provider: 'p1', weight: 1000 }, { provider: 'p2' }]);
    const waits = (p1: number, ttfbMs: number | null) =>
      order(balance(routable(model, { p1: { oldestWaitMs: p1, ttfbMs } }), options()).candidates);
    expect(waits(4_000, 200)).toEqual(['p1', 'p2']); // under the 5 s floor
    expect(waits(5_001, 200)).toEqual(['p2', 'p1']);
    expect(waits(7_000, 2_000)).toEqual(['p1', 'p2']); // 4 × its usual 2 s
    expect(waits(8_001, 2_000)).toEqual(['p2', 'p1']);
    expect(waits(29_000, null)).toEqual(['p1', 'p2']); // unmeasured: 30 s
    expect(waits(30_001, null)).toEqual(['p2', 'p1']);
  });
});
