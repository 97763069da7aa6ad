import { slowPool, ticks } from '../../../../test/support/slow-pool';
import { MetricsService } from '../../../common/metrics/metrics';
import { InvalidationBus } from '../../../common/redis/invalidation-bus';
import { RedisConnection } from '../../../common/redis/redis-connection';
import { loadConfig } from '../../../config/config';
import { ReservationService } from './reservation.service';
import { ReservationsRepository } from './reservations.repository';

function budgetOn(db: ReturnType<typeof slowPool>): ReservationService {
  const config = loadConfig({});
  return new ReservationService(
    new ReservationsRepository(db.dataSource),
    new MetricsService(),
    new InvalidationBus(new RedisConnection(config), config),
    config,
  );
}

const held = (id: string) => ({
  id,
  amountMicros: 100,
  request: {
    id,
    requestId: null,
    userId: 'u',
    apiKeyId: null,
    oauthClientId: null,
    worstMicros: 100,
    minimumMicros: 1,
    inputEstimateMicros: 0,
  },
});

describe('ReservationService settlement batches', () => {
  it('writes the settlements queued when a batch starts; latecomers wait for the next interval, not the next round trip', async () => {
    const db = slowPool();
    const budget = budgetOn(db);
    const settled = ['r1', 'r2', 'r3'].map((id) => budget.settle(held(id), 10, 'success'));
    const first = budget.flushSettlements();
    await ticks();
    expect(db.writes).toEqual([['r1', 'r2', 'r3']]);
    settled.push(budget.settle(held('r4'), 10, 'success'), budget.settle(held('r5'), 10, 'success'));
    db.answerNext();
    await first;
    await ticks();
    expect(db.writes).toHaveLength(1);
    // The interval (20 ms) started by the first latecomer writes them.
    await new Promise((resolve) => setTimeout(resolve, 40));
    expect(db.writes).toEqual([
      ['r1', 'r2', 'r3'],
      ['r4', 'r5'],
    ]);
    db.answerNext();
    await Promise.all(settled);
  });
});

/** The database's edge: a ledger whose statements answer as the test says. */
function fakeLedger() {
  const calls: { what: string; ids: string[] }[] = [];
  const ledger = {
    failWith: null as null | ((ids: string[]) => Error | null),
    reserveCount: 0,
    settleMany: async (items: { id: string; costMicros: number }[]) => {
      calls.push({ what: 'settleMany', ids: items.map((i) => i.id) });
      const error = ledger.failWith?.(items.map((i) => i.id));
      if (error) throw error;
      return new Map(items.map((i) => [i.id, i.costMicros]));
    },
    settleLeased: async (items: { id: string; costMicros: number }[]) => {
      calls.push({ what: 'settleLeased', ids: items.map((i) => i.id) });
      const error = ledger.failWith?.(items.map((i) => i.id));
      if (error) throw error;
      return new Map(items.map((i) => [i.id, i.costMicros]));
    },
    settle: async (id: string) => {
      calls.push({ what: 'settle', ids: [id] });
      return 0;
    },
    reserve: async (input: { worstMicros: number }) => {
      ledger.reserveCount += 1;
      return {
        amountMicros: input.worstMicros,
        remainingMicros: 1e9,
        balanceMicros: 1e9,
        headroomMicros: 1e9,
        tripped: null,
      };
    },
    extend: async () => undefined,
    expired: async () => [],
    countOpen: async () => 0,
  };
  return { ledger, calls };
}

function budgetWith(ledger: ReturnType<typeof fakeLedger>['ledger']): ReservationService {
  const config = loadConfig({});
  return new ReservationService(
    ledger as unknown as ReservationsRepository,
    new MetricsService(),
    new InvalidationBus(new RedisConnection(config), config),
    config,
  );
}

const connectionLost = () => Object.assign(new Error('Connection terminated unexpectedly'), { code: undefined });
const settled = async (promise: Promise<number>, ms = 5000) =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

describe('ReservationService never drops a settlement', () => {
  it('isolates a row that fails its batch: every other row is written at once, the bad one once it can be', async () => {
    const { ledger, calls } = fakeLedger();
    let poisoned = true;
    ledger.failWith = (ids) =>
      poisoned && ids.includes('bad') ? Object.assign(new Error('violates check constraint'), { code: '23514' }) : null;
    const budget = budgetWith(ledger);
    const good = ['r1', 'r2', 'r3', 'r4', 'r5'].map((id) => budget.settle(held(id), 10, 'success'));
    const bad = budget.settle(held('bad'), 20, 'success');
    await budget.flushSettlements();
    expect(await Promise.all(good)).toEqual([10, 10, 10, 10, 10]);
    expect(await settled(bad, 20)).toBe('pending');
    expect(budget.unwrittenSettlements).toBe(1);
    // Split in halves until the bad row stood alone.
    expect(calls.filter((call) => call.ids.length === 1 && call.ids[0] === 'bad').length).toBeGreaterThanOrEqual(1);
    poisoned = false;
    expect(await settled(bad)).toBe(20);
    expect(budget.unwrittenSettlements).toBe(0);
  });

  it('tries a batch the database refused again, with back-off, until it is written (no give-up after three tries)', async () => {
    const { ledger, calls } = fakeLedger();
    let failures = 6;
    ledger.failWith = () => (failures-- > 0 ? connectionLost() : null);
    const budget = budgetWith(ledger);
    const all = ['a', 'b', 'c'].map((id) => budget.settle(held(id), 7, 'success'));
    await budget.flushSettlements();
    expect(await settled(Promise.all(all).then(() => 0))).toBe(0);
    expect(await Promise.all(all)).toEqual([7, 7, 7]);
    // Whole batches each time: a lost connection is not the rows' fault.
    expect(calls.filter((call) => call.what === 'settleMany').every((call) => call.ids.length === 3)).toBe(true);
    expect(calls.filter((call) => call.what === 'settleMany')).toHaveLength(7);
  });

  it('gives a lease back only once the calls drawn on it are written', async () => {
    const { ledger, calls } = fakeLedger();
    const budget = budgetWith(ledger);
    const request = (id: string) => ({
      id,
      requestId: null,
      userId: 'u',
      apiKeyId: 'k',
      oauthClientId: null,
      worstMicros: 100,
      minimumMicros: 1,
      inputEstimateMicros: 0,
    });
    // 20 calls within a second make the credential busy: a lease is taken off the calls' path.
    for (let i = 0; i < 20; i += 1) await budget.reserve(request(`db-${i}`));
    await ticks();
    const drawn = await budget.reserve(request('leased-call'));
    expect(drawn.lease).toBeDefined();
    ledger.failWith = (ids) => (ids.includes('leased-call') ? connectionLost() : null);
    const written = budget.settle(drawn, 60, 'success');
    // Credentials change (a key revoked): the lease retires at once...
    (budget as unknown as { retireAllLeases(): void }).retireAllLeases();
    await budget.flushSettlements();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // ...but is not given back while its call's cost is unwritten.
    expect(calls.some((call) => call.what === 'settle')).toBe(false);
    ledger.failWith = null;
    expect(await settled(written)).toBe(60);
    await ticks();
    expect(calls.filter((call) => call.what === 'settle')).toHaveLength(1);
  });
});
