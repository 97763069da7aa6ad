import { createHash } from 'node:crypto';
import { Global, Inject, Injectable, Module } from '@nestjs/common';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { RedisConnection } from '../redis/redis-connection';
import { CommonErrorCode, CommonException } from '../errors/app.exception';
import { MemoryRateLimitStore, RateLimitStore, RedisRateLimitStore } from './rate-limit.store';

export interface Limit {
  /** A name for the counter family, e.g. `login-ip`. */
  bucket: string;
  /** Who is counted: an address, an account. Hashed before it is stored. */
  subject: string;
  max: number;
  windowSeconds: number;
}

/** Fixed-window rate limits that answer 429 with Retry-After (docs/decisions.md#accounts-and-sessions). */
@Injectable()
export class RateLimiterService {
  readonly store: RateLimitStore;

  constructor(redis: RedisConnection, @Inject(APP_CONFIG) config: AppConfig) {
    this.store = redis.client
      ? new RedisRateLimitStore(redis.client, `${config.redisPrefix}rl:`)
      : new MemoryRateLimitStore();
  }

  /** Counts one attempt and throws RATE_LIMITED when it is over the limit. */
  async consume(limit: Limit): Promise<void> {
    const { count, resetInMs } = await this.store.hit(this.key(limit), limit.windowSeconds * 1000);
    if (count > limit.max) throw this.limited(resetInMs);
  }

  /** Throws RATE_LIMITED when the counter is already at the limit, without counting. */
  async check(limit: Limit): Promise<void> {
    const { count, resetInMs } = await this.store.peek(this.key(limit));
    if (count >= limit.max) throw this.limited(resetInMs);
  }

  async record(limit: Limit): Promise<void> {
    await this.store.hit(this.key(limit), limit.windowSeconds * 1000);
  }

  async reset(limit: Limit): Promise<void> {
    await this.store.reset(this.key(limit));
  }

  private key(limit: Limit): string {
    return `${limit.bucket}:${createHash('sha256').update(limit.subject).digest('base64url').slice(0, 22)}`;
  }

  private limited(resetInMs: number): CommonException {
    const retryAfter = Math.max(1, Math.ceil(resetInMs / 1000));
    return new CommonException(CommonErrorCode.RATE_LIMITED, `Too many attempts; try again in ${retryAfter} seconds`, {
      headers: { 'Retry-After': String(retryAfter) },
      extra: { retryAfterSeconds: retryAfter },
    });
  }
}

@Global()
@Module({ providers: [RateLimiterService], exports: [RateLimiterService] })
export class RateLimitModule {}
