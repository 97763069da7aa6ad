import { BeforeApplicationShutdown, Inject, Injectable } from '@nestjs/common';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import { UsageErrorCode, UsageException } from '../usage.exception';
import { Leases } from './leases';
import { toUnits } from './ledger.service';
import { leaseKey, RESERVATION_TTL_SECONDS, type Reservation, type ReservationRequest } from './reservation';
import { ReservationSweeper } from './reservation-sweeper';
import { ReservationsRepository } from './reservations.repository';
import { SettlementQueue } from './settlement-queue';
import { spendLimitExceeded } from './spend-limit-refusal';

export type { Reservation, ReservationRequest } from './reservation';

/**
 * Reservations (docs/budgets.md): every call reserves its worst-case cost before it is forwarded and settles
 * exactly once when it ends. This is the gateway's face to the money core: it reserves (on this credential's lease
 * when it has one, else in the database, refusing honestly), and hands settlements to the SettlementQueue; the
 * leases (Leases), the queue, and the heartbeat and expiry sweeper (ReservationSweeper) are its parts, and it shuts
 * them down in order. The ledger's own reads and credits are LedgerService's; spend per key and app, SpendReadService's.
 */
@Injectable()
export class ReservationService implements BeforeApplicationShutdown {
  constructor(
    private readonly ledger: ReservationsRepository,
    private readonly leases: Leases,
    private readonly settlements: SettlementQueue,
    private readonly sweeper: ReservationSweeper,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async beforeApplicationShutdown(): Promise<void> {
    this.sweeper.stop();
    this.leases.stop();
    await this.settlements.drain();
    // What the retired leases still hold goes back before the database closes (else it waits for the sweeper).
    await this.leases.returned();
  }

  /**
   * Holds the call's worst case (or what remains, if at least the minimum); throws SPEND_LIMIT_EXCEEDED when a key's
   * limit or an app's cap cannot cover it, BUDGET_EXHAUSTED when the balance cannot.
   */
  async reserve(request: ReservationRequest): Promise<Reservation> {
    const key = leaseKey(request);
    const fromLease = this.leases.draw(key, request);
    if (fromLease) return fromLease;
    this.leases.noteDemand(key, request);
    const input = { ...request, ttlSeconds: RESERVATION_TTL_SECONDS };
    let result = await this.ledger.reserve(input);
    // Never refused for the hold of a call that has answered: its settlement may still be queued here.
    if (result.amountMicros === null && (await this.releaseFinished(request.userId)))
      result = await this.ledger.reserve(input);
    if (result.amountMicros === null) {
      // A key's limit or an app's cap: spend_limit_exceeded with its figures; else the balance: budget_exhausted.
      // remainingBudget is what the usage summary shows (credits − debits), whatever calls in flight hold.
      throw (
        (await spendLimitExceeded(this.ledger, this.config, request, result.tripped, result.balanceMicros)) ??
        this.exhausted(result.balanceMicros)
      );
    }
    this.sweeper.keepAlive(request.id);
    const tight = result.headroomMicros !== null && result.headroomMicros < result.amountMicros;
    return { id: request.id, amountMicros: result.amountMicros, request, balanceMicros: result.balanceMicros, tight };
  }

  /**
   * Before a refusal: writes the settlements this instance still queues or is writing (calls that answered within
   * the last batch interval) and gives back the user's leases here, so that what they hold is free again. True when there
   * was anything to release (the reservation is then tried once more).
   */
  private async releaseFinished(userId: string): Promise<boolean> {
    const retired = this.leases.retireUser(userId);
    if (!retired && !this.settlements.unwrittenSettlements && !this.settlements.writing && !this.leases.returningAny)
      return false;
    await this.settlements.flushSettlements();
    await this.leases.returned();
    return true;
  }

  exhausted(
    remainingMicros: number,
    message = 'Your budget is exhausted: add funds to continue',
    limit = 'account',
  ): UsageException {
    return new UsageException(UsageErrorCode.BUDGET_EXHAUSTED, message, {
      limit,
      remainingBudget: toUnits(Math.max(0, remainingMicros)),
      topUpUrl: `${this.config.publicUrl}/billing`,
    });
  }

  /** Settles once, at `costMicros` capped at what the call held, in the next batch (SettlementQueue.settle). */
  settle(reservation: Reservation, costMicros: number, reason: string): Promise<number> {
    return this.settlements.settle(reservation, costMicros, reason);
  }

  /** Settles in a batch written now: a `tight` call's hold is gone before its answer ends (SettlementQueue.settleNow). */
  settleNow(reservation: Reservation, costMicros: number, reason: string): Promise<number> {
    return this.settlements.settleNow(reservation, costMicros, reason);
  }

  /** Settles a call that cost more than it held, at once, within the balance and every cap (SettlementQueue.settleExact). */
  settleExact(reservation: Reservation, costMicros: number, reason: string): Promise<number> {
    return this.settlements.settleExact(reservation, costMicros, reason);
  }

  /** Writes every queued settlement now; `retries`: also those waiting out their back-off. */
  flushSettlements(retries = false): Promise<void> {
    return this.settlements.flushSettlements(retries);
  }

  /** Settlements not yet written (queued or waiting to be tried again). */
  get unwrittenSettlements(): number {
    return this.settlements.unwrittenSettlements;
  }

  /** Settles reservations whose instance died, at their input estimate (ReservationSweeper). */
  sweepExpired(): Promise<number> {
    return this.sweeper.sweepExpired();
  }
}
