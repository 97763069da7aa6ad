import { connectionLost, fakeReservationsLedger } from '../../../../test/support/fake-reservations-ledger';
import { ticks } from '../../../../test/support/slow-pool';
import { MetricsService } from '../../../common/metrics/metrics';
import { InvalidationBus } from '../../../common/redis/invalidation-bus';
import { RedisConnection } from '../../../common/redis/redis-connection';
import { loadConfig } from '../../../config/config';
import { Leases } from './leases';
import { ReservationService } from './reservation.service';
import { ReservationSweeper } from './reservation-sweeper';
import { ReservationsRepository } from './reservations.repository';
import { SettlementQueue } from './settlement-queue';

/** The money core over a fake ledger, wired as the usage module wires it. */
function moneyCoreOn(fake: ReturnType<typeof fakeReservationsLedger>['ledger']) {
  const ledger = fake as unknown as ReservationsRepository;
  const config = loadConfig({});
  const leases = new Leases(ledger, new InvalidationBus(new RedisConnection(config), config));
  const sweeper = new ReservationSweeper(ledger, leases, new MetricsService());
  const settlements = new SettlementQueue(ledger, leases, sweeper);
  return { leases, sweeper, budget: new ReservationService(ledger, leases, settlements, sweeper, config) };
}

const settled = async (promise: Promise<number>, ms = 5000) =>
  Promise.race([promise, new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms))]);

const request = (id: string, apiKeyId = 'k') => ({
  id,
  requestId: null,
  userId: 'u',
  apiKeyId,
  oauthClientId: null,
  worstMicros: 100,
  minimumMicros: 1,
  inputEstimateMicros: 0,
});

