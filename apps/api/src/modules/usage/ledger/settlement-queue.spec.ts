import {
  connectionLost,
  fakeReservationsLedger as fakeLedger,
} from '../../../../test/support/fake-reservations-ledger';
import { slowPool, ticks } from '../../../../test/support/slow-pool';
import { MetricsService } from '../../../common/metrics/metrics';
import { InvalidationBus } from '../../../common/redis/invalidation-bus';
import { RedisConnection } from '../../../common/redis/redis-connection';
import { loadConfig } from '../../../config/config';
import { Leases } from './leases';
import { ReservationSweeper } from './reservation-sweeper';
import { ReservationsRepository } from './reservations.repository';
import { SettlementQueue } from './settlement-queue';

/** The settlement queue over `ledger`, with the leases and the sweeper it reports to. */
function queueOn(ledger: ReservationsRepository): SettlementQueue {
  const config = loadConfig({});
  const leases = new Leases(ledger, new InvalidationBus(new RedisConnection(config), config));
  return new SettlementQueue(ledger, leases, new ReservationSweeper(ledger, leases, new MetricsService()));
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

describe('SettlementQueue batches', () => {
  it('writes the settlements queued when a batch starts; latecomers wait for the next interval, not the next round trip', async () => {
    const db = slowPool();
    const queue = queueOn(new ReservationsRepository(db.dataSource));
    const settled = ['r1', 'r2', 'r3'].map((id) => queue.settle(held(id), 10, 'success'));
    const first = queue.flushSettlements();
    await ticks();
    expect(db.writes).toEqual([['r1', 'r2', 'r3']]);
    settled.push(queue.settle(held('r4'), 10, 'success'), queue.settle(held('r5'), 10, 'success'));
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

const settled = async (promise: Promise<number>, ms = 5000) =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

describe('SettlementQueue never drops a settlement', () => {
  it('isolates a row that fails its batch: every other row is written at once, the bad one once it can be', async () => {
    const { ledger, calls } = fakeLedger();
    let poisoned = true;
    ledger.failWith = (ids) =>
      poisoned && ids.includes('bad') ? Object.assign(new Error('violates check constraint'), { code: '23514' }) : null;
    const queue = queueOn(ledger as unknown as ReservationsRepository);
    const good = ['r1', 'r2', 'r3', 'r4', 'r5'].map((id) => queue.settle(held(id), 10, 'success'));
    const bad = queue.settle(held('bad'), 20, 'success');
    await queue.flushSettlements();
    expect(await Promise.all(good)).toEqual([10, 10, 10, 10, 10]);
    expect(await settled(bad, 20)).toBe('pending');
    expect(queue.unwrittenSettlements).toBe(1);
    // Split in halves until the bad row stood alone.
    expect(calls.filter((call) => call.ids.length === 1 && call.ids[0] === 'bad').length).toBeGreaterThanOrEqual(1);
    poisoned = false;
    expect(await settled(bad)).toBe(20);
    expect(queue.unwrittenSettlements).toBe(0);
  });

  it('tries a batch the database refused again, with back-off, until it is written (no give-up after three tries)', async () => {
    const { ledger, calls } = fakeLedger();
    let failures = 6;
    ledger.failWith = () => (failures-- > 0 ? connectionLost() : null);
    const queue = queueOn(ledger as unknown as ReservationsRepository);
    const all = ['a', 'b', 'c'].map((id) => queue.settle(held(id), 7, 'success'));
    await queue.flushSettlements();
    expect(await settled(Promise.all(all).then(() => 0))).toBe(0);
    expect(await Promise.all(all)).toEqual([7, 7, 7]);
    // Whole batches each time: a lost connection is not the rows' fault.
    expect(calls.filter((call) => call.what === 'settleMany').every((call) => call.ids.length === 3)).toBe(true);
    expect(calls.filter((call) => call.what === 'settleMany')).toHaveLength(7);
  });
});
