import { MetricsService } from '../../../common/metrics/metrics';
import { OneAtATime } from '../../../common/one-at-a-time';
import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { LedgerEntryKind, LedgerPage, UsageSummaryResponse } from '@switchyard/shared-dto';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import { UsageErrorCode, UsageException } from '../usage.exception';
import { InvalidationBus } from '../../../common/redis/invalidation-bus';
import { API_KEYS_TOPIC, OAUTH_TOKENS_TOPIC } from '../../../common/auth/principal';
import { CreditKind, LeasedSettlement, LedgerRepository, ReserveInput } from './ledger.repository';

/** What a caller asks to hold; the service adds the reservation's id and lifetime. */
export type ReservationRequest = Omit<ReserveInput, 'id' | 'ttlSeconds'>;

export interface Reservation {
  id: string;
  amountMicros: number;
  /** Set when the call drew on this instance's lease instead of reserving in the database. */
  lease?: { lease: Lease; requestId: string; settled: boolean };
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

export const toUnits = (micros: number) => micros / 1e6;

/** A credential's recent database reservations, and how large its next lease is. */
interface Demand {
  second: number;
  calls: number;
  acquiring: boolean;
  refusedUntil: number;
  leaseCalls: number;
}

/**
 * Budgets (decisions.md section 10): every call reserves its worst-case cost before it is forwarded and settles
 * exactly once when it ends. Reservations of an instance that died expire and are settled by the sweeper from
 * what was recorded when they were made (the estimated input), on any instance.
 */
@Injectable()
export class BudgetService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly running = new Set<string>();
  private readonly pending: { id: string; costMicros: number; reason: string; resolve: (debited: number) => void }[] = [];
  private readonly pendingLeased: (LeasedSettlement & { lease: Lease; resolve: (debited: number) => void })[] = [];
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
  private readonly logger = new Logger('Budget');

  constructor(
    private readonly ledger: LedgerRepository,
    private readonly metrics: MetricsService,
    private readonly bus: InvalidationBus,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.metrics.registerGauge('switchyard_reservations_open', 'Reservations held by calls in flight, on every instance', () => this.ledger.countOpen());
    const heartbeat = setInterval(() => void this.ledger.extend(this.heldHere(), RESERVATION_TTL_SECONDS).catch(() => undefined), HEARTBEAT_MS);
    const sweep = setInterval(() => void this.sweepExpired().catch((error: Error) => this.logger.error(`sweep failed: ${error.message}`)), SWEEP_MS);
    const idle = setInterval(() => this.retireIdleLeases(), LEASE_IDLE_MS / 2);
    for (const timer of [heartbeat, sweep, idle]) timer.unref();
    this.timers = [heartbeat, sweep, idle];
    // A revoked key or consent, or changed spend limits, must be felt by the next call: leases are given back.
    for (const topic of [API_KEYS_TOPIC, OAUTH_TOKENS_TOPIC]) this.bus.on(topic, () => this.retireAllLeases());
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    this.retireAllLeases();
    await this.flushSettlements();
    // What the retired leases still hold goes back before the database closes (else it waits for the sweeper).
    await Promise.allSettled([...this.returning]);
  }

  /** Reservations this instance keeps alive: calls reserved in the database and leases not yet returned. */
  private heldHere(): string[] {
    return [...this.running, ...[...this.leases.values(), ...this.retired].map((lease) => lease.id)];
  }

  /** Credits once per idempotency key; false when that key already credited (a duplicate, replay or race). */
  credit(userId: string, amountMicros: number, kind: CreditKind, source: string, idempotencyKey: string): Promise<boolean> {
    return this.ledger.credit(userId, amountMicros, kind, source, idempotencyKey);
  }

  /** The ledger, newest first: every credit and debit, in currency units. `cursor` is a previous nextCursor. */
  async history(userId: string, limit: number, cursor: string | null): Promise<LedgerPage> {
    const rows = await this.ledger.entries(userId, limit + 1, cursor);
    const page = rows.slice(0, limit);
    return {
      items: page.map((row) => ({
        id: row.id,
        createdAt: row.createdAt.toISOString(),
        kind: row.kind as LedgerEntryKind,
        amount: toUnits(row.amountMicros),
        reference: row.source,
      })),
      nextCursor: rows.length > limit ? page[page.length - 1].id : null,
    };
  }

