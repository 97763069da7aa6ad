import { randomInt } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { type ApiKeyCreatedResponse, type ApiKeyResponse, DASHBOARD_KEY_NAME } from '@switchyard/shared-dto';
import type { KeyCreateDto, KeyLimitsUpdateDto } from '@switchyard/shared-dto/validation';
import { sha256 } from '../../common/crypto';
import { limitChanges, limitsOf } from '../../common/spend-limits';
import { InvalidationBus } from '../../common/redis/invalidation-bus';
import { API_KEYS_TOPIC } from '../../common/redis/topics';
import { AccountCredentials, AccountDeletion } from '../accounts';
import { SpendReadService } from '../usage';
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

const NO_SPEND = { thisMonth: 0, allTime: 0 };

function statusOf(key: Pick<ApiKeyEntity, 'revokedAt' | 'expiresAt'>): ApiKeyResponse['status'] {
  if (key.revokedAt) return 'Revoked';
  return key.expiresAt && key.expiresAt.getTime() <= Date.now() ? 'Expired' : 'Active';
}

function toResponse(key: ApiKeyEntity, spend: ApiKeyResponse['spend']): ApiKeyResponse {
  return {
    id: key.id,
    name: key.name,
    token: maskKey(key.keyStart, key.keyEnd),
    createdAt: key.createdAt.toISOString(),
    lastUsedAt: key.lastUsedAt?.toISOString() ?? null,
    status: statusOf(key),
    expiresAt: key.expiresAt?.toISOString() ?? null,
    dashboard: key.dashboard,
    limits: limitsOf(key),
    requestsPerMinute: key.rateLimitRpm,
    spend,
  };
}

/** A new secret: the prefix and KEY_RANDOM_LENGTH base62 characters, with what is stored of it. */
function newSecret(prefix: string) {
  const key = prefix + Array.from({ length: KEY_RANDOM_LENGTH }, () => BASE62[randomInt(62)]).join('');
  return { key, keyHash: sha256(key), keyStart: key.slice(0, 12), keyEnd: key.slice(-4) };
}

export { API_KEYS_TOPIC };

/** The key, unless it has expired. */
const live = (key: ActiveKey | null): ActiveKey | null =>
  key && (key.expiresAt === null || key.expiresAt > Date.now()) ? key : null;

@Injectable()
export class KeysService implements OnModuleInit, BeforeApplicationShutdown {
  // Hot-path cache by key hash; `null` remembers an unknown key briefly so a flood of bad keys stays cheap.
  private readonly cache = new TtlCache<ActiveKey | null>(50_000);
  /** Each user's dashboard key's hash, so its cached entry (dropped by the bus like any key's) is found. */
  private readonly dashboardHashes = new TtlCache<string>(50_000);
  private readonly used = new Set<string>();
  private timer: NodeJS.Timeout | undefined;
  private readonly logger = new Logger('Keys');

  constructor(
    private readonly repository: KeysRepository,
    private readonly bus: InvalidationBus,
    private readonly spendReads: SpendReadService,
    private readonly deletion: AccountDeletion,
    private readonly credentials: AccountCredentials,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.bus.on(API_KEYS_TOPIC, (keyHash) => this.cache.delete(keyHash));
    this.deletion.register('revoke every API key', async (userId) => void (await this.revokeAll(userId)));
    this.credentials.register('apiKeys', {
      revokeAll: (userId) => this.revokeAll(userId),
      forget: (userId) => this.forgetAll(userId),
    });
    this.timer = setInterval(() => void this.flushTouches(), TOUCH_INTERVAL_MS);
    this.timer.unref();
  }

