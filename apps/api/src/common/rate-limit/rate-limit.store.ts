import type Redis from 'ioredis';

export interface WindowCount {
  count: number;
  /** Milliseconds until the window resets. */
  resetInMs: number;
}

/** A fixed-window counter. In-process by default; Redis when several instances must agree. */
export interface RateLimitStore {
  hit(key: string, windowMs: number): Promise<WindowCount>;
  peek(key: string): Promise<WindowCount>;
  reset(key: string): Promise<void>;
}

export class MemoryRateLimitStore implements RateLimitStore {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = this.now();
    this.sweep(now);
    let window = this.windows.get(key);
    if (!window || window.resetAt <= now) {
      window = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, window);
    }
    window.count += 1;
    return { count: window.count, resetInMs: window.resetAt - now };
  }

  async peek(key: string): Promise<WindowCount> {
    const now = this.now();
    const window = this.windows.get(key);
    if (!window || window.resetAt <= now) return { count: 0, resetInMs: 0 };
    return { count: window.count, resetInMs: window.resetAt - now };
  }

  async reset(key: string): Promise<void> {
    this.windows.delete(key);
  }

  // Bounded memory: expired windows are dropped once the map grows.
  private sweep(now: number): void {
    if (this.windows.size < 10_000) return;
    for (const [key, window] of this.windows) if (window.resetAt <= now) this.windows.delete(key);
  }
}

// INCR and the first PEXPIRE in one step, so a crash between them cannot leave a counter without expiry.
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
return {count, ttl}`;

export class RedisRateLimitStore implements RateLimitStore {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {
    // Sent by its SHA (EVALSHA, the script itself only when the server does not know it yet), not with every hit.
    if (!('switchyardRateHit' in redis)) redis.defineCommand('switchyardRateHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
  }

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const redis = this.redis as Redis & { switchyardRateHit(key: string, windowMs: number): Promise<[number, number]> };
    const [count, ttl] = await redis.switchyardRateHit(this.prefix + key, windowMs);
    return { count, resetInMs: Math.max(ttl, 0) };
  }

  async peek(key: string): Promise<WindowCount> {
    const [count, ttl] = await Promise.all([this.redis.get(this.prefix + key), this.redis.pttl(this.prefix + key)]);
    return { count: Number(count ?? 0), resetInMs: Math.max(ttl, 0) };
  }

  async reset(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
  }
}
