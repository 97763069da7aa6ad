import { fakeReservationsLedger } from '../../../../test/support/fake-reservations-ledger';
import { MetricsService } from '../../../common/metrics/metrics';
import { InvalidationBus } from '../../../common/redis/invalidation-bus';
import { RedisConnection } from '../../../common/redis/redis-connection';
import { loadConfig } from '../../../config/config';
import { Leases } from './leases';
import { ReservationSweeper } from './reservation-sweeper';
import { ReservationsRepository } from './reservations.repository';

function sweeperOn(fake: ReturnType<typeof fakeReservationsLedger>['ledger']): ReservationSweeper {
  const ledger = fake as unknown as ReservationsRepository;
  const config = loadConfig({});
  return new ReservationSweeper(
    ledger,
    new Leases(ledger, new InvalidationBus(new RedisConnection(config), config)),
    new MetricsService(),
  );
}

describe('ReservationSweeper', () => {
  it('settles each expired reservation at its input estimate, counting only those it settled', async () => {
    const { ledger, calls } = fakeReservationsLedger();
    ledger.expiredRows = [
      { id: 'dead-1', inputEstimateMicros: 250 },
      { id: 'dead-2', inputEstimateMicros: 0 },
      { id: 'raced', inputEstimateMicros: 90 },
    ];
    // Another instance's sweeper settled this one first.
    ledger.gone.add('raced');
    const settledAt: [string, number][] = [];
    const settle = ledger.settle;
    ledger.settle = async (id: string, costMicros = 0) => {
      settledAt.push([id, costMicros]);
      return settle(id, costMicros);
    };
    expect(await sweeperOn(ledger).sweepExpired()).toBe(2);
    expect(settledAt).toEqual([
      ['dead-1', 250],
      ['dead-2', 0],
      ['raced', 90],
    ]);
    expect(calls.filter((call) => call.what === 'settle')).toHaveLength(3);
  });

  it('keeps alive what this instance runs, and lets go of what it wrote', () => {
    const { ledger } = fakeReservationsLedger();
    const sweeper = sweeperOn(ledger);
    sweeper.keepAlive('a');
    sweeper.keepAlive('b');
    sweeper.forget('a');
    expect(sweeper.heldHere()).toEqual(['b']);
  });
});
