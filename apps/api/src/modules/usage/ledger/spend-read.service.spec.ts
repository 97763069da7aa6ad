import { ReservationsRepository } from './reservations.repository';
import { SpendReadService } from './spend-read.service';

describe('SpendReadService', () => {
  const reservations = {
    keySpend: async () =>
      new Map([
        ['key-1', { month: 1_250_000, total: 3_000_001 }],
        ['key-2', { month: 0, total: 7 }],
      ]),
    appSpendThisMonth: async () => new Map([['client-a', 420_000]]),
  } as unknown as ReservationsRepository;
  const spend = new SpendReadService(reservations);

  it("states each key's spend this month and all time in currency units", async () => {
    expect(await spend.keySpend('u')).toEqual(
      new Map([
        ['key-1', { thisMonth: 1.25, allTime: 3.000001 }],
        ['key-2', { thisMonth: 0, allTime: 0.000007 }],
      ]),
    );
  });

  it("states each app's spend this month in currency units, by client_id", async () => {
    expect(await spend.appSpendThisMonth('u')).toEqual(new Map([['client-a', 0.42]]));
  });
});
