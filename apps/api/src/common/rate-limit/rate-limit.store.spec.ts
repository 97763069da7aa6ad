import Redis from 'ioredis';
import { randomBytes } from 'node:crypto';
import { MemoryRateLimitStore, RateLimitStore, RedisRateLimitStore } from './rate-limit.store';

function behavesAsAFixedWindow(
  name: string,
  make: () => { store: RateLimitStore; advance: (ms: number) => Promise<void> },
) {
  describe(name, () => {
    it('counts hits in a window, resets after it, and can be reset', async () => {
      const { store, advance } = make();
      expect((await store.hit('k', 200)).count).toBe(1);
      const second = await store.hit('k', 200);
      expect(second.count).toBe(2);
      expect(second.resetInMs).toBeGreaterThan(0);
      expect(second.resetInMs).toBeLessThanOrEqual(200);
      expect((await store.peek('k')).count).toBe(2);
      expect((await store.peek('other')).count).toBe(0);
      await advance(250);
      expect((await store.peek('k')).count).toBe(0);
      expect((await store.hit('k', 200)).count).toBe(1);
      await store.reset('k');
      expect((await store.peek('k')).count).toBe(0);
    });
  });
}

let clock = 0;
behavesAsAFixedWindow('MemoryRateLimitStore', () => {
  clock = 1_000;
  return {
    store: new MemoryRateLimitStore(() => clock),
    advance: async (ms) => {
      clock += ms;
    },
  };
});

const withRedis = process.env.REDIS_URL ? describe : describe.skip;
withRedis('RedisRateLimitStore (REDIS_URL)', () => {
  const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true });
  afterAll(() => redis.quit());
  behavesAsAFixedWindow('on a real Redis', () => ({
    store: new RedisRateLimitStore(redis, `sy-test-${randomBytes(4).toString('hex')}:`),
    advance: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  }));

  it('counts every one of 200 concurrent hits exactly once', async () => {
    const store = new RedisRateLimitStore(redis, `sy-test-${randomBytes(4).toString('hex')}:`);
    const counts = await Promise.all(Array.from({ length: 200 }, () => store.hit('burst', 10_000)));
    expect(new Set(counts.map((c) => c.count)).size).toBe(200);
    expect((await store.peek('burst')).count).toBe(200);
  });

  it('does the same on an auto-pipelined connection (as the app opens it), on a server that never saw the script', async () => {
    const pipelined = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true });
    try {
      await pipelined.script('FLUSH');
      const store = new RedisRateLimitStore(pipelined, `sy-test-${randomBytes(4).toString('hex')}:`);
      const counts = await Promise.all(Array.from({ length: 200 }, () => store.hit('burst', 10_000)));
      expect(new Set(counts.map((c) => c.count)).size).toBe(200);
      expect(Math.max(...counts.map((c) => c.count))).toBe(200);
      expect(counts.every((c) => c.resetInMs > 0 && c.resetInMs <= 10_000)).toBe(true);
    } finally {
      await pipelined.quit();
    }
  });
});
