import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import type Redis from 'ioredis';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { RedisConnection } from './redis-connection';

type Handler = (id: string) => void;

/**
 * Tells every instance to drop a cached entry (a revoked key, a changed client). Local handlers run at once;
 * with REDIS_URL set the message also goes out on a Redis channel that every instance subscribes to, so a
 * revocation takes effect on every instance within one round trip.
 */
@Injectable()
export class InvalidationBus implements OnModuleInit, OnApplicationShutdown {
  private readonly handlers = new Map<string, Set<Handler>>();
  private subscriber: Redis | null = null;
  private readonly channel: string;
  private readonly logger = new Logger('InvalidationBus');

  constructor(
    private readonly redis: RedisConnection,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.channel = `${config.redisPrefix}invalidate`;
  }

  async onModuleInit(): Promise<void> {
    if (!this.redis.client) return;
    this.subscriber = this.redis.client.duplicate({ enableAutoPipelining: false });
    this.subscriber.on('error', (error) => this.logger.warn(`subscriber error: ${error.message}`));
    this.subscriber.on('message', (_channel: string, message: string) => {
      const separator = message.indexOf(':');
      this.deliver(message.slice(0, separator), message.slice(separator + 1));
    });
    await this.subscriber.subscribe(this.channel);
  }

  on(topic: string, handler: Handler): void {
    if (!this.handlers.has(topic)) this.handlers.set(topic, new Set());
    this.handlers.get(topic)!.add(handler);
  }

  async publish(topic: string, id: string): Promise<void> {
    this.deliver(topic, id);
    await this.redis.client?.publish(this.channel, `${topic}:${id}`);
  }

  private deliver(topic: string, id: string): void {
    for (const handler of this.handlers.get(topic) ?? []) handler(id);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscriber?.quit().catch(() => this.subscriber?.disconnect());
  }
}
