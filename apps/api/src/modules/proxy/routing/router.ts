import type Redis from 'ioredis';
import type { CatalogModel, Deployment } from '../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import { type Balanced, balance, type Candidate } from './balancer';
import { outcomeOf } from './breaker';
import { type Attempt, DeploymentStats } from './deployment-stats';
import { type HealthStore, InProcessHealthStore } from './health-store';
import { applyPreferences, NO_PREFERENCES, type ProviderPreferences } from './preferences';
import { type Bus, RedisHealthStore } from './redis-health-store';

/** The longest a half-open breaker's probe holds it (a probe's instance that died frees it then). */
const MAX_PROBE_LEASE_MS = 600_000;

/** The breakers' store for the app's Redis connection: shared through Redis when there is one, else in process. */
export function routingStore(
  client: Redis | null,
  prefix: string,
  bus: Bus | null,
  now: () => number = Date.now,
): HealthStore {
  return client ? new RedisHealthStore(client, prefix, bus, now) : new InProcessHealthStore(now);
}

/** One upstream attempt of a call on one deployment, from `begin` to `end`. */
export interface RoutedAttempt {
  candidate: Candidate;
  attempt: Attempt;
}

/**
 * The routing parts together, for the dispatch (docs/routing.md, "Wiring"): `plan` orders a model's deployments for
 * one call (balancer, breakers, the caller's preferences), `begin` / `firstByte` / `end` around each upstream attempt
 * keep the live stats and the breakers, and `unavailable` is the error when no deployment may take the call. The
 * clock is an argument, so tests drive it.
 */
export interface RouterOptions {
  now?: () => number;
  /** The balancer's random source (Math.random); tests pass a seeded one. */
  random?: () => number;
  /** A failure of the store (Redis unreachable): logged, never the call's failure. */
  warn?: (what: string, error: Error) => void;
}

export class Router {
  protected readonly now: () => number;
  private readonly random: () => number;
  protected readonly warn: (what: string, error: Error) => void;

  constructor(
    readonly store: HealthStore,
    readonly stats: DeploymentStats = new DeploymentStats(),
    options: RouterOptions = {},
  ) {
    this.now = options.now ?? Date.now;
    this.random = options.random ?? Math.random;
    this.warn = options.warn ?? (() => undefined);
  }

  /**
   * The deployments one call of `model` may try, best first, under the caller's preferences (already checked by
   * readPreferences). `cost`: what the call would cost at a deployment (for `cheapest` and `sort: price`).
   */
  plan(
    model: CatalogModel,
    preferences: ProviderPreferences = NO_PREFERENCES,
    cost?: (deployment: Deployment) => number,
  ): Balanced {
    const now = this.now();
    const balanced = balance(
      model.deployments.map((deployment) => ({
        deployment,
        load: this.stats.load(deployment.key),
        breaker: this.store.breaker(deployment.key),
      })),
      { strategy: model.routing, now, cost, random: this.random },
    );
    if (preferences === NO_PREFERENCES) return balanced;
    const candidates = applyPreferences(balanced.candidates, preferences, {
      load: (deployment) => this.stats.load(deployment.key),
      cost,
      free: model.free,
    });
    return { ...balanced, candidates };
  }

  /**
   * An attempt on a candidate begins; null when the candidate was a half-open breaker's probe and another call
   * (on any instance) took the probe: skip it.
   */
  async begin(candidate: Candidate): Promise<RoutedAttempt | null> {
    const { deployment } = candidate;
    if (candidate.probe) {
      const lease = Math.min(deployment.provider.timeoutMs + 5_000, MAX_PROBE_LEASE_MS);
      const taken = await this.store.acquireProbe(deployment.key, lease).catch((error: Error) => {
        this.warn('probe', error);
        return false;
      });
      if (!taken) return null;
    }
    return { candidate, attempt: this.stats.start(deployment.key) };
  }

  /** The provider's first byte (its status line) arrived. */
  firstByte(routed: RoutedAttempt): void {
    this.stats.firstByte(routed.attempt);
  }

  /**
   * The attempt ended: `error` null for an answer, else what it failed with. Its outcome moves the stats and the
   * breaker (a failure to reach Redis is logged, never the call's failure).
   */
  async end(
    routed: RoutedAttempt,
    error: unknown,
    usage: { tokens?: number; outputTokens?: number } = {},
  ): Promise<void> {
    const outcome = outcomeOf(error, this.now(), routed.candidate.probe);
    this.stats.end(routed.attempt, outcome.kind, usage);
    await this.store.record(routed.attempt.key, outcome).catch((failure: Error) => this.warn('record', failure));
  }

  /** The error of a call none of whose deployments may take it now (every breaker open). */
  unavailable(model: CatalogModel, balanced: Balanced): GatewayException {
    const seconds = balanced.retryAfterMs === null ? null : Math.max(1, Math.ceil(balanced.retryAfterMs / 1000));
    const headers: Record<string, string> = seconds === null ? {} : { 'Retry-After': String(seconds) };
    const when = seconds === null ? 'ask the operator' : `retry in ${seconds} s`;
    if (balanced.rateLimited)
      return new GatewayException(
        GatewayErrorCode.UPSTREAM_RATE_LIMITED,
        `Every provider of ${model.id} is rate limiting; ${when}`,
        { headers },
      );
    return new GatewayException(
      GatewayErrorCode.UPSTREAM_ERROR,
      `No provider of ${model.id} is available now (failing, cooling down or switched off); ${when}`,
      { status: 503, headers },
    );
  }
}
