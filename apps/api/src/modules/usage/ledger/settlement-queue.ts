import { Injectable, Logger } from '@nestjs/common';
import { OneAtATime } from '../../../common/one-at-a-time';
import { Leases } from './leases';
import type { Lease, Reservation } from './reservation';
import { ReservationSweeper } from './reservation-sweeper';
import { LeasedSettlement, ReservationsRepository } from './reservations.repository';

const SETTLE_INTERVAL_MS = 20;
const SETTLE_BATCH = 200;
/** A settlement that could not be written is tried again after 50 ms, doubling up to this, for as long as the process lives. */
const RETRY_MAX_MS = 10_000;
/** At shutdown, how long settlements that keep failing are tried before what is left goes to the sweeper. */
const SHUTDOWN_RETRY_MS = 5_000;

interface Queued {
  id: string;
  costMicros: number;
  reason: string;
  resolve: (debited: number) => void;
  /** Failed writes so far, and when the next may be tried. */
  attempts: number;
  notBefore: number;
}
type PlainItem = Queued & { kind: 'plain' };
type LeasedItem = Queued & LeasedSettlement & { kind: 'leased'; lease: Lease; reservation: Reservation };

/**
 * Settlement (docs/budgets.md, "Settlement"): every call settles exactly once. Settlements are batched (one
 * statement per SETTLE_INTERVAL_MS or SETTLE_BATCH calls), so a busy account's balance row is written once per batch
 * rather than once per call; a call that may cost more than it held is written at once (settleExact). A batch that
 * fails is split when one of its rows is at fault (so no row fails the others) and tried again with back-off until
 * it is written; until then the reservation stays open and this instance keeps it alive (ReservationSweeper).
 */
