import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import Redis from 'ioredis';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';

/** Holds the shared Redis connection when REDIS_URL is set; `client` is null otherwise (in-process mode). */
@Injectable()
export class RedisConnection implements OnApplicationShutdown {
  readonly client: Redis | null;
  private readonly logger = new Logger('Redis');

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    this.client = config.redisUrl
      ? // Commands issued in the same tick (rate-limit hits of concurrent calls) leave in one write.
        new Redis(config.redisUrl, {
          maxRetriesPerRequest: 2,
          enableOfflineQueue: true,
          lazyConnect: false,
          enableAutoPipelining: true,
        })
      : null;
    // ioredis reconnects by itself; log the reason without the URL (it may hold a password).
    this.client?.on('error', (error) => this.logger.warn(`Redis error: ${error.message}`));
  }

  async ping(): Promise<boolean> {
    if (!this.client) return true;
    try {
      return (await this.client.ping()) === 'PONG';
    } catch {
      return false;
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.client?.quit().catch(() => this.client?.disconnect());
  }
}