  async beforeApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flushTouches();
  }

  /** A new key with its limits and expiry, if given; the secret is in this answer only. */
  async create(userId: string, dto: KeyCreateDto): Promise<ApiKeyCreatedResponse> {
    if ((await this.repository.countActive(userId)) >= MAX_ACTIVE_KEYS)
      throw new KeysException(
        KeysErrorCode.KEY_LIMIT_REACHED,
        `At most ${MAX_ACTIVE_KEYS} active keys; revoke one first`,
      );
    const { name, expiresAt, requestsPerMinute, ...money } = dto;
    const { key, ...stored } = newSecret(this.config.apiKeyPrefix);
    const row = await this.repository.insert({
      userId,
      name,
      ...stored,
      ...limitChanges(money),
      rateLimitRpm: requestsPerMinute ?? null,
      expiresAt: expiresAt ? new Date(expiresAt) : null,
    });
    // A lookup of this key may have been cached as unknown a moment ago (vanishingly unlikely, but cheap to rule out).
    await this.bus.publish(API_KEYS_TOPIC, stored.keyHash);
    return {
      id: row.id,
      name: row.name,
      key,
      createdAt: row.createdAt.toISOString(),
      status: 'Active',
      expiresAt: row.expiresAt?.toISOString() ?? null,
    };
  }

  /** The user's keys, newest first, each with its spend (one grouped query for all of them). */
  async list(userId: string): Promise<ApiKeyResponse[]> {
    const [keys, spend] = await Promise.all([this.repository.listByOwner(userId), this.spendReads.keySpend(userId)]);
    return keys.map((key) => toResponse(key, spend.get(key.id) ?? NO_SPEND));
  }

  /** Revokes at once on every instance: the row first, then every instance's cache. Idempotent. */
  async revoke(userId: string, id: string): Promise<ApiKeyResponse> {
    const key = await this.owned(userId, id);
    await this.repository.revoke(userId, id);
    await this.bus.publish(API_KEYS_TOPIC, key.keyHash);
    return this.answer(userId, id);
  }

  /** Revokes every key of the user at once on every instance (a deleted account, or asked for); answers how many. */
  async revokeAll(userId: string): Promise<number> {
    const hashes = await this.repository.revokeAll(userId);
    for (const keyHash of hashes) await this.bus.publish(API_KEYS_TOPIC, keyHash);
    return hashes.length;
  }

  /** Every instance drops its cached lookups of the user's keys (the account was disabled or enabled again). */
  async forgetAll(userId: string): Promise<void> {
    for (const keyHash of await this.repository.hashesOf(userId)) await this.bus.publish(API_KEYS_TOPIC, keyHash);
  }

  /** Renames a key; activity lists name later calls after the new name. */
  async rename(userId: string, id: string, name: string): Promise<ApiKeyResponse> {
    const key = await this.owned(userId, id);
    await this.repository.rename(userId, id, name);
    // The hot path caches the name (calls are recorded under it): every instance reads it again.
    await this.bus.publish(API_KEYS_TOPIC, key.keyHash);
    return this.answer(userId, id);
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
    return this.answer(userId, id);
  }

  private async answer(userId: string, id: string): Promise<ApiKeyResponse> {
    const [key, spend] = await Promise.all([this.repository.findOwned(userId, id), this.spendReads.keySpend(userId)]);
    return toResponse(key!, spend.get(id) ?? NO_SPEND);
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

  /**
   * The key's owner, or null when it is unknown, revoked or expired. Cached; revocation invalidates the cache on
   * every instance, and expiry is compared with the clock on every call, cached or not.
   */
  async resolve(secret: string): Promise<ActiveKey | null> {
    if (secret.length !== this.config.apiKeyPrefix.length + KEY_RANDOM_LENGTH) return null;
    const keyHash = sha256(secret);
    let key = this.cache.get(keyHash);
    if (key === undefined) {
      key = await this.repository.findActiveByHash(keyHash);
      this.cache.set(keyHash, key, key ? POSITIVE_TTL_MS : NEGATIVE_TTL_MS);
    }
    return live(key);
  }

  /**
   * The user's dashboard key (the credential of the dashboard's session gateway, docs/dashboard.md): made on first
   * use, one per user even under concurrency, named "Dashboard", listed, capped and billed like any key. Its
   * secret is drawn and dropped: only its hash is stored, so it is no bearer credential anyone holds. Null when
   * it has expired (a revoked one is replaced by a new one on the next call).
   */
  async dashboardKey(userId: string): Promise<ActiveKey | null> {
    const hash = this.dashboardHashes.get(userId);
    const cached = hash === undefined ? undefined : this.cache.get(hash);
    if (cached) return live(cached);
    const { keyHash, keyStart, keyEnd } = newSecret(this.config.apiKeyPrefix);
    const key = await this.repository.dashboardKey({ userId, name: DASHBOARD_KEY_NAME, keyHash, keyStart, keyEnd });
    this.cache.set(key.keyHash, key, POSITIVE_TTL_MS);
    this.dashboardHashes.set(userId, key.keyHash, POSITIVE_TTL_MS);
    return live(key);
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
