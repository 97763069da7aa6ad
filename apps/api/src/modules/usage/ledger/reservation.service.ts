import { MetricsService } from '../../../common/metrics/metrics';
import { OneAtATime } from '../../../common/one-at-a-time';
import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import { UsageErrorCode, UsageException } from '../usage.exception';
import { InvalidationBus } from '../../../common/redis/invalidation-bus';
import { API_KEYS_TOPIC, OAUTH_TOKENS_TOPIC } from '../../../common/redis/topics';
import { toUnits } from './ledger.service';
import { LeasedSettlement, ReservationsRepository, ReserveInput } from './reservations.repository';
import { spendLimitExceeded } from './spend-limit-refusal';

/** What a caller asks to hold: `id` is the call's own id (random, the server's), the reservation's key. */
export type ReservationRequest = Omit<ReserveInput, 'ttlSeconds' | 'lease'>;

export interface Reservation {
  /** The call's id. */
  id: string;
  amountMicros: number;
  /** Who the call was for (settleExact writes a row of its own when the call drew on a lease). */
  request: ReservationRequest;
  /** Credits − debits when it was made: the usage summary's remaining figure (for a refusal's remainingBudget). */
  balanceMicros?: number;
  /** Another hold this large would not fit beside it: the call settles before its answer ends (settleNow). */
  tight?: boolean;
  /** Set when the call drew on this instance's lease instead of reserving in the database. */
  lease?: { lease: Lease; settled: boolean };
}

/**
 * A reservation this instance holds for many calls of one credential (user + key or app), drawn on in memory
 * so that a busy credential's calls need no database round trip before they are forwarded. See docs/budgets.md.
 */
interface Lease {
  id: string;
  takenAt: number;
  key: string;
  /** What calls may still draw: the lease's amount minus what calls hold now and what they were billed. */
  freeMicros: number;
  inFlight: number;
  /** Settlements queued and not yet written: the lease is returned only once they are. */
  unwritten: number;
  lastUsedAt: number;
}

/** Seconds a reservation lives without a heartbeat; calls still running here extend theirs every minute. */
const RESERVATION_TTL_SECONDS = 300;
const HEARTBEAT_MS = 60_000;
const SWEEP_MS = 30_000;
const SETTLE_INTERVAL_MS = 20;
const SETTLE_BATCH = 200;
/** A settlement that could not be written is tried again after 50 ms, doubling up to this, for as long as the process lives. */
const RETRY_MAX_MS = 10_000;
/** At shutdown, how long settlements that keep failing are tried before what is left goes to the sweeper. */
const SHUTDOWN_RETRY_MS = 5_000;
/** A credential with this many calls reserved in the database within one second gets a lease. */
const LEASE_AFTER_CALLS = 20;
/** A lease first holds this many of the triggering call's worst case; one used up within a second doubles the next, up to the maximum... */
const LEASE_CALLS = 32;
const LEASE_CALLS_MAX = 2048;
/** ...and is taken only when the account and every limit could cover this many leases (else calls reserve exactly). */
const LEASE_HEADROOM = 4;
/** A lease is returned after this long, or this long unused (calendar windows and limits stay current). */
const LEASE_MAX_AGE_MS = 10_000;
const LEASE_IDLE_MS = 2_000;

/** A credential's recent database reservations, and how large its next lease is. */
interface Demand {
  second: number;
  calls: number;
  acquiring: boolean;
  refusedUntil: number;
  leaseCalls: number;
}

/**
 * Reservations (docs/budgets.md): every call reserves its worst-case cost before it is forwarded and settles
 * exactly once when it ends; busy credentials draw on leases. Reservations of an instance that died expire and are
 * settled by the sweeper from what was recorded when they were made (the input estimate), on any instance. The
 * ledger's own reads and credits are LedgerService's.
 */