  /** The sign-up credit of SIGNUP_CREDIT, once per account. */
  async grantSignupCredit(userId: string): Promise<void> {
    const micros = Math.round(this.config.signupCredit * 1e6);
    if (micros > 0) await this.ledger.credit(userId, micros, 'signup_credit', 'signup', `signup:${userId}`);
  }

  async summary(userId: string): Promise<UsageSummaryResponse & { reservedBudget: number }> {
    const balance = await this.ledger.balance(userId);
    return {
      totalCost: toUnits(balance.debitsMicros),
      maxBudget: toUnits(balance.creditsMicros),
      remainingBudget: toUnits(balance.creditsMicros - balance.debitsMicros),
      reservedBudget: toUnits(balance.reservedMicros),
    };
  }

  /** What each app spent for this user in the current UTC month (settled, plus what open calls hold), by client_id. */
  async appSpendThisMonth(userId: string): Promise<Map<string, number>> {
    const micros = await this.ledger.appSpendThisMonth(userId);
    return new Map([...micros].map(([clientId, amount]) => [clientId, toUnits(amount)]));
  }

  /** Holds the call's worst case (or what remains, if at least the minimum); throws BUDGET_EXHAUSTED otherwise. */
  async reserve(request: ReservationRequest): Promise<Reservation> {
    const key = leaseKey(request);
    const fromLease = this.drawOnLease(key, request);
    if (fromLease) return fromLease;
    this.noteDemand(key, request);
    const id = randomUUID();
    const result = await this.ledger.reserve({ ...request, id, ttlSeconds: RESERVATION_TTL_SECONDS });
    if (result.amountMicros === null) {
      if (result.tripped?.startsWith('app_'))
        throw this.exhausted(result.remainingMicros, `The ${result.tripped.slice(4).replace('_', '-')} spending cap you set for this app is reached`, result.tripped);
      if (result.tripped && result.tripped !== 'account')
        throw this.exhausted(result.remainingMicros, `This API key's ${result.tripped.replace('_', '-')} spend limit is reached`, result.tripped);
      throw this.exhausted(result.remainingMicros);
    }
    this.running.add(id);
    return { id, amountMicros: result.amountMicros };
  }

  /** The call's worst case from this credential's lease, when it has one that covers it. */
  private drawOnLease(key: string, request: ReservationRequest): Reservation | null {
    const lease = this.leases.get(key);
    if (!lease) return null;
    const now = Date.now();
    if (now - lease.takenAt >= LEASE_MAX_AGE_MS || lease.freeMicros < request.worstMicros) {
      // Used up fast: this credential has more calls in flight than the lease covers; the next one is larger.
      const demand = this.demand.get(key);
      if (demand && lease.freeMicros < request.worstMicros && now - lease.takenAt < 1000) demand.leaseCalls = Math.min(LEASE_CALLS_MAX, demand.leaseCalls * 2);
      this.retire(lease);
      return null;
    }
    lease.freeMicros -= request.worstMicros;
    lease.inFlight += 1;
    lease.lastUsedAt = now;
    return { id: randomUUID(), amountMicros: request.worstMicros, lease: { lease, requestId: request.requestId, settled: false } };
  }

