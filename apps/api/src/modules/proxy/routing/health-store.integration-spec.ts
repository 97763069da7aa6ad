import { randomBytes } from 'node:crypto';
import { InvalidationBus } from '../../../common/redis/invalidation-bus';
import { RedisConnection } from '../../../common/redis/redis-connection';
import type { AppConfig } from '../../../config/config.schema';
import { phaseOf, type SharedBreaker } from './breaker';
import { DeploymentStats } from './deployment-stats';
import { type HealthStore, InProcessHealthStore } from './health-store';
import { RedisHealthStore } from './redis-health-store';

const KEY = 'p1/gpt-x';
const fault = { kind: 'fault' } as const;

/** Resolves when the store's breaker for KEY satisfies `test` (at once if it already does): waits on its events. */
function breakerWhere(store: HealthStore, test: (shared: SharedBreaker) => boolean): Promise<SharedBreaker> {
  return new Promise((resolve) => {
    if (test(store.breaker(KEY))) return resolve(store.breaker(KEY));
    const off = store.onChange((key, shared) => {
      if (key !== KEY || !test(shared)) return;
      off();
      resolve(shared);
    });
  });
}

describe('InProcessHealthStore (one instance, no REDIS_URL)', () => {
  let clock: number;
  let store: InProcessHealthStore;
  beforeEach(() => {
    clock = 1_700_000_000_000;
    store = new InProcessHealthStore(() => clock);
  });

  it('opens on faults, admits a single probe until its outcome or its lease ends, and closes on its success', async () => {
    for (let i = 0; i < 3; i += 1) await store.record(KEY, fault);
    expect(store.breaker(KEY)).toMatchObject({ state: 'open', until: clock + 5_000 });
    clock += 5_000;
    const takers = await Promise.all(Array.from({ length: 10 }, () => store.acquireProbe(KEY, 30_000)));
    expect(takers.filter(Boolean)).toHaveLength(1);
    clock += 29_999;
    expect(await store.acquireProbe(KEY, 30_000)).toBe(false);
    clock += 1; // the probe's instance never told: its lease is over, another call may probe
    expect(await store.acquireProbe(KEY, 30_000)).toBe(true);
    await store.record(KEY, { kind: 'success', probe: true });
    expect(store.breaker(KEY).state).toBe('closed');
  });

  it('forced open stays open whatever happens, until forced closed', async () => {
    const seen: string[] = [];
    store.onChange((key, shared) => seen.push(`${key} ${shared.state}`));
    await store.force(KEY, 'open');
    clock += 10 ** 9;
    await store.record(KEY, { kind: 'success', probe: true });
    expect(phaseOf(store.breaker(KEY), clock)).toBe('forced_open');
    await store.force(KEY, 'closed');
    expect(store.breaker(KEY).state).toBe('closed');
    expect(seen).toEqual([`${KEY} forced_open`, `${KEY} closed`]);
  });
});

