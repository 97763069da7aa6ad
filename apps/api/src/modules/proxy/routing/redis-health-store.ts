import { randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { type BreakerPolicy, CLOSED, DEFAULT_BREAKER_POLICY, type SharedBreaker } from './breaker';
import type { DeploymentStats } from './deployment-stats';
import { HealthStore, type Versioned } from './health-store';

/** The invalidation bus's topic that says "this deployment's breaker changed" (common/redis/invalidation-bus.ts). */
export const BREAKER_TOPIC = 'routing-breaker';

/** What the store needs of the invalidation bus: a topic to publish on and to listen to. */
export interface Bus {
  on(topic: string, handler: (id: string) => void): void;
  publish(topic: string, id: string): Promise<void>;
}

/** How long a closed breaker's entry (and its version) outlives its last change, and an open one its cooldown. */
const KEEP_MS = 3_600_000;
/** A minute's shared counts are kept a little past the minute. */
const MINUTE_KEEP_MS = 120_000;

// Compare-and-set on the version: a conflict returns what is stored (HGETALL; empty when absent: closed, version 0).
const WRITE_SCRIPT = `
local v = tonumber(redis.call('HGET', KEYS[1], 'v') or '0')
if v ~= tonumber(ARGV[1]) then return redis.call('HGETALL', KEYS[1]) end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'until', ARGV[3], 'level', ARGV[4], 'reason', ARGV[5], 'v', v + 1)
if tonumber(ARGV[6]) > 0 then redis.call('PEXPIRE', KEYS[1], ARGV[6]) else redis.call('PERSIST', KEYS[1]) end
return 1`;

// Frees the probe only if this caller still holds it (its lease may have expired and been taken by another).
const RELEASE_SCRIPT = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0`;

type Commands = Redis & {
  switchyardBreakerWrite(key: string, ...args: (string | number)[]): Promise<number | string[]>;
  switchyardProbeRelease(key: string, token: string): Promise<number>;
};

/**
 * Breakers shared through Redis: a hash per deployment (`<prefix>breaker:<provider/model>`: state, until, level,
 * reason, version) written compare-and-set by a script, a change announced on the invalidation bus so every instance
 * re-reads it at once, and each entry re-read at most a second after it was last read in any case (a lost message
 * costs at most a second). The half-open probe is a key set NX with an expiry (the lease), so one call among every
 * instance probes. This instance's per-minute counts are added to shared ones every second (syncMinutes).
 */
export class RedisHealthStore extends HealthStore {
  private readonly cache = new Map<string, Versioned & { readAt: number }>();
  private readonly reading = new Map<string, Promise<Versioned>>();
  private readonly probeTokens = new Map<string, string>();
  private readonly probeTakenUntil = new Map<string, number>();
  /** Bumped by every local change of a breaker: a read begun before it is stale and dropped. */
  private readonly epochs = new Map<string, number>();
  private readonly redis: Commands;

  constructor(
    redis: Redis,
    private readonly prefix: string,
    private readonly bus: Bus | null,
    now: () => number = Date.now,
    policy: BreakerPolicy = DEFAULT_BREAKER_POLICY,
    private readonly refreshMs = 1_000,
  ) {
    super(now, policy);
    if (!('switchyardBreakerWrite' in redis)) {
      redis.defineCommand('switchyardBreakerWrite', { numberOfKeys: 1, lua: WRITE_SCRIPT });
      redis.defineCommand('switchyardProbeRelease', { numberOfKeys: 1, lua: RELEASE_SCRIPT });
    }
    this.redis = redis as Commands;
    bus?.on(BREAKER_TOPIC, (key) => void this.refresh(key).catch(() => undefined));
  }

  breaker(key: string): SharedBreaker {
    const entry = this.cache.get(key);
    if (!entry || this.now() - entry.readAt >= this.refreshMs) void this.refresh(key).catch(() => undefined);
    return entry?.shared ?? CLOSED;
  }

  /** Reads these breakers now (at start, so the first calls already see what other instances know). */
  async warm(keys: Iterable<string>): Promise<void> {
    await Promise.all([...keys].map((key) => this.refresh(key)));
  }

  async acquireProbe(key: string, leaseMs: number): Promise<boolean> {
    // A probe found taken is not asked for again for a second: the calls meanwhile skip the deployment without a
    // round trip each, and the probe's outcome reaches this instance on the bus anyway.
    if ((this.probeTakenUntil.get(key) ?? 0) > this.now()) return false;
    const token = randomBytes(12).toString('base64url');
    const set = await this.redis.set(this.probeKey(key), token, 'PX', Math.max(1, Math.ceil(leaseMs)), 'NX');
    if (set !== 'OK') {
      this.probeTakenUntil.set(key, this.now() + this.refreshMs);
      return false;
    }
    this.probeTokens.set(key, token);
    return true;
  }

  async releaseProbe(key: string): Promise<void> {
    const token = this.probeTokens.get(key);
    if (!token) return;
    this.probeTokens.delete(key);
    await this.redis.switchyardProbeRelease(this.probeKey(key), token);
  }

  async read(key: string): Promise<SharedBreaker> {
    return (await this.refresh(key)).shared;
  }

  async syncMinutes(stats: DeploymentStats, limited: Iterable<string>): Promise<void> {
    const pending = stats.pending(limited);
    if (!pending.length) return;
    const pipeline = this.redis.pipeline();
    for (const { key, minute, requests, tokens } of pending) {
      const counter = `${this.prefix}deployment-minute:${minute}:${key}`;
      pipeline
        .hincrby(counter, 'requests', requests)
        .hincrby(counter, 'tokens', tokens)
        .pexpire(counter, MINUTE_KEEP_MS);
    }
    const results = (await pipeline.exec()) ?? [];
    pending.forEach(({ key, minute, requests, tokens }, index) => {
      const [requestsError, totalRequests] = results[index * 3] ?? [];
      const [tokensError, totalTokens] = results[index * 3 + 1] ?? [];
      if (requestsError || tokensError) return;
      stats.shared(key, minute, { requests, tokens }, { requests: Number(totalRequests), tokens: Number(totalTokens) });
    });
  }

  async close(): Promise<void> {
    // The connection is the app's (RedisConnection); probes still held expire with their lease.
  }

  protected known(key: string): Versioned {
    return this.cache.get(key) ?? { shared: CLOSED, version: 0 };
  }

  protected remember(key: string, stored: Versioned): void {
    if (stored.version !== this.known(key).version) this.probeTakenUntil.delete(key);
    this.cache.set(key, { ...stored, readAt: this.now() });
    this.epochs.set(key, (this.epochs.get(key) ?? 0) + 1);
  }

  protected override async fresh(key: string): Promise<Versioned> {
    return this.refresh(key);
  }

  protected async write(key: string, version: number, next: SharedBreaker): Promise<Versioned | null> {
    const keepMs = next.state === 'forced_open' ? 0 : Math.max(0, next.until - this.now()) + KEEP_MS;
    const result = await this.redis.switchyardBreakerWrite(
      this.breakerKey(key),
      version,
      next.state,
      next.until,
      next.level,
      next.reason ?? '',
      keepMs,
    );
    if (result === 1) {
      this.remember(key, { shared: next, version: version + 1 });
      return null;
    }
    return parse(result as string[]);
  }

  protected async announce(key: string): Promise<void> {
    await this.bus?.publish(BREAKER_TOPIC, key);
  }

  /** Re-reads one breaker (one read in flight per breaker) and adopts it. */
  private refresh(key: string): Promise<Versioned> {
    let reading = this.reading.get(key);
    if (!reading) {
      const epoch = this.epochs.get(key) ?? 0;
      reading = this.redis
        .hgetall(this.breakerKey(key))
        .then((fields) => {
          const stored = parse(Object.entries(fields).flat());
          if ((this.epochs.get(key) ?? 0) !== epoch) return this.known(key);
          this.adopt(key, stored);
          return stored;
        })
        .finally(() => this.reading.delete(key));
      this.reading.set(key, reading);
    }
    return reading;
  }

  private breakerKey(key: string): string {
    return `${this.prefix}breaker:${key}`;
  }

  private probeKey(key: string): string {
    return `${this.prefix}breaker-probe:${key}`;
  }
}

/** A stored hash (as HGETALL's flat list) as a breaker; anything unreadable is closed. */
function parse(flat: string[]): Versioned {
  const fields: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) fields[flat[i]] = flat[i + 1];
  const version = Number(fields.v ?? 0) || 0;
  const state = fields.state;
  if (state !== 'open' && state !== 'forced_open') return { shared: CLOSED, version };
  return {
    shared: {
      state,
      until: Number(fields.until) || 0,
      level: Number(fields.level) || 0,
      reason: (fields.reason || null) as SharedBreaker['reason'],
    },
    version,
  };
}
