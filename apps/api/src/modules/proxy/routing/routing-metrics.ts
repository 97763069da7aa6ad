import { Counter, Gauge, type Registry } from 'prom-client';
import { LATENCY_BUCKETS } from '../../../common/metrics/call-totals';
import { type BreakerPhase, phaseOf, type SharedBreaker } from './breaker';
import type { DeploymentStats } from './deployment-stats';

/** The breaker state gauge's values. */
export const BREAKER_STATE_VALUE: Record<BreakerPhase, number> = { closed: 0, half_open: 1, open: 2, forced_open: 3 };

export interface RoutingMetricsSources {
  stats: DeploymentStats;
  /** The breaker of a deployment as this instance knows it. */
  breaker: (key: string) => SharedBreaker;
  /** Every deployment of the catalog (`provider/upstreamModel`), so a breaker shows before its first call. */
  deployments: () => Iterable<string>;
  now?: () => number;
}

/**
 * Per-deployment metrics (docs/routing.md, "Seen from outside"), registered on the app's registry (MetricsService's)
 * and read from the live stats and the breakers when scraped, so a call costs no prom-client update:
 * - switchyard_deployment_calls_total{deployment, outcome}: upstream attempts by outcome (success, fault,
 *   rate_limited, neutral);
 * - switchyard_deployment_errors_total{deployment, kind}: the faults and 429s among them;
 * - switchyard_deployment_breaker_state{deployment}: 0 closed, 1 half-open, 2 open, 3 forced open;
 * - switchyard_deployment_in_flight{deployment}: attempts in flight on this instance;
 * - switchyard_deployment_ttfb_seconds{deployment}: a histogram of the time to the provider's first byte.
 * Labels are the catalog's `provider/upstreamModel` keys: as bounded as the catalog.
 */
export function registerRoutingMetrics(registry: Registry, sources: RoutingMetricsSources): void {
  const { stats } = sources;
  const now = sources.now ?? Date.now;
  const keys = () => new Set([...sources.deployments(), ...stats.totals().map(([key]) => key)]);
  new Counter({
    name: 'switchyard_deployment_calls_total',
    help: 'Upstream attempts per deployment (provider/upstream model), by outcome',
    labelNames: ['deployment', 'outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [deployment, totals] of stats.totals())
        for (const [outcome, count] of Object.entries(totals.attempts))
          if (count) this.inc({ deployment, outcome }, count);
    },
  });
  new Counter({
    name: 'switchyard_deployment_errors_total',
    help: 'Upstream attempts per deployment that failed by its fault or were rate limited (429)',
    labelNames: ['deployment', 'kind'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [deployment, totals] of stats.totals()) {
        if (totals.attempts.fault) this.inc({ deployment, kind: 'fault' }, totals.attempts.fault);
        if (totals.attempts.rate_limited) this.inc({ deployment, kind: 'rate_limited' }, totals.attempts.rate_limited);
      }
    },
  });
  new Gauge({
    name: 'switchyard_deployment_breaker_state',
    help: 'Circuit breaker of each deployment: 0 closed, 1 half-open, 2 open, 3 forced open',
    labelNames: ['deployment'],
    registers: [registry],
    collect() {
      this.reset();
      const at = now();
      for (const deployment of keys())
        this.set({ deployment }, BREAKER_STATE_VALUE[phaseOf(sources.breaker(deployment), at)]);
    },
  });
  new Gauge({
    name: 'switchyard_deployment_in_flight',
    help: 'Upstream attempts in flight per deployment, on this instance',
    labelNames: ['deployment'],
    registers: [registry],
    collect() {
      this.reset();
      for (const deployment of keys()) this.set({ deployment }, stats.load(deployment).inFlight);
    },
  });
  const name = 'switchyard_deployment_ttfb_seconds';
  const help = "Time to the provider's first byte per deployment";
  const ttfb = () => {
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const [deployment, totals] of stats.totals()) {
      let cumulative = 0;
      totals.ttfbBuckets.forEach((n, i) => {
        cumulative += n;
        const le = i < LATENCY_BUCKETS.length ? LATENCY_BUCKETS[i] : '+Inf';
        values.push({ labels: { deployment, le }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push({ labels: { deployment }, value: totals.ttfbSeconds, metricName: `${name}_sum` });
      values.push({ labels: { deployment }, value: cumulative, metricName: `${name}_count` });
    }
    return values;
  };
  // A histogram read from the stats' buckets at scrape time (as CallTotals registers the call duration).
  registry.registerMetric({
    name,
    help,
    type: 'histogram',
    aggregator: 'sum',
    get: () => ({ name, help, type: 'histogram', aggregator: 'sum', values: ttfb() }),
    reset: () => undefined,
  } as never);
}
