import type { Counter, Registry } from 'prom-client';

/** What one finished gateway call tells the metrics (a usage record's fields). */
export interface ObservedCall {
  method: string;
  model: string;
  provider: string | null;
  stream: boolean;
  status: string;
  httpStatus: number;
  promptTokens: number;
  completionTokens: number;
  costMicros: number;
  startedAt: Date;
  endedAt: Date;
}

export const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/** One kind of call's running totals (method × outcome × streamed × model). */
interface Totals {
  method: string;
  status: string;
  stream: string;
  model: string;
  calls: number;
  /** Calls per latency bucket (not cumulative); the last one is +Inf. */
  buckets: number[];
  seconds: number;
  promptTokens: number;
  completionTokens: number;
  costMicros: number;
}

/**
 * The gateway's per-call metrics, kept as plain running totals and turned into Prometheus series only when
 * scraped: prom-client validates, sorts and hashes a label set on every update, which cost about 2% of a call's
 * CPU for the five updates of each call. The totals are keyed by catalog model ids, gateway methods and outcome
 * names, so they are as bounded as the catalog.
 */
export class CallTotals {
  private readonly totals = new Map<string, Totals>();

  add(call: ObservedCall): void {
    const stream = call.stream ? 'true' : 'false';
    const key = `${call.method}\n${call.status}\n${stream}\n${call.model}`;
    let totals = this.totals.get(key);
    if (!totals) {
      totals = {
        method: call.method,
        status: call.status,
        stream,
        model: call.model,
        calls: 0,
        buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0),
        seconds: 0,
        promptTokens: 0,
        completionTokens: 0,
        costMicros: 0,
      };
      this.totals.set(key, totals);
    }
    const seconds = (call.endedAt.getTime() - call.startedAt.getTime()) / 1000;
    let bucket = 0;
    while (bucket < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[bucket]) bucket += 1;
    totals.calls += 1;
    totals.buckets[bucket] += 1;
    totals.seconds += seconds;
    totals.promptTokens += call.promptTokens;
    totals.completionTokens += call.completionTokens;
    totals.costMicros += call.costMicros;
  }

  /**
   * Sets a counter (at scrape time) to the totals summed by its labels, for each [labels, value] reading of the
   * totals given; series that would be 0 are left out.
   */
  fill<L extends string>(
    counter: Counter<L>,
    ...readings: [labels: (t: Totals) => Record<L, string>, value: (t: Totals) => number][]
  ): void {
    const sums = new Map<string, { labels: Record<L, string>; value: number }>();
    for (const [labels, value] of readings) {
      for (const totals of this.totals.values()) {
        const v = value(totals);
        if (!v) continue;
        const set = labels(totals);
        const key = Object.values(set).join('\n');
        const sum = sums.get(key);
        if (sum) sum.value += v;
        else sums.set(key, { labels: set, value: v });
      }
    }
    counter.reset();
    for (const { labels: set, value: v } of sums.values()) counter.inc(set as never, v);
  }

  /** Registers the call-duration histogram (by method and streamed), read from the totals at scrape time. */
  registerLatency(registry: Registry, name: string, help: string): void {
    const metric = {
      name,
      help,
      type: 'histogram',
      aggregator: 'sum',
      get: () => ({ name, help, type: 'histogram', aggregator: 'sum', values: this.latencyValues(name) }),
      reset: () => undefined,
    };
    registry.registerMetric(metric as never);
  }

  private latencyValues(
    name: string,
  ): { labels: Record<string, string | number>; value: number; metricName: string }[] {
    const groups = new Map<
      string,
      { method: string; stream: string; buckets: number[]; seconds: number; calls: number }
    >();
    for (const t of this.totals.values()) {
      const key = `${t.method}\n${t.stream}`;
      let group = groups.get(key);
      if (!group)
        groups.set(
          key,
          (group = {
            method: t.method,
            stream: t.stream,
            buckets: new Array<number>(LATENCY_BUCKETS.length + 1).fill(0),
            seconds: 0,
            calls: 0,
          }),
        );
      t.buckets.forEach((n, i) => (group.buckets[i] += n));
      group.seconds += t.seconds;
      group.calls += t.calls;
    }
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const g of groups.values()) {
      let cumulative = 0;
      g.buckets.forEach((n, i) => {
        cumulative += n;
        values.push({
          labels: { method: g.method, stream: g.stream, le: i < LATENCY_BUCKETS.length ? LATENCY_BUCKETS[i] : '+Inf' },
          value: cumulative,
          metricName: `${name}_bucket`,
        });
      });
      values.push({ labels: { method: g.method, stream: g.stream }, value: g.seconds, metricName: `${name}_sum` });
      values.push({ labels: { method: g.method, stream: g.stream }, value: g.calls, metricName: `${name}_count` });
    }
    return values;
  }
}
