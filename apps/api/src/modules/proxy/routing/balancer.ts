import type { ModelPricing } from '@switchyard/shared-dto';
import type { Deployment, RoutingStrategy } from '../catalog/catalog.types';
import { phaseOf, type SharedBreaker } from './breaker';
import type { DeploymentLoad } from './deployment-stats';

/**
 * The balancer (docs/routing.md, "Balancing"): a model's deployments, their live load and their breakers in, the
 * ordered candidates for one call out. Pure: the clock and the random source are arguments.
 */

/** A deployment as the balancer sees it at one instant. */
export interface RoutableDeployment {
  deployment: Deployment;
  load: DeploymentLoad;
  breaker: SharedBreaker;
}

/** One deployment a call may try, in order. `probe`: its breaker is half-open and this call may be its one probe. */
export interface Candidate {
  deployment: Deployment;
  probe: boolean;
}

export interface Balanced {
  candidates: Candidate[];
  /** With no candidate: how long until the first cooldown ends (null when none will: every breaker forced open). */
  retryAfterMs: number | null;
  /** With no candidate: every deployment is cooling down after the provider's 429 (the call answers 429, not 503). */
  rateLimited: boolean;
}

export interface BalanceOptions {
  strategy: RoutingStrategy;
  now: number;
  /** Uniform in [0, 1) (Math.random); tests pass a seeded one. */
  random?: () => number;
  /** What a call costs at a deployment, for `cheapest` (lower first); default: referenceCost of its pricing. */
  cost?: (deployment: Deployment) => number;
}

/**
 * A deployment may hang when its oldest attempt in flight has waited for a first byte 4× its usual time to first byte
 * and at least 5 s (30 s while it has no usual time yet): it goes last until that attempt ends.
 */
export const STALL_MIN_MS = 5_000;
export const STALL_UNMEASURED_MS = 30_000;
const STALL_FACTOR = 4;
/** Under `latency`, deployments within 10% of the fastest count as equally fast (and share the calls by weight). */
const LATENCY_BUFFER = 0.1;

/**
 * The candidates for one call, best first:
 * 1. breakers: open and forced-open deployments are left out; a half-open one comes first, as the call's probe;
 * 2. the others by the strategy: `weighted` draws an order by weight (a deployment of weight 3 comes first three
 *    times as often as one of weight 1), `least-busy` by calls in flight, `latency` by the moving average of time
 *    to first byte (none yet: first, so it gets measured), `cheapest` by cost; ties in the weighted draw's order.
 *    Standbys (weight 0) come after every weighted deployment;
 * 3. a deployment over its rpm or tpm this minute is left out while another remains; one whose oldest attempt has
 *    waited far longer than usual for a first byte (it may hang) goes last.
 */
export function balance(deployments: RoutableDeployment[], options: BalanceOptions): Balanced {
  const { now } = options;
  if (deployments.length === 1) return balanceOne(deployments[0], now);
  const random = options.random ?? Math.random;
  const probes: RoutableDeployment[] = [];
  const closed: RoutableDeployment[] = [];
  let retryAfterMs: number | null = null;
  let rateLimited = true;
  for (const item of deployments) {
    const phase = phaseOf(item.breaker, now);
    if (phase === 'half_open') probes.push(item);
    else if (phase === 'closed') closed.push(item);
    else if (phase === 'open') {
      const wait = item.breaker.until - now;
      retryAfterMs = retryAfterMs === null ? wait : Math.min(retryAfterMs, wait);
      if (item.breaker.reason !== 'rate_limited') rateLimited = false;
    } else rateLimited = false;
  }
  const ordered = [...order(probes, options, random), ...order(closed, options, random)];
  const within = ordered.filter((item) => !overLimit(item));
  const usable = within.length ? within : ordered;
  const steady = usable.filter((item) => !stalled(item));
  const suspect = usable.filter((item) => stalled(item));
  const candidates = [...steady, ...suspect].map((item) => ({
    deployment: item.deployment,
    probe: phaseOf(item.breaker, now) === 'half_open',
  }));
  return {
    candidates,
    retryAfterMs: candidates.length ? null : retryAfterMs,
    rateLimited: !candidates.length && retryAfterMs !== null && rateLimited,
  };
}

