import { timingSafeEqual } from 'node:crypto';
import { Controller, Get, Global, Header, Headers, Inject, Injectable, Module } from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { Access } from '../auth/access.decorator';
import { CommonErrorCode, CommonException } from '../errors/app.exception';

type Count = ReturnType<Counter['labels']>;

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

/**
 * Prometheus metrics (prom-client): gateway calls by method and outcome, their latency, upstream errors by
 * provider, tokens and cost by model, and gauges that modules register (reservations open). Labels are bounded:
 * catalog model ids, gateway methods, outcome names; never users, keys or request ids.
 */
@Injectable()
export class MetricsService {
  readonly registry = new Registry();
  private readonly calls = new Counter({ name: 'switchyard_gateway_calls_total', help: 'Gateway calls that reached a model, by method and outcome', labelNames: ['method', 'status'], registers: [this.registry] });
  private readonly latency = new Histogram({
    name: 'switchyard_gateway_call_duration_seconds',
    help: 'Gateway call duration, from request to the last byte',
    labelNames: ['method', 'stream'],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  private readonly upstreamErrors = new Counter({ name: 'switchyard_upstream_errors_total', help: 'Calls that failed upstream (errors and timeouts), by provider', labelNames: ['provider', 'status'], registers: [this.registry] });
  private readonly tokens = new Counter({ name: 'switchyard_tokens_total', help: 'Tokens metered, by model and kind (prompt, completion)', labelNames: ['model', 'kind'], registers: [this.registry] });
  private readonly cost = new Counter({ name: 'switchyard_cost_total', help: 'Cost charged, in currency units, by model', labelNames: ['model'], registers: [this.registry] });

  constructor() {
    collectDefaultMetrics({ register: this.registry, prefix: 'switchyard_' });
  }

  /**
   * Each call's series, found by one string key: prom-client would otherwise sort and hash the labels object of
   * every update (several per call, on the gateway's hot path). The labels are bounded, and so is this map.
   */
  private readonly series = new Map<string, { calls: Count; latency: ReturnType<Histogram['labels']>; prompt: Count; completion: Count; cost: Count }>();

  observeCall(call: ObservedCall): void {
    const key = `${call.method}\n${call.status}\n${call.stream}\n${call.model}`;
    let series = this.series.get(key);
    if (!series) {
      if (this.series.size >= 10_000) this.series.clear();
      series = {
        calls: this.calls.labels({ method: call.method, status: call.status }),
        latency: this.latency.labels({ method: call.method, stream: String(call.stream) }),
        prompt: this.tokens.labels({ model: call.model, kind: 'prompt' }),
        completion: this.tokens.labels({ model: call.model, kind: 'completion' }),
        cost: this.cost.labels({ model: call.model }),
      };
      this.series.set(key, series);
    }
    series.calls.inc();
    series.latency.observe((call.endedAt.getTime() - call.startedAt.getTime()) / 1000);
    if (call.status === 'upstream_error' || call.status === 'timeout') this.upstreamErrors.inc({ provider: call.provider ?? 'unknown', status: call.status });
    if (call.promptTokens) series.prompt.inc(call.promptTokens);
    if (call.completionTokens) series.completion.inc(call.completionTokens);
    if (call.costMicros) series.cost.inc(call.costMicros / 1e6);
  }

  /** A gauge read at scrape time (e.g. from the database). A failed read leaves the gauge out of that scrape. */
  registerGauge(name: string, help: string, read: () => Promise<number>): void {
    new Gauge({
      name,
      help,
      registers: [this.registry],
      async collect() {
        this.set(await read());
      },
    });
  }
}

/** `GET /metrics` in Prometheus' text format; with METRICS_TOKEN set, only for `Authorization: Bearer <it>`. */
@Controller()
export class MetricsController {
  constructor(
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  @Get('metrics')
  @Access({ public: true })
  @ApiExcludeEndpoint()
  @Header('Cache-Control', 'no-store')
  async scrape(@Headers('authorization') authorization?: string): Promise<string> {
    const expected = this.config.metricsToken;
    if (expected) {
      const given = Buffer.from(authorization ?? '');
      const wanted = Buffer.from(`Bearer ${expected}`);
      if (given.length !== wanted.length || !timingSafeEqual(given, wanted))
        throw new CommonException(CommonErrorCode.UNAUTHENTICATED, 'Send the metrics token: Authorization: Bearer <METRICS_TOKEN>', { headers: { 'WWW-Authenticate': 'Bearer' } });
    }
    return this.metrics.registry.metrics();
  }
}

@Global()
@Module({ controllers: [MetricsController], providers: [MetricsService], exports: [MetricsService] })
export class MetricsModule {}
