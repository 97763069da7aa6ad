import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { MetricsService } from '../../../common/metrics/metrics';
import { InvalidationBus } from '../../../common/redis/invalidation-bus';
import { RedisConnection } from '../../../common/redis/redis-connection';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import { CatalogService } from '../catalog/catalog.service';
import type { Deployment } from '../catalog/catalog.types';
import { DeploymentStats } from './deployment-stats';
import { RedisHealthStore } from './redis-health-store';
import { Router, routingStore } from './router';
import { registerRoutingMetrics } from './routing-metrics';

/** How often this instance's per-minute counts are added to the shared ones (with REDIS_URL). */
const SYNC_MS = 1_000;

/**
 * The app's Router (router.ts): its breakers in Redis when REDIS_URL is set (else in process), its per-deployment
 * metrics on the app's registry, the catalog's breakers read at start and the per-minute counts shared every second.
 */
@Injectable()
export class RoutingService extends Router implements OnModuleInit, OnApplicationShutdown {
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly catalog: CatalogService,
    redis: RedisConnection,
    bus: InvalidationBus,
    @Inject(APP_CONFIG) config: AppConfig,
    metrics: MetricsService,
  ) {
    const logger = new Logger('Routing');
    super(routingStore(redis.client, config.redisPrefix, bus), new DeploymentStats(), {
      warn: (what, error) => logger.warn(`breaker ${what} failed: ${error.message}`),
    });
    registerRoutingMetrics(metrics.registry, {
      stats: this.stats,
      breaker: (key) => this.store.breaker(key),
      deployments: () => this.deployments().map((d) => d.key),
    });
  }

  onModuleInit(): void {
    const store = this.store;
    if (!(store instanceof RedisHealthStore)) return;
    // Not awaited: start-up never waits on Redis for this; calls until it is read see the breakers closed.
    void store.warm(this.deployments().map((d) => d.key)).catch((error: Error) => this.warn('read', error));
    this.timer = setInterval(() => {
      const limited = this.deployments()
        .filter((d) => d.rpm !== null || d.tpm !== null)
        .map((d) => d.key);
      store.syncMinutes(this.stats, limited).catch((error: Error) => this.warn('sync', error));
    }, SYNC_MS);
    this.timer.unref();
  }

  onApplicationShutdown(): void {
    clearInterval(this.timer);
  }

  private deployments(): Deployment[] {
    return [...this.catalog.current.models.values()].flatMap((model) => model.deployments);
  }
}