@Injectable()
export class SettlementQueue {
  private readonly pending: PlainItem[] = [];
  private readonly pendingLeased: LeasedItem[] = [];
  /** Settlements whose write failed, tried again after their back-off: never dropped while the process lives. */
  private readonly retrying: (PlainItem | LeasedItem)[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private settleTimer: NodeJS.Timeout | undefined;
  private shuttingDown = false;
  /** The settlement batch being written. */
  private readonly flushing = new OneAtATime();
  private readonly logger = new Logger('Reservations');

  constructor(
    private readonly ledger: ReservationsRepository,
    private readonly leases: Leases,
    private readonly sweeper: ReservationSweeper,
  ) {}

  /**
   * Settles once, at `costMicros` capped at what the call held (a call that may cost more goes through
   * settleExact), in the next batch. Resolves with what was debited (0 if it had been settled elsewhere) once it is
   * written.
   */
  settle(reservation: Reservation, costMicros: number, reason: string): Promise<number> {
    if (reservation.lease) return this.settleLeased(reservation, costMicros, reason);
    return new Promise((resolve) => {
      this.pending.push({ kind: 'plain', id: reservation.id, costMicros, reason, resolve, attempts: 0, notBefore: 0 });
      this.scheduleFlush();
    });
  }

  /**
   * Settles in a batch written now rather than within the interval: for a call whose account or caps are nearly
   * spent (`tight`), so that its hold is gone before its answer ends and the caller's next call is not refused for
   * it, on any instance.
   */
  settleNow(reservation: Reservation, costMicros: number, reason: string): Promise<number> {
    const settled = this.settle(reservation, costMicros, reason);
    void this.flushSettlements();
    return settled;
  }

  private settleLeased(reservation: Reservation, costMicros: number, reason: string): Promise<number> {
    const drawn = reservation.lease!;
    if (drawn.settled) return Promise.resolve(0);
    const cost = Math.min(reservation.amountMicros, Math.max(0, Math.round(costMicros)));
    this.leases.endDraw(drawn, reservation.amountMicros, cost);
    return this.queueLeased(drawn.lease, reservation, reservation.amountMicros, cost, reason);
  }

  private queueLeased(
    lease: Lease,
    reservation: Reservation,
    holdMicros: number,
    costMicros: number,
    reason: string,
  ): Promise<number> {
    this.leases.queued(lease);
    return new Promise((resolve) => {
      this.pendingLeased.push({
        kind: 'leased',
        lease,
        reservation,
        leaseId: lease.id,
        id: reservation.id,
        requestId: reservation.request.requestId,
        holdMicros,
        costMicros,
        reason,
        resolve,
        attempts: 0,
        notBefore: 0,
      });
      this.scheduleFlush();
    });
  }

  /**
   * Settles a call at exactly `costMicros` when that is more than it held (the provider reported more than the
   * bound the gateway sent): the difference comes from the account's free balance, as far as it goes and within
   * every cap (sy_settle_exact; the rest is the operator's loss), so no balance goes below zero. Written at once (the
   * answer states what was charged); resolves with the charge.
   * - A call drawn on a lease takes the difference from the lease when it can (then it settles in the batch);
   *   otherwise its draw goes back to the lease and it is written as a row of its own.
   * - If the write fails, the call settles in the batch at what it held, which is then its charge.
   */
  async settleExact(reservation: Reservation, costMicros: number, reason: string): Promise<number> {
    const cost = Math.max(0, Math.round(costMicros));
    if (cost <= reservation.amountMicros) return this.settle(reservation, cost, reason);
    const drawn = reservation.lease;
    if (drawn) {
      if (drawn.settled) return 0;
      if (this.leases.covers(drawn, cost - reservation.amountMicros)) {
        this.leases.endDraw(drawn, reservation.amountMicros, cost);
        return this.queueLeased(drawn.lease, reservation, cost, cost, reason);
      }
    }
    try {
      const charged = await this.ledger.settleExact({
        ...reservation.request,
        leaseId: drawn?.lease.id ?? null,
        costMicros: cost,
        reason,
      });
      if (drawn) {
        this.leases.endDraw(drawn, reservation.amountMicros, 0);
        this.leases.giveBack();
      } else this.sweeper.forget(reservation.id);
      return charged;
    } catch (error) {
      this.logger.error(
        `settling call ${reservation.id} at its exact cost failed (${(error as Error).message}); it is charged what it held`,
      );
      return this.settle(reservation, reservation.amountMicros, reason);
    }
  }

  private scheduleFlush(): void {
    if (this.pending.length + this.pendingLeased.length >= SETTLE_BATCH) void this.flushSettlements();
    else this.settleTimer ??= setTimeout(() => void this.flushSettlements(), SETTLE_INTERVAL_MS);
  }

  /** Writes every queued settlement now (also at shutdown); `retries`: also those waiting out their back-off. */
  async flushSettlements(retries = false): Promise<void> {
    // One writer at a time: a caller (shutdown) waits for a batch a timer already started, then writes the rest.
    await this.flushing.run(() => this.writeSettlements(retries));
  }

  /**
   * At shutdown: writes what is queued, and gives settlements that keep failing a few more tries; what still
   * cannot be written stays durable as the open reservation (billed its input estimate by the sweeper) or the open
   * lease (released by it).
   */
  async drain(): Promise<void> {
    this.shuttingDown = true;
    await this.flushSettlements();
    const deadline = Date.now() + SHUTDOWN_RETRY_MS;
    while (this.retrying.length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      await this.flushSettlements(true);
    }
    if (this.retrying.length)
      this.logger.error(
        `${this.retrying.length} settlements could not be written before shutdown; the expiry sweeper settles them`,
      );
    clearTimeout(this.retryTimer);
  }

  /**
   * Writes the settlements queued when it starts, and the failed ones whose back-off is over. Those that arrive
   * while it writes wait for their own batch (the interval's timer, or a full batch): looping on until the queue
   * was empty wrote a batch per database round trip under load, a dozen calls each instead of an interval's worth
   * (docs/benchmarks.md).
   */
  private async writeSettlements(allRetries = false): Promise<void> {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    const now = Date.now();
    const due = this.retrying.filter((item) => allRetries || item.notBefore <= now);
    for (const item of due) this.retrying.splice(this.retrying.indexOf(item), 1);
    const leased = [
      ...due.filter((item): item is LeasedItem => item.kind === 'leased'),
      ...this.pendingLeased.splice(0),
    ];
    const plain = [...due.filter((item): item is PlainItem => item.kind === 'plain'), ...this.pending.splice(0)];
    for (let i = 0; i < leased.length; i += SETTLE_BATCH) await this.writeLeased(leased.slice(i, i + SETTLE_BATCH));
    for (let i = 0; i < plain.length; i += SETTLE_BATCH) await this.writePlain(plain.slice(i, i + SETTLE_BATCH));
    this.scheduleRetry();
  }

  private async writeLeased(batch: LeasedItem[]): Promise<void> {
    const settled = await this.attempt(
      batch,
      (part) => this.ledger.settleLeased(part),
      (part) => this.writeLeased(part),
    );
    if (!settled) return;
    for (const item of batch) {
      const charged = settled.get(item.id);
      if (charged === undefined) {
        // Its lease is no longer open (the sweeper released it while the database could not be reached): the call
        // is written as a row of its own, charged from the free balance.
        void this.ledger
          .settleExact({
            ...item.reservation.request,
            leaseId: item.leaseId,
            costMicros: item.costMicros,
            reason: item.reason,
          })
          .then(
            (amount) => this.written(item, amount),
            () => this.failed([item]),
          );
      } else this.written(item, charged);
    }
  }

  private async writePlain(batch: PlainItem[]): Promise<void> {
    const settled = await this.attempt(
      batch,
      (part) => this.ledger.settleMany(part),
      (part) => this.writePlain(part),
    );
    if (!settled) return;
    // A reservation named twice in a batch is debited once: only its first settlement reports the amount.
    const reported = new Set<string>();
    for (const item of batch) {
      this.written(item, reported.has(item.id) ? 0 : (settled.get(item.id) ?? 0));
      reported.add(item.id);
    }
  }

  /**
   * Runs one batch's statement. When it fails because of what one of its rows holds (a constraint or a value: SQL
   * states 22 and 23), the batch is split in halves, each written on its own, so the bad row is isolated and every
   * other row is written; any other failure (connection lost, deadlock, database down) puts the batch back for a
   * retry after its back-off. Returns null when the batch was handled that way.
   */
  private async attempt<T extends PlainItem | LeasedItem>(
    batch: T[],
    write: (batch: T[]) => Promise<Map<string, number>>,
    writePart: (batch: T[]) => Promise<void>,
  ): Promise<Map<string, number> | null> {
    try {
      return await write(batch);
    } catch (error) {
      const state = String((error as { code?: unknown }).code ?? '');
      if (batch.length > 1 && /^2[23]/.test(state)) {
        const half = Math.ceil(batch.length / 2);
        await writePart(batch.slice(0, half));
        await writePart(batch.slice(half));
        return null;
      }
      this.logger.error(
        `settling ${batch.length} calls failed (attempt ${batch[0].attempts + 1}): ${(error as Error).message}`,
      );
      this.failed(batch);
      return null;
    }
  }

  private written(item: PlainItem | LeasedItem, debited: number): void {
    item.resolve(debited);
    if (item.kind === 'plain') return this.sweeper.forget(item.id);
    this.leases.written(item.lease);
  }

  private failed(items: (PlainItem | LeasedItem)[]): void {
    const now = Date.now();
    for (const item of items) {
      item.attempts += 1;
      item.notBefore = now + Math.min(RETRY_MAX_MS, 50 * 2 ** (item.attempts - 1));
      this.retrying.push(item);
    }
    this.scheduleRetry();
  }

  private scheduleRetry(): void {
    if (!this.retrying.length || this.shuttingDown) return;
    clearTimeout(this.retryTimer);
    const next = Math.min(...this.retrying.map((item) => item.notBefore));
    this.retryTimer = setTimeout(() => void this.flushSettlements(), Math.max(0, next - Date.now()));
    this.retryTimer.unref();
  }

  /** Settlements not yet written (queued or waiting to be tried again). */
  get unwrittenSettlements(): number {
    return this.pending.length + this.pendingLeased.length + this.retrying.length;
  }

  /** A batch is being written now. */
  get writing(): boolean {
    return this.flushing.busy;
  }
}