@Injectable()
export class ReservationService implements OnModuleInit, BeforeApplicationShutdown {
  /** Reservations of calls this instance runs or has yet to settle: the heartbeat keeps them from the sweeper. */
  private readonly running = new Set<string>();
  private readonly pending: PlainItem[] = [];
  private readonly pendingLeased: LeasedItem[] = [];
  /** Settlements whose write failed, tried again after their back-off: never dropped while the process lives. */
  private readonly retrying: (PlainItem | LeasedItem)[] = [];
  private retryTimer: NodeJS.Timeout | undefined;
  private shuttingDown = false;
  /** The lease each credential draws on now (a lease is active while it is here), and leases retired but not yet returned. */
  private readonly leases = new Map<string, Lease>();
  private readonly retired = new Set<Lease>();
  /** Leases being given back (awaited at shutdown), and the settlement batch being written. */
  private readonly returning = new Set<Promise<void>>();
  private readonly flushing = new OneAtATime();
  /** Bumped when credentials or limits change: a lease taken across a change is retired before it is used. */
  private generation = 0;
  /** Per credential: database reservations in the current second, and whether a lease is being taken. */
  private readonly demand = new Map<string, Demand>();
  private settleTimer: NodeJS.Timeout | undefined;
  private timers: NodeJS.Timeout[] = [];
  private readonly logger = new Logger('Reservations');

  constructor(
    private readonly ledger: ReservationsRepository,
    private readonly metrics: MetricsService,
    private readonly bus: InvalidationBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.metrics.registerGauge(
      'switchyard_reservations_open',
      'Reservations held by calls in flight, on every instance',
      () => this.ledger.countOpen(),
    );
    const heartbeat = setInterval(
      () => void this.ledger.extend(this.heldHere(), RESERVATION_TTL_SECONDS).catch(() => undefined),
      HEARTBEAT_MS,
    );
    const sweep = setInterval(
      () => void this.sweepExpired().catch((error: Error) => this.logger.error(`sweep failed: ${error.message}`)),
      SWEEP_MS,
    );
    const idle = setInterval(() => this.retireIdleLeases(), LEASE_IDLE_MS / 2);
    for (const timer of [heartbeat, sweep, idle]) timer.unref();
    this.timers = [heartbeat, sweep, idle];
    // A revoked key or consent, or changed spend limits, must be felt by the next call: leases are given back.
    for (const topic of [API_KEYS_TOPIC, OAUTH_TOKENS_TOPIC]) this.bus.on(topic, () => this.retireAllLeases());
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.shuttingDown = true;
    this.retireAllLeases();
    await this.flushSettlements();
    // Settlements that failed get a few more tries; what still cannot be written stays durable as the open
    // reservation (billed its input estimate by the sweeper) or the open lease (released by it).
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
    // What the retired leases still hold goes back before the database closes (else it waits for the sweeper).
    await Promise.allSettled([...this.returning]);
  }

  /** Reservations this instance keeps alive: calls reserved in the database and leases not yet returned. */
  private heldHere(): string[] {
    return [...this.running, ...[...this.leases.values(), ...this.retired].map((lease) => lease.id)];
  }

  /** What each app spent for this user in the current UTC month (settled, plus what open calls hold), by client_id. */
  async appSpendThisMonth(userId: string): Promise<Map<string, number>> {
    const micros = await this.ledger.appSpendThisMonth(userId);
    return new Map([...micros].map(([clientId, amount]) => [clientId, toUnits(amount)]));
  }

  /** What each of the user's API keys spent (settled, plus what open calls hold): this UTC month and all time, by key id. */
  async keySpend(userId: string): Promise<Map<string, { thisMonth: number; allTime: number }>> {
    const micros = await this.ledger.keySpend(userId);
    return new Map(
      [...micros].map(([keyId, { month, total }]) => [keyId, { thisMonth: toUnits(month), allTime: toUnits(total) }]),
    );
  }

  /**
   * Holds the call's worst case (or what remains, if at least the minimum); throws SPEND_LIMIT_EXCEEDED when a key's
   * limit or an app's cap cannot cover it, BUDGET_EXHAUSTED when the balance cannot.
   */
  async reserve(request: ReservationRequest): Promise<Reservation> {
    const key = leaseKey(request);
    const fromLease = this.drawOnLease(key, request);
    if (fromLease) return fromLease;
    this.noteDemand(key, request);
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
    this.running.add(request.id);
    const tight = result.headroomMicros !== null && result.headroomMicros < result.amountMicros;
    return { id: request.id, amountMicros: result.amountMicros, request, balanceMicros: result.balanceMicros, tight };
  }