const withRedis = process.env.REDIS_URL ? describe : describe.skip;
withRedis('RedisHealthStore: two instances on one Redis (REDIS_URL)', () => {
  const prefix = `sy-test-${randomBytes(4).toString('hex')}:`;
  const config = { redisUrl: process.env.REDIS_URL, redisPrefix: prefix } as AppConfig;
  const opened: { connection: RedisConnection; bus: InvalidationBus }[] = [];
  let clock: number;

  /** One instance: its own connection, its own subscription to the bus, its own store, on the shared fake clock. */
  async function instance(options: { bus?: boolean; prefix?: string } = {}): Promise<RedisHealthStore> {
    const connection = new RedisConnection(config);
    const bus = new InvalidationBus(connection, { ...config, redisPrefix: options.prefix ?? prefix });
    await bus.onModuleInit();
    opened.push({ connection, bus });
    return new RedisHealthStore(
      connection.client!,
      options.prefix ?? prefix,
      options.bus === false ? null : bus,
      () => clock,
    );
  }

  beforeEach(() => {
    clock = Date.now();
  });

  afterAll(async () => {
    const cleaner = opened[0]?.connection.client;
    if (cleaner) {
      const keys = await cleaner.keys(`${prefix}*`);
      if (keys.length) await cleaner.del(...keys);
    }
    for (const { connection, bus } of opened) {
      await bus.onApplicationShutdown();
      await connection.onApplicationShutdown();
    }
  });

  it('agree on an open breaker: the other instance hears of it on the bus', async () => {
    const [a, b] = [await instance({ prefix: `${prefix}bus:` }), await instance({ prefix: `${prefix}bus:` })];
    expect(b.breaker(KEY).state).toBe('closed');
    const heard = breakerWhere(b, (shared) => shared.state === 'open');
    for (let i = 0; i < 3; i += 1) await a.record(KEY, fault);
    const seen = await heard;
    expect(seen).toEqual(a.breaker(KEY));
    expect(seen).toMatchObject({ state: 'open', until: clock + 5_000, reason: 'faults' });
    expect(await b.read(KEY)).toEqual(seen);
  });

  it('agree within a second even when the message is lost: a breaker read over a second ago is read again', async () => {
    const p = `${prefix}lost:`;
    const [a, b] = [await instance({ prefix: p }), await instance({ prefix: p, bus: false })];
    expect(await b.read(KEY)).toMatchObject({ state: 'closed' });
    for (let i = 0; i < 3; i += 1) await a.record(KEY, fault);
    expect(b.breaker(KEY).state).toBe('closed'); // read less than a second ago: its copy
    clock += 999;
    expect(b.breaker(KEY).state).toBe('closed');
    clock += 1;
    const heard = breakerWhere(b, (shared) => shared.state === 'open');
    b.breaker(KEY); // a second since it was read: read again
    expect((await heard).until).toBe(a.breaker(KEY).until);
  });

  it('admit one probe among every instance, and a probe’s success closes the breaker for both', async () => {
    const p = `${prefix}probe:`;
    const [a, b] = [await instance({ prefix: p }), await instance({ prefix: p })];
    for (let i = 0; i < 3; i += 1) await a.record(KEY, fault);
    await breakerWhere(b, (shared) => shared.state === 'open');
    clock = a.breaker(KEY).until;
    expect(phaseOf(b.breaker(KEY), clock)).toBe('half_open');
    const tries = await Promise.all(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? a : b).acquireProbe(KEY, 60_000).then((taken) => ({ taken, i }))),
    );
    const winners = tries.filter((t) => t.taken);
    expect(winners).toHaveLength(1);
    const prober = winners[0].i % 2 ? a : b;
    const other = prober === a ? b : a;
    const closed = breakerWhere(other, (shared) => shared.state === 'closed');
    await prober.record(KEY, { kind: 'success', probe: true });
    await closed;
    expect(prober.breaker(KEY).state).toBe('closed');
    // The probe was freed with its outcome.
    expect(await other.acquireProbe(KEY, 60_000)).toBe(true);
    await other.releaseProbe(KEY);
  });

  it('open a breaker once when two instances see its third fault at the same moment', async () => {
    const p = `${prefix}race:`;
    const [a, b] = [await instance({ prefix: p }), await instance({ prefix: p })];
    for (let i = 0; i < 2; i += 1) {
      await a.record(KEY, fault);
      await b.record(KEY, fault);
    }
    const [fromA, fromB] = await Promise.all([a.record(KEY, fault), b.record(KEY, fault)]);
    expect(fromA).toEqual(fromB);
    expect(fromA).toMatchObject({ state: 'open', level: 1 }); // not opened twice (level 2, a longer cooldown)
    expect(await a.read(KEY)).toEqual(fromA);
  });

  it('an instance that has not heard of a change yet never overwrites it (compare-and-set)', async () => {
    const p = `${prefix}stale:`;
    const [a, b] = [await instance({ prefix: p }), await instance({ prefix: p, bus: false })];
    expect(await b.read(KEY)).toMatchObject({ state: 'closed' });
    for (let i = 0; i < 2; i += 1) await b.record(KEY, fault);
    for (let i = 0; i < 3; i += 1) await a.record(KEY, fault);
    const openedByA = a.breaker(KEY);
    clock += 500;
    // b still believes it closed; its third fault would open it again until 500 ms later.
    expect(b.breaker(KEY).state).toBe('closed');
    expect(await b.record(KEY, fault)).toEqual(openedByA);
    expect(await a.read(KEY)).toEqual(openedByA);
  });

  it('a breaker forced open by a third party (the admin command) is skipped by both until forced closed', async () => {
    const p = `${prefix}force:`;
    const [a, b, admin] = [await instance({ prefix: p }), await instance({ prefix: p }), await instance({ prefix: p })];
    const bothOpen = Promise.all([a, b].map((s) => breakerWhere(s, (shared) => shared.state === 'forced_open')));
    await admin.force(KEY, 'open');
    await bothOpen;
    await a.record(KEY, { kind: 'success', probe: true });
    expect(await b.read(KEY)).toMatchObject({ state: 'forced_open' });
    const bothClosed = Promise.all([a, b].map((s) => breakerWhere(s, (shared) => shared.state === 'closed')));
    await admin.force(KEY, 'closed');
    await bothClosed;
  });

  it('share the per-minute request and token counts of a deployment', async () => {
    const p = `${prefix}minute:`;
    const [a, b] = [await instance({ prefix: p }), await instance({ prefix: p })];
    const [statsA, statsB] = [new DeploymentStats(() => clock), new DeploymentStats(() => clock)];
    for (let i = 0; i < 3; i += 1) statsA.end(statsA.start(KEY), 'success', { tokens: 100 });
    for (let i = 0; i < 4; i += 1) statsB.start(KEY);
    await a.syncMinutes(statsA, [KEY]);
    await b.syncMinutes(statsB, [KEY]);
    await a.syncMinutes(statsA, [KEY]);
    expect(statsA.load(KEY)).toMatchObject({ requestsThisMinute: 7, tokensThisMinute: 300 });
    expect(statsB.load(KEY)).toMatchObject({ requestsThisMinute: 7, tokensThisMinute: 300 });
    await b.syncMinutes(statsB, [KEY]); // nothing new: counted once
    expect(statsB.load(KEY).requestsThisMinute).toBe(7);
  });
});
