import { timingSafeEqual } from 'node:crypto';
import {
  Controller,
  Get,
  Global,
  Header,
  Headers,
  Inject,
  Injectable,
  Module,
  type OnApplicationShutdown,
} from '@nestjs/common';
import { ApiExcludeEndpoint } from '@nestjs/swagger';
import { Counter, Gauge, Registry } from 'prom-client';
import { CallTotals, type ObservedCall } from './call-totals';
import { startDefaultMetrics } from './default-metrics';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { Access } from '../auth/access.decorator';
import { CommonErrorCode, CommonException } from '../errors/app.exception';

export type { ObservedCall } from './call-totals';

/**
 * Prometheus metrics (prom-client): gateway calls by method and outcome, their latency, upstream errors by
 * provider, tokens and cost by model, and gauges that modules register (reservations open). Labels are bounded:
 * catalog model ids, gateway methods, outcome names; never users, keys or request ids.
 */
@Injectable()
export class MetricsService implements OnApplicationShutdown {
  readonly registry = new Registry();
  private readonly stopDefaultMetrics: () => void;
  /** Each call adds to plain running totals; the series below are read from them when scraped. */
  private readonly totals = new CallTotals();
  private readonly upstreamErrors = new Counter({
    name: 'switchyard_upstream_errors_total',
    help: 'Calls that failed upstream (errors and timeouts), by provider',
    labelNames: ['provider', 'status'],
    registers: [this.registry],
  });

  constructor() {
    const totals = this.totals;
    new Counter({
      name: 'switchyard_gateway_calls_total',
      help: 'Gateway calls that reached a model, by method and outcome',
      labelNames: ['method', 'status'],
      registers: [this.registry],
      collect() {
        totals.fill(this, [(t) => ({ method: t.method, status: t.status }), (t) => t.calls]);
      },
    });
    totals.registerLatency(
      this.registry,
      'switchyard_gateway_call_duration_seconds',
      'Gateway call duration, from request to the last byte',
    );
    new Counter({
      name: 'switchyard_tokens_total',
      help: 'Tokens metered, by model and kind (prompt, completion)',
      labelNames: ['model', 'kind'],
      registers: [this.registry],
      collect() {
        totals.fill(
          this,
          [(t) => ({ model: t.model, kind: 'prompt' }), (t) => t.promptTokens],
          [(t) => ({ model: t.model, kind: 'completion' }), (t) => t.completionTokens],
        );
      },
    });
    new Counter({
      name: 'switchyard_cost_total',
      help: 'Cost charged, in currency units, by model',
      labelNames: ['model'],
      registers: [this.registry],
      collect() {
        totals.fill(this, [(t) => ({ model: t.model }), (t) => t.costMicros / 1e6]);
      },
    });
    this.stopDefaultMetrics = startDefaultMetrics(this.registry, 'switchyard_');
  }

  onApplicationShutdown(): void {
    this.stopDefaultMetrics();
  }

  observeCall(call: ObservedCall): void {
    this.totals.add(call);
    if (call.status === 'upstream_error' || call.status === 'timeout')
      this.upstreamErrors.inc({ provider: call.provider ?? 'unknown', status: call.status });
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
        throw new CommonException(
          CommonErrorCode.UNAUTHENTICATED,
          'Send the metrics token: Authorization: Bearer <METRICS_TOKEN>',
          { headers: { 'WWW-Authenticate': 'Bearer' } },
        );
    }
    return this.metrics.registry.metrics();
  }
}

@Global()
@Module({ controllers: [MetricsController], providers: [MetricsService], exports: [MetricsService] })
export class MetricsModule {}