  /**
   * Before a refusal: writes the settlements this instance still queues or is writing (calls that answered within
   * the last batch interval) and gives back the user's leases here, so that what they hold is free again. True when there
   * was anything to release (the reservation is then tried once more).
   */
  private async releaseFinished(userId: string): Promise<boolean> {
    const leases = [...this.leases.values()].filter((lease) => lease.key.startsWith(`${userId}|`));
    if (!this.unwrittenSettlements && !this.flushing.busy && !leases.length && !this.returning.size) return false;
    for (const lease of leases) this.retire(lease);
    await this.flushSettlements();
    await Promise.allSettled([...this.returning]);
    return true;
  }

  /** The call's worst case from this credential's lease, when it has one that covers it. */
  private drawOnLease(key: string, request: ReservationRequest): Reservation | null {
    const lease = this.leases.get(key);
    if (!lease) return null;
    const now = Date.now();
    if (now - lease.takenAt >= LEASE_MAX_AGE_MS || lease.freeMicros < request.worstMicros) {
      // Used up fast: this credential has more calls in flight than the lease covers; the next one is larger.
      const demand = this.demand.get(key);
      if (demand && lease.freeMicros < request.worstMicros && now - lease.takenAt < 1000)
        demand.leaseCalls = Math.min(LEASE_CALLS_MAX, demand.leaseCalls * 2);
      this.retire(lease);
      return null;
    }
    lease.freeMicros -= request.worstMicros;
    lease.inFlight += 1;
    lease.lastUsedAt = now;
    return { id: request.id, amountMicros: request.worstMicros, request, lease: { lease, settled: false } };
  }

  /** Counts a credential's database reservations; a busy one gets a lease, taken off the call's path. */
  private noteDemand(key: string, request: ReservationRequest): void {
    const second = Math.floor(Date.now() / 1000);
    let demand = this.demand.get(key);
    if (!demand)
      this.demand.set(key, (demand = { second, calls: 0, acquiring: false, refusedUntil: 0, leaseCalls: LEASE_CALLS }));
    if (demand.second !== second) Object.assign(demand, { second, calls: 0 });
    demand.calls += 1;
    if (
      demand.calls < LEASE_AFTER_CALLS ||
      demand.acquiring ||
      this.leases.has(key) ||
      Date.now() < demand.refusedUntil
    )
      return;
    demand.acquiring = true;
    void this.takeLease(key, request, demand)
      .catch((error: Error) => this.logger.warn(`taking a lease failed: ${error.message}`))
      .finally(() => {
        demand.acquiring = false;
        if (this.demand.size > 10_000) this.demand.clear();
      });
  }

  private async takeLease(key: string, request: ReservationRequest, demand: Demand): Promise<void> {
    const size = request.worstMicros * demand.leaseCalls;
    const id = randomUUID();
    const generation = this.generation;
    const result = await this.ledger.reserve({
      id,
      requestId: null,
      lease: true,
      userId: request.userId,
      apiKeyId: request.apiKeyId,
      oauthClientId: request.oauthClientId,
      worstMicros: size,
      minimumMicros: size * LEASE_HEADROOM,
      inputEstimateMicros: 0,
      ttlSeconds: RESERVATION_TTL_SECONDS,
    });
    if (result.amountMicros === null) {
      // Too little left for a lease: this credential's calls go on reserving exactly, each in the database.
      demand.refusedUntil = Date.now() + LEASE_MAX_AGE_MS;
      demand.leaseCalls = LEASE_CALLS;
      return;
    }
    const now = Date.now();
    const lease: Lease = {
      id,
      key,
      takenAt: now,
      freeMicros: result.amountMicros,
      inFlight: 0,
      unwritten: 0,
      lastUsedAt: now,
    };
    this.leases.set(key, lease);
    // Limits or credentials changed while it was being taken: it must not be used.
    if (generation !== this.generation) this.retire(lease);
  }