describe('Leases', () => {
  it('gives a lease back only once the calls drawn on it are written', async () => {
    const { ledger, calls } = fakeReservationsLedger();
    const { budget, leases } = moneyCoreOn(ledger);
    // 20 calls within a second make the credential busy: a lease is taken off the calls' path.
    for (let i = 0; i < 20; i += 1) await budget.reserve(request(`db-${i}`));
    await ticks();
    const drawn = await budget.reserve(request('leased-call'));
    expect(drawn.lease).toBeDefined();
    ledger.failWith = (ids) => (ids.includes('leased-call') ? connectionLost() : null);
    const written = budget.settle(drawn, 60, 'success');
    // Credentials change (a key revoked): the lease retires at once...
    leases.retireAll();
    await budget.flushSettlements();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // ...but is not given back while its call's cost is unwritten.
    expect(calls.some((call) => call.what === 'settle')).toBe(false);
    ledger.failWith = null;
    expect(await settled(written)).toBe(60);
    await ticks();
    expect(calls.filter((call) => call.what === 'settle')).toHaveLength(1);
  });

  it("draws a busy credential's calls on its lease without a round trip, and no other credential's", async () => {
    const { ledger } = fakeReservationsLedger();
    const { budget } = moneyCoreOn(ledger);
    for (let i = 0; i < 20; i += 1) await budget.reserve(request(`db-${i}`));
    await ticks();
    // 20 calls' reservations and the lease's (32 calls' worst case, asked with four times that as its minimum).
    expect(ledger.reserveCount).toBe(21);
    const drawn = await Promise.all([1, 2, 3].map((i) => budget.reserve(request(`leased-${i}`))));
    expect(drawn.every((reservation) => reservation.lease && reservation.amountMicros === 100)).toBe(true);
    expect(ledger.reserveCount).toBe(21);
    const other = await budget.reserve(request('other-key', 'k2'));
    expect(other.lease).toBeUndefined();
    expect(ledger.reserveCount).toBe(22);
  });

  it('takes the next lease before the current one ages out: no call reserves in the database in between', async () => {
    const { ledger, calls } = fakeReservationsLedger();
    const { budget } = moneyCoreOn(ledger);
    const start = Date.now();
    const clock = jest.spyOn(Date, 'now');
    try {
      for (let i = 0; i < 20; i += 1) await budget.reserve(request(`db-${i}`));
      await ticks();
      expect(ledger.reserveCount).toBe(21);
      const first = await budget.reserve(request('young'));
      // Eight seconds on, the lease still serves the call and its successor is asked for once, not per call.
      clock.mockReturnValue(start + 8_500);
      const old = await Promise.all([1, 2].map((i) => budget.reserve(request(`old-${i}`))));
      expect(old.every((reservation) => reservation.lease?.lease === first.lease?.lease)).toBe(true);
      await ticks();
      expect(ledger.reserveCount).toBe(22);
      // Past the first lease's age the calls draw on the successor, with no database reservation of their own.
      clock.mockReturnValue(start + 10_500);
      const next = await budget.reserve(request('next'));
      expect(next.lease?.lease).toBeDefined();
      expect(next.lease?.lease).not.toBe(first.lease?.lease);
      expect(ledger.reserveCount).toBe(22);
      // The first lease goes back once the calls drawn on it are written, and not before.
      expect(calls.some((call) => call.what === 'settle')).toBe(false);
      for (const reservation of [first, ...old]) await budget.settle(reservation, 50, 'success');
      await budget.flushSettlements();
      await ticks();
      expect(calls.filter((call) => call.what === 'settle')).toHaveLength(1);
    } finally {
      clock.mockRestore();
    }
  });

  it('takes a twice larger next lease when three quarters of this one go within a second', async () => {
    const { ledger } = fakeReservationsLedger();
    const asked: number[] = [];
    ledger.reserveAnswer = (input) => {
      if (input.lease) asked.push(input.worstMicros);
      return { amountMicros: input.worstMicros, balanceMicros: 1e9, headroomMicros: 1e9, tripped: null };
    };
    const { budget } = moneyCoreOn(ledger);
    for (let i = 0; i < 20; i += 1) await budget.reserve(request(`db-${i}`));
    await ticks();
    expect(asked).toEqual([3200]);
    // 24 calls in flight hold 2,400 of the lease's 3,200: a quarter is still free, nothing is asked.
    const first = await Promise.all(Array.from({ length: 24 }, (_, i) => budget.reserve(request(`a-${i}`))));
    await ticks();
    expect(asked).toEqual([3200]);
    // The 25th leaves less than a quarter: it is still served by this lease, and the next one is asked for, larger.
    const last = await budget.reserve(request('a-24'));
    expect(last.lease?.lease).toBe(first[0].lease?.lease);
    await ticks();
    expect(asked).toEqual([3200, 6400]);
    const next = await budget.reserve(request('b-0'));
    expect(next.lease?.lease).not.toBe(first[0].lease?.lease);
    expect(next.lease?.lease.sizeMicros).toBe(6400);
    expect(ledger.reserveCount).toBe(22);
  });

  it('asks for a lease with four leases of headroom; a refused one leaves every call reserving exactly', async () => {
    const { ledger } = fakeReservationsLedger();
    const asked: { worstMicros: number; minimumMicros: number }[] = [];
    ledger.reserveAnswer = (input) => {
      if (!input.lease)
        return { amountMicros: input.worstMicros, balanceMicros: 1e9, headroomMicros: 1e9, tripped: null };
      asked.push(input as unknown as { worstMicros: number; minimumMicros: number });
      return { amountMicros: null, balanceMicros: 5000, headroomMicros: null, tripped: 'account' };
    };
    const { budget } = moneyCoreOn(ledger);
    for (let i = 0; i < 25; i += 1) await budget.reserve(request(`db-${i}`));
    await ticks();
    expect(asked).toEqual([expect.objectContaining({ worstMicros: 3200, minimumMicros: 12_800 })]);
    const next = await budget.reserve(request('after'));
    expect(next.lease).toBeUndefined();
  });

  it('never draws on a lease taken while credentials or limits changed', async () => {
    const { ledger, calls } = fakeReservationsLedger();
    let grant: () => void = () => undefined;
    ledger.reserveAnswer = (input) => {
      const answer = { amountMicros: input.worstMicros, balanceMicros: 1e9, headroomMicros: 1e9, tripped: null };
      return input.lease ? new Promise((resolve) => (grant = () => resolve(answer))) : answer;
    };
    const { budget, leases } = moneyCoreOn(ledger);
    for (let i = 0; i < 20; i += 1) await budget.reserve(request(`db-${i}`));
    // The key's limits change while the lease is being taken...
    leases.retireAll();
    grant();
    await ticks();
    // ...so it is given back at once, and the next call reserves in the database.
    expect(calls.filter((call) => call.what === 'settle')).toHaveLength(1);
    expect((await budget.reserve(request('next'))).lease).toBeUndefined();
  });

  it('keeps a retired lease alive until it is given back, then stops extending it', async () => {
    const { ledger } = fakeReservationsLedger();
    const { budget, leases, sweeper } = moneyCoreOn(ledger);
    for (let i = 0; i < 20; i += 1) await budget.reserve(request(`db-${i}`));
    await ticks();
    const drawn = await budget.reserve(request('leased-call'));
    const leaseId = drawn.lease!.lease.id;
    leases.retireAll();
    expect(sweeper.heldHere()).toContain(leaseId);
    await budget.settle(drawn, 40, 'success');
    await ticks();
    expect(sweeper.heldHere()).not.toContain(leaseId);
  });
});
