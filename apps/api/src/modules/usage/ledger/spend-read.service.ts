import { Injectable } from '@nestjs/common';
import { toUnits } from './ledger.service';
import { ReservationsRepository } from './reservations.repository';

/**
 * What keys and app grants spent, for the pages that show it (the keys list, the authorized apps): settled charges
 * plus what calls in flight hold, the same sums `sy_reserve` checks limits against. Reads only, off the call path.
 */
@Injectable()
export class SpendReadService {
  constructor(private readonly reservations: ReservationsRepository) {}

  /** What each app spent for this user in the current UTC month (settled, plus what open calls hold), by client_id. */
  async appSpendThisMonth(userId: string): Promise<Map<string, number>> {
    const micros = await this.reservations.appSpendThisMonth(userId);
    return new Map([...micros].map(([clientId, amount]) => [clientId, toUnits(amount)]));
  }

  /** What each of the user's API keys spent (settled, plus what open calls hold): this UTC month and all time, by key id. */
  async keySpend(userId: string): Promise<Map<string, { thisMonth: number; allTime: number }>> {
    const micros = await this.reservations.keySpend(userId);
    return new Map(
      [...micros].map(([keyId, { month, total }]) => [keyId, { thisMonth: toUnits(month), allTime: toUnits(total) }]),
    );
  }
}