/**
 * balance() of a model with one deployment (most models): the same answer, without the draw, the sorts and their
 * arrays, on every call. Nothing to order: its breaker alone decides (a rate or a stall only ever reorders).
 */
function balanceOne(item: RoutableDeployment, now: number): Balanced {
  const phase = phaseOf(item.breaker, now);
  if (phase === 'closed' || phase === 'half_open')
    return {
      candidates: [{ deployment: item.deployment, probe: phase === 'half_open' }],
      retryAfterMs: null,
      rateLimited: false,
    };
  const open = phase === 'open';
  return {
    candidates: [],
    retryAfterMs: open ? item.breaker.until - now : null,
    rateLimited: open && item.breaker.reason === 'rate_limited',
  };
}

function order(items: RoutableDeployment[], options: BalanceOptions, random: () => number): RoutableDeployment[] {
  const drawn = weightedOrder(items, random);
  const active = drawn.filter((item) => item.deployment.weight > 0);
  const standby = drawn.filter((item) => item.deployment.weight === 0);
  return [...byStrategy(active, options), ...byStrategy(standby, options)];
}

/**
 * A random order in which each deployment comes first with a chance proportional to its weight, and so on down the
 * list (weighted sampling without replacement: each draws u^(1/weight), highest first). Weight 0 comes last.
 */
export function weightedOrder<T extends { deployment: Deployment }>(items: T[], random: () => number): T[] {
  return items
    .map((item) => {
      const u = 1 - random(); // (0, 1]
      const weight = item.deployment.weight;
      return { item, key: weight > 0 ? Math.log(u) / weight : -Infinity, tie: u };
    })
    .sort((a, b) => b.key - a.key || b.tie - a.tie)
    .map(({ item }) => item);
}

/** A stable sort of the weighted draw by the strategy's measure, so equal measures keep the draw's order. */
function byStrategy(items: RoutableDeployment[], options: BalanceOptions): RoutableDeployment[] {
  const cost = options.cost ?? ((deployment: Deployment) => referenceCost(deployment.pricing));
  const measure = (item: RoutableDeployment): number => {
    switch (options.strategy) {
      case 'weighted':
        return 0;
      case 'least-busy':
        return item.load.inFlight;
      case 'latency':
        return item.load.ttfbMs ?? 0;
      case 'cheapest':
        return cost(item.deployment);
    }
  };
  const measured = items.map((item) => ({ item, value: measure(item) }));
  if (options.strategy === 'latency' && measured.length) {
    const best = Math.min(...measured.map((m) => m.value));
    for (const m of measured) if (m.value <= best * (1 + LATENCY_BUFFER)) m.value = best;
  }
  return measured.sort((a, b) => a.value - b.value).map((m) => m.item);
}

function overLimit({ deployment, load }: RoutableDeployment): boolean {
  return (
    (deployment.rpm !== null && load.requestsThisMinute >= deployment.rpm) ||
    (deployment.tpm !== null && load.tokensThisMinute >= deployment.tpm)
  );
}

function stalled({ load }: RoutableDeployment): boolean {
  const limit = load.ttfbMs === null ? STALL_UNMEASURED_MS : Math.max(STALL_MIN_MS, STALL_FACTOR * load.ttfbMs);
  return load.oldestWaitMs > limit;
}

/**
 * What a small call of every kind would cost at these prices (micro-units): 1,000 input and 1,000 output tokens,
 * one request, one image, one second, 1,000 characters. The default measure of `cheapest` and of `sort: price`
 * when the dispatch gives none; within one model only the terms of its kind differ.
 */
export function referenceCost(pricing: ModelPricing): number {
  return (
    (pricing.inputPerMTok ?? 0) * 1_000 +
    (pricing.outputPerMTok ?? 0) * 1_000 +
    ((pricing.perRequest ?? 0) + (pricing.perImage ?? 0) + (pricing.perSecond ?? 0)) * 1e6 +
    (pricing.perMChars ?? 0) * 1_000
  );
}

/** A seeded uniform random source (mulberry32), for reproducible draws in tests and benchmarks. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
