import { randomInt } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { ApiKeyCreatedResponse, ApiKeyResponse } from '@switchyard/shared-dto';
import type { KeyLimitsUpdateDto } from '@switchyard/shared-dto/validation';
import { sha256 } from '../../common/crypto';
import { limitChanges, limitsOf } from '../../common/spend-limits';
import { InvalidationBus } from '../../common/redis/invalidation-bus';
import { TtlCache } from '../../common/ttl-cache';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import type { ApiKeyEntity } from './entities/api-key.entity';
import { KeysErrorCode, KeysException } from './keys.exception';
import { ActiveKey, KeysRepository } from './keys.repository';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** docs/decisions.md#names-and-defaults: the prefix and 48 random base62 characters (about 285 bits). */
const KEY_RANDOM_LENGTH = 48;
const MAX_ACTIVE_KEYS = 100;
const POSITIVE_TTL_MS = 60_000;
const NEGATIVE_TTL_MS = 5_000;
const TOUCH_INTERVAL_MS = 5_000;

export function maskKey(start: string, end: string): string {
  return `${start}…${end}`;
}

function toResponse(key: ApiKeyEntity): ApiKeyResponse {
  return {
    id: key.id,
    name: key.name,
    token: maskKey(key.keyStart, key.keyEnd),
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    status: key.revokedAt ? 'Revoked' : 'Active',
    limits: limitsOf(key),
    requestsPerMinute: key.rateLimitRpm,
  };
}

/**
 * The invalidation-bus topic of API keys (created, revoked, limits changed); its id is the key's hash. Usage's
 * reservations listen too: a lease taken before the change is given back.
 */
export const API_KEYS_TOPIC = 'api-key';

@Injectable()
export class KeysService implements OnModuleInit, BeforeApplicationShutdown {
  // Hot-path cache by key hash; `null` remembers an unknown key briefly so a flood of bad keys stays cheap.
  private readonly cache = new TtlCache<ActiveKey | null>(50_000);
  private readonly used = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly logger = new Logger('Keys');

  constructor(
    private readonly repository: KeysRepository,
    private readonly bus: InvalidationBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.bus.on(API_KEYS_TOPIC, (keyHash) => this.cache.delete(keyHash));
    this.timer = setInterval(() => void this.flushTouches(), TOUCH_INTERVAL_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flushTouches();
  }

  async create(userId: string, name: string): Promise<ApiKeyCreatedResponse> {
    if ((await this.repository.countActive(userId)) >= MAX_ACTIVE_KEYS)
      throw new KeysException(
        KeysErrorCode.KEY_LIMIT_REACHED,
        `At most ${MAX_ACTIVE_KEYS} active keys; revoke one first`,
      );
    const key =
      this.config.apiKeyPrefix + Array.from({ length: KEY_RANDOM_LENGTH }, () => BASE62[randomInt(62)]).join('');
    const keyHash = sha256(key);
    const row = await this.repository.insert({
      userId,
      name,
      keyHash,
      keyStart: key.slice(0, 12),
      keyEnd: key.slice(-4),
    });
    // A lookup of this key may have been cached as unknown a moment ago (vanishingly unlikely, but cheap to rule out).
    await this.bus.publish(API_KEYS_TOPIC, keyHash);
    return { id: row.id, name: row.name, key, createdAt: row.createdAt.toISOString(), status: 'Active' };
  }

  async list(userId: string): Promise<ApiKeyResponse[]> {
    return (await this.repository.listByOwner(userId)).map(toResponse);
  }

  /** Revokes at once on every instance: the row first, then every instance's cache. Idempotent. */
  async revoke(userId: string, id: string): Promise<ApiKeyResponse> {
    const key = await this.owned(userId, id);
    await this.repository.revoke(userId, id);
    await this.bus.publish(API_KEYS_TOPIC, key.keyHash);
    return toResponse((await this.repository.findOwned(userId, id))!);
  }

  /** Sets or clears a key's spend limits (omitted fields unchanged); they apply from the next call. */
  async setLimits(userId: string, id: string, limits: KeyLimitsUpdateDto): Promise<ApiKeyResponse> {
    const key = await this.owned(userId, id);
    const { requestsPerMinute, ...money } = limits;
    const changes = {
      ...limitChanges(money),
      ...(requestsPerMinute !== undefined ? { rateLimitRpm: requestsPerMinute } : {}),
    };
    await this.repository.setLimits(userId, id, changes);
    // Every instance reads the key again (the hot path caches it with its rate limit) and gives back the budget
    // it leased for calls of it, so the new limits hold from the next call.
    await this.bus.publish(API_KEYS_TOPIC, key.keyHash);
    return toResponse((await this.repository.findOwned(userId, id))!);
  }

  /** The caller's key, or KEY_NOT_FOUND — also for another user's key, so ids cannot be probed. */
  private async owned(userId: string, id: string): Promise<ApiKeyEntity> {
    const key = /^[0-9a-f-]{36}$/i.test(id) ? await this.repository.findOwned(userId, id) : null;
    if (!key) throw new KeysException(KeysErrorCode.KEY_NOT_FOUND, 'No such API key');
    return key;
  }

  isApiKey(secret: string): boolean {
    return secret.startsWith(this.config.apiKeyPrefix);
  }

  /** The key's owner, or null when it is unknown or revoked. Cached; revocation invalidates the cache. */
  async resolve(secret: string): Promise<ActiveKey | null> {
    if (secret.length !== this.config.apiKeyPrefix.length + KEY_RANDOM_LENGTH) return null;
    const keyHash = sha256(secret);
    const cached = this.cache.get(keyHash);
    if (cached !== undefined) return cached;
    const key = await this.repository.findActiveByHash(keyHash);
    this.cache.set(keyHash, key, key ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS);
    return key;
  }

  /** Notes a use; last_used_at is written in batches, off the hot path. */
  markUsed(keyId: string): void {
    this.used.add(keyId);
  }

  /** Never throws (it runs from a timer): a failed write is logged and its keys retried at the next flush. */
  async flushTouches(): Promise<void> {
    if (!this.used.size) return;
    const ids = [...this.used];
    this.used.clear();
    try {
      await this.repository.touch(ids);
    } catch (error) {
      this.logger.warn(`recording last use of ${ids.length} keys failed: ${(error as Error).message}`);
      for (const id of ids) this.used.add(id);
    }
  }
}
