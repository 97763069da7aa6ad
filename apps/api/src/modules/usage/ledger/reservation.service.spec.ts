import { fakeReservationsLedger } from '../../../../test/support/fake-reservations-ledger';
import { ticks } from '../../../../test/support/slow-pool';
import { MetricsService } from '../../../common/metrics/metrics';
import { InvalidationBus } from '../../../common/redis/invalidation-bus';
import { RedisConnection } from '../../../common/redis/redis-connection';
import { loadConfig } from '../../../config/config';
import { UsageErrorCode, UsageException } from '../usage.exception';
import { Leases } from './leases';
import { ReservationService } from './reservation.service';
import { ReservationSweeper } from './reservation-sweeper';
import { ReservationsRepository } from './reservations.repository';
import { SettlementQueue } from './settlement-queue';

/** The money core over a fake ledger, wired as the usage module wires it. */
function budgetWith(fake: ReturnType<typeof fakeReservationsLedger>['ledger']) {
  const ledger = fake as unknown as ReservationsRepository;
  const config = loadConfig({});
  const leases = new Leases(ledger, new InvalidationBus(new RedisConnection(config), config));
  const sweeper = new ReservationSweeper(ledger, leases, new MetricsService());
  return new ReservationService(ledger, leases, new SettlementQueue(ledger, leases, sweeper), sweeper, config);
}

const request = (id: string, apiKeyId: string | null = 'k') => ({
  id,
  requestId: null,
  userId: 'u',
  apiKeyId,
  oauthClientId: null,
  worstMicros: 100,
  minimumMicros: 1,
  inputEstimateMicros: 0,
});

const refusal = async (promise: Promise<unknown>) => {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(UsageException);
  return error as UsageException;
};

describe('ReservationService refusals', () => {
  it('writes the calls that answered and tries once more before refusing (an honest refusal)', async () => {
    const { ledger, calls } = fakeReservationsLedger();
    // The account has room only once the finished call's settlement is written.
    ledger.reserveAnswer = (input) =>
      calls.some((call) => call.what === 'settleMany')
        ? { amountMicros: input.worstMicros, balanceMicros: 500, headroomMicros: 0, tripped: null }
        : { amountMicros: null, balanceMicros: 500, headroomMicros: null, tripped: 'account' };
    const budget = budgetWith(ledger);
    const finished = { id: 'answered', amountMicros: 100, request: request('answered') };
    const written = budget.settle(finished, 60, 'success');
    const next = await budget.reserve(request('next'));
    expect(await written).toBe(60);
    expect(next.amountMicros).toBe(100);
    expect(ledger.reserveCount).toBe(2);
    // Another hold like it would not fit: it settles before its answer ends.
    expect(next.tight).toBe(true);
  });

  it("refuses in one round trip when nothing of the user's is left to write here, with the summary's remaining budget", async () => {
    const { ledger } = fakeReservationsLedger();
    ledger.reserveAnswer = () => ({
      amountMicros: null,
      balanceMicros: 1_040_000,
      headroomMicros: null,
      tripped: 'account',
    });
    const budget = budgetWith(ledger);
    const error = await refusal(budget.reserve(request('c')));
    expect(error.code).toBe(UsageErrorCode.BUDGET_EXHAUSTED);
    expect(error.status).toBe(403);
    expect(error.options.extra).toEqual(
      expect.objectContaining({
        limit: 'account',
        remainingBudget: 1.04,
        topUpUrl: expect.stringMatching(/\/billing$/),
      }),
    );
    expect(ledger.reserveCount).toBe(1);
  });

  it("names the key's limit or the app's cap that refused the call, with the summary's remaining budget", async () => {
    const { ledger } = fakeReservationsLedger();
    let tripped = 'daily';
    ledger.reserveAnswer = () => ({ amountMicros: null, balanceMicros: 2_500_000, headroomMicros: null, tripped });
    const budget = budgetWith(ledger);
    const key = await refusal(budget.reserve(request('c1')));
    expect(key.status).toBe(403);
    expect(key.options.extra).toEqual(expect.objectContaining({ limit: 'daily', remainingBudget: 2.5 }));
    expect(key.message).toMatch(/API key's daily/);
    tripped = 'app_per_request';
    const app = await refusal(budget.reserve({ ...request('c2', null), oauthClientId: 'app' }));
    expect(app.status).toBe(403);
    expect(String(app.options.extra?.limit)).toMatch(/per_request$/);
    expect(app.message).toMatch(/per-request spending cap you set for this app/);
  });

  it('keeps a call reserved in the database alive until its settlement is written', async () => {
    const { ledger } = fakeReservationsLedger();
    const budget = budgetWith(ledger);
    const sweeper = (budget as unknown as { sweeper: ReservationSweeper }).sweeper;
    const reservation = await budget.reserve(request('alive', null));
    expect(reservation.tight).toBe(false);
    expect(sweeper.heldHere()).toEqual(['alive']);
    await budget.settle(reservation, 10, 'success');
    expect(sweeper.heldHere()).toEqual([]);
  });
});

describe('ReservationService at shutdown', () => {
  it('writes every queued settlement and gives back every lease before the database closes', async () => {
    const { ledger, calls } = fakeReservationsLedger();
    const budget = budgetWith(ledger);
    for (let i = 0; i < 20; i += 1) await budget.reserve(request(`db-${i}`));
    await ticks();
    const drawn = await budget.reserve(request('leased'));
    expect(drawn.lease).toBeDefined();
    const plain = budget.settle({ id: 'plain', amountMicros: 100, request: request('plain', null) }, 30, 'success');
    const leased = budget.settle(drawn, 40, 'success');
    await budget.beforeApplicationShutdown();
    expect(await Promise.all([plain, leased])).toEqual([30, 40]);
    expect(budget.unwrittenSettlements).toBe(0);
    expect(calls.filter((call) => call.what === 'settle').map((call) => call.ids)).toEqual([[drawn.lease!.lease.id]]);
  });
});