  /** Counts a credential's database reservations; a busy one gets a lease, taken off the call's path. */
  private noteDemand(key: string, request: ReservationRequest): void {
    const second = Math.floor(Date.now() / 1000);
    let demand = this.demand.get(key);
    if (!demand) this.demand.set(key, (demand = { second, calls: 0, acquiring: false, refusedUntil: 0, leaseCalls: LEASE_CALLS }));
    if (demand.second !== second) Object.assign(demand, { second, calls: 0 });
    demand.calls += 1;
    if (demand.calls < LEASE_AFTER_CALLS || demand.acquiring || this.leases.has(key) || Date.now() < demand.refusedUntil) return;
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
      requestId: `lease:${id}`,
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
    const lease: Lease = { id, key, takenAt: now, freeMicros: result.amountMicros, inFlight: 0, unwritten: 0, lastUsedAt: now };
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
    for (const lease of [...this.leases.values()]) if (now - lease.lastUsedAt >= LEASE_IDLE_MS || now - lease.takenAt >= LEASE_MAX_AGE_MS) this.retire(lease);
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

  exhausted(remainingMicros: number, message = 'Your budget is exhausted: add funds to continue', limit = 'account'): UsageException {
    return new UsageException(UsageErrorCode.BUDGET_EXHAUSTED, message, {
      limit,
      remainingBudget: toUnits(Math.max(0, remainingMicros)),
      topUpUrl: `${this.config.publicUrl}/billing`,
    });
  }

  /**
   * Settles once. Settlements are batched (one statement per SETTLE_INTERVAL_MS or SETTLE_BATCH calls), so a
   * busy account's balance row is written once per batch rather than once per call; a failed batch is retried,
   * then left to the expiry sweeper. Resolves with what was debited (0 if it had been settled elsewhere).
   */
  settle(reservation: Reservation, costMicros: number, reason: string): Promise<number> {
    if (reservation.lease) return this.settleLeased(reservation, costMicros, reason);
    this.running.delete(reservation.id);
    return new Promise((resolve) => {
      this.pending.push({ id: reservation.id, costMicros, reason, resolve });
      this.scheduleFlush();
    });
  }

  private settleLeased(reservation: Reservation, costMicros: number, reason: string): Promise<number> {
    const drawn = reservation.lease!;
    if (drawn.settled) return Promise.resolve(0);
    drawn.settled = true;
    const { lease } = drawn;
    const cost = Math.min(reservation.amountMicros, Math.max(0, Math.round(costMicros)));
    lease.freeMicros += reservation.amountMicros - cost;
    lease.inFlight -= 1;
    lease.unwritten += 1;
    return new Promise((resolve) => {
      this.pendingLeased.push({ lease, leaseId: lease.id, id: reservation.id, requestId: drawn.requestId, holdMicros: reservation.amountMicros, costMicros: cost, reason, resolve });
      this.scheduleFlush();
    });
  }

  private scheduleFlush(): void {
    if (this.pending.length + this.pendingLeased.length >= SETTLE_BATCH) void this.flushSettlements();
    else this.settleTimer ??= setTimeout(() => void this.flushSettlements(), SETTLE_INTERVAL_MS);
  }

  /** Writes every queued settlement now (also at shutdown). */
  async flushSettlements(): Promise<void> {
    // One writer at a time: a caller (shutdown) waits for a batch a timer already started, then writes the rest.
    await this.flushing.run(() => this.writeSettlements());
  }

  /**
   * Writes the settlements queued when it starts. Those that arrive while it writes wait for their own batch (the
   * interval's timer, or a full batch): looping on until the queue was empty wrote a batch per database round trip
   * under load, a dozen calls each instead of an interval's worth (docs/benchmarks.md).
   */
  private async writeSettlements(): Promise<void> {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    let leased = this.pendingLeased.length;
    let plain = this.pending.length;
    while (leased > 0) {
      const batch = this.pendingLeased.splice(0, Math.min(leased, SETTLE_BATCH));
      leased -= batch.length;
      const settled = await this.withRetries(`settling ${batch.length} calls of leases`, () => this.ledger.settleLeased(batch));
      for (const item of batch) {
        item.lease.unwritten -= 1;
        item.resolve(settled?.get(item.id) ?? 0);
      }
      this.returnLeases();
    }
    while (plain > 0) {
      const batch = this.pending.splice(0, Math.min(plain, SETTLE_BATCH));
      plain -= batch.length;
      const settled = await this.withRetries(`settling ${batch.length} reservations`, () => this.ledger.settleMany(batch));
      // A reservation named twice in a batch is debited once: only its first settlement reports the amount.
      const reported = new Set<string>();
      for (const item of batch) {
        item.resolve(reported.has(item.id) ? 0 : (settled?.get(item.id) ?? 0));
        reported.add(item.id);
      }
    }
  }

  /** A deadlock with another instance's batch rolls the whole statement back: safe to run again, twice. */
  private async withRetries<T>(what: string, run: () => Promise<T>): Promise<T | null> {
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      try {
        return await run();
      } catch (error) {
        this.logger.error(`${what} failed (attempt ${attempt}): ${(error as Error).message}`);
        if (attempt < 3) await new Promise((resolve) => setTimeout(resolve, 50 * attempt));
      }
    }
    return null;
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

/** Leases are per credential: the user with the key, or with the app, the call came with. */
function leaseKey(request: ReservationRequest): string {
  return `${request.userId}|${request.apiKeyId ?? ''}|${request.oauthClientId ?? ''}`;
}