  private retire(lease: Lease): void {
    if (this.leases.get(lease.key) !== lease) return;
    this.leases.delete(lease.key);
    this.retired.add(lease);
    this.returnLeases();
  }

  private retireAllLeases(): void {
    this.generation += 1;
    for (const lease of [...this.leases.values()]) this.retire(lease);
  }

  private retireIdleLeases(): void {
    const now = Date.now();
    for (const lease of [...this.leases.values()])
      if (now - lease.lastUsedAt >= LEASE_IDLE_MS || now - lease.takenAt >= LEASE_MAX_AGE_MS) this.retire(lease);
  }

  /** Gives back what retired leases still hold, once no call draws on them and their calls' settlements are written. */
  private returnLeases(): void {
    for (const lease of [...this.retired]) {
      if (lease.inFlight > 0 || lease.unwritten > 0) continue;
      this.retired.delete(lease);
      const returned = this.ledger
        .settle(lease.id, 0, 'lease_returned')
        .then(() => undefined)
        // Left open, it expires and the sweeper releases it (billing nothing: a lease records no input).
        .catch((error: Error) => this.logger.error(`returning a lease failed: ${error.message}`))
        .finally(() => this.returning.delete(returned));
      this.returning.add(returned);
    }
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

  /**
   * Settles once, at `costMicros` capped at what the call held (a call that may cost more goes through
   * settleExact). Settlements are batched (one statement per SETTLE_INTERVAL_MS or SETTLE_BATCH calls), so a busy
   * account's balance row is written once per batch rather than once per call. A batch that fails is split when one
   * of its rows is at fault (so no row fails the others) and tried again with back-off until it is written; until
   * then the reservation stays open and this instance keeps it alive. Resolves with what was debited (0 if it had
   * been settled elsewhere).
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
    drawn.settled = true;
    const { lease } = drawn;
    const cost = Math.min(reservation.amountMicros, Math.max(0, Math.round(costMicros)));
    lease.freeMicros += reservation.amountMicros - cost;
    lease.inFlight -= 1;
    return this.queueLeased(lease, reservation, reservation.amountMicros, cost, reason);
  }

  private queueLeased(
    lease: Lease,
    reservation: Reservation,
    holdMicros: number,
    costMicros: number,
    reason: string,
  ): Promise<number> {
    lease.unwritten += 1;
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
   * bound the gateway sent): the difference comes from the account's free balance, as far as it goes, so the
   * charge is price × usage whenever the account can pay it, and no balance goes below zero. Written at once (the
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
      const { lease } = drawn;
      const extra = cost - reservation.amountMicros;
      if (lease.freeMicros >= extra) {
        drawn.settled = true;
        lease.freeMicros -= extra;
        lease.inFlight -= 1;
        return this.queueLeased(lease, reservation, cost, cost, reason);
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
        drawn.settled = true;
        drawn.lease.freeMicros += reservation.amountMicros;
        drawn.lease.inFlight -= 1;
        this.returnLeases();
      } else this.running.delete(reservation.id);
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
    if (item.kind === 'plain') return void this.running.delete(item.id);
    item.lease.unwritten -= 1;
    // A retired lease goes back once its last call is written.
    if (!item.lease.unwritten) this.returnLeases();
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

  /** Settles reservations whose instance died: billed the estimated input recorded when they were made. */
  async sweepExpired(): Promise<number> {
    let settled = 0;
    for (const expired of await this.ledger.expired(100)) {
      if ((await this.ledger.settle(expired.id, expired.inputEstimateMicros, 'expired')) !== null) settled += 1;
    }
    return settled;
  }
}

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

/** Leases are per credential: the user with the key, or with the app, the call came with. */
function leaseKey(request: ReservationRequest): string {
  return `${request.userId}|${request.apiKeyId ?? ''}|${request.oauthClientId ?? ''}`;
}
