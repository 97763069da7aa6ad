import { randomUUID } from 'node:crypto';
import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { InvalidationBus } from '../../../common/redis/invalidation-bus';
import { API_KEYS_TOPIC, OAUTH_TOKENS_TOPIC } from '../../../common/redis/topics';
import {
  RESERVATION_TTL_SECONDS,
  type Lease,
  type LeaseDraw,
  type Reservation,
  type ReservationRequest,
} from './reservation';
import { ReservationsRepository } from './reservations.repository';

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
/**
 * A lease still in use at this age, or with less than this share of its amount free, has its successor taken while
 * calls go on drawing on it: else, once it aged out or was used up, every call of the credential reserved in the
 * database (queued on the account's row lock behind the settlement batches) until 20 of them had asked for the next
 * one and it was granted, some 50 calls at each renewal under load.
 */
const LEASE_RENEW_AT_MS = 8_000;
const LEASE_RENEW_FREE_SHARE = 0.25;

/** A credential's recent database reservations, and how large its next lease is. */
interface Demand {
  second: number;
  calls: number;
  acquiring: boolean;
  refusedUntil: number;
  leaseCalls: number;
}

/**
 * Leases (docs/budgets.md, "Leases"): a credential that makes 20 calls reserved in the database within a second
 * gets one `sy_reserve` hold on this instance, taken off the calls' path, and its later calls draw their worst case
 * on it in memory. A lease is retired when it is old, idle, used up, when any key or app grant changes (the
 * invalidation bus) and at shutdown; it is given back once no call draws on it and its calls' settlements are
 * written (SettlementQueue tells it, through `queued` and `written`).
 */
@Injectable()
export class Leases implements OnModuleInit {
  /** The lease each credential draws on now (a lease is active while it is here), and leases retired but not yet returned. */
  private readonly active = new Map<string, Lease>();
  private readonly retired = new Set<Lease>();
  /** Leases being given back (awaited before a refusal and at shutdown). */
  private readonly returning = new Set<Promise<void>>();
  /** Bumped when credentials or limits change: a lease taken across a change is retired before it is used. */
  private generation = 0;
  /** Per credential: database reservations in the current second, and whether a lease is being taken. */
  private readonly demand = new Map<string, Demand>();
  private idleTimer: NodeJS.Timeout | undefined;
  private readonly logger = new Logger('Reservations');

  constructor(
    private readonly ledger: ReservationsRepository,
    private readonly bus: InvalidationBus,
  ) {}

  onModuleInit(): void {
    this.idleTimer = setInterval(() => this.retireIdle(), LEASE_IDLE_MS / 2);
    this.idleTimer.unref();
    // A revoked key or consent, or changed spend limits, must be felt by the next call: leases are given back.
    for (const topic of [API_KEYS_TOPIC, OAUTH_TOKENS_TOPIC]) this.bus.on(topic, () => this.retireAll());
  }

  /** At shutdown: every lease is retired (and given back once its calls are written). */
  stop(): void {
    clearInterval(this.idleTimer);
    this.retireAll();
  }

  /** The call's worst case from this credential's lease, when it has one that covers it. */
  draw(key: string, request: ReservationRequest): Reservation | null {
    const lease = this.active.get(key);
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
    const low = lease.freeMicros < lease.sizeMicros * LEASE_RENEW_FREE_SHARE;
    if (low || now - lease.takenAt >= LEASE_RENEW_AT_MS) this.renew(key, request, low && now - lease.takenAt < 1000);
    return { id: request.id, amountMicros: request.worstMicros, request, lease: { lease, settled: false } };
  }

  /**
   * Takes the successor of a credential's lease that is about to age out or run out (one at a time; the lease is
   * retired when it comes); `fast`: it is running out within a second, so the successor is twice as large.
   */
  private renew(key: string, request: ReservationRequest, fast: boolean): void {
    const demand = this.demand.get(key);
    if (!demand || demand.acquiring || Date.now() < demand.refusedUntil) return;
    if (fast) demand.leaseCalls = Math.min(LEASE_CALLS_MAX, demand.leaseCalls * 2);
    this.acquire(key, request, demand);
  }

  /** Counts a credential's database reservations; a busy one gets a lease, taken off the call's path. */
  noteDemand(key: string, request: ReservationRequest): void {
    const second = Math.floor(Date.now() / 1000);
    let demand = this.demand.get(key);
    if (!demand)
      this.demand.set(key, (demand = { second, calls: 0, acquiring: false, refusedUntil: 0, leaseCalls: LEASE_CALLS }));
    if (demand.second !== second) Object.assign(demand, { second, calls: 0 });
    demand.calls += 1;
    if (
      demand.calls < LEASE_AFTER_CALLS ||
      demand.acquiring ||
      this.active.has(key) ||
      Date.now() < demand.refusedUntil
    )
      return;
    this.acquire(key, request, demand);
  }

  private acquire(key: string, request: ReservationRequest, demand: Demand): void {
    demand.acquiring = true;
    void this.take(key, request, demand)
      .catch((error: Error) => this.logger.warn(`taking a lease failed: ${error.message}`))
      .finally(() => {
        demand.acquiring = false;
        if (this.demand.size > 10_000) this.demand.clear();
      });
  }

  private async take(key: string, request: ReservationRequest, demand: Demand): Promise<void> {
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
      markupPercent: request.markupPercent,
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
      sizeMicros: result.amountMicros,
      inFlight: 0,
      unwritten: 0,
      lastUsedAt: now,
    };
    // A successor (renew): the lease it follows draws no more calls, and goes back once its own are written.
    const previous = this.active.get(key);
    if (previous) this.retire(previous);
    this.active.set(key, lease);
    // Limits or credentials changed while it was being taken: it must not be used.
    if (generation !== this.generation) this.retire(lease);
  }

  /**
   * A drawn call is done with `keptMicros` of its lease (its cost; more than it drew when the lease covers a cost
   * above the hold): the rest of what it drew is free again.
   */
  endDraw(drawn: LeaseDraw, drewMicros: number, keptMicros: number): void {
    drawn.settled = true;
    drawn.lease.freeMicros += drewMicros - keptMicros;
    drawn.lease.inFlight -= 1;
  }

  /** The lease can take `extraMicros` more than a call drew (a cost above its hold). */
  covers(drawn: LeaseDraw, extraMicros: number): boolean {
    return drawn.lease.freeMicros >= extraMicros;
  }

  /** A settlement drawn on the lease is queued: the lease is not given back until it is written. */
  queued(lease: Lease): void {
    lease.unwritten += 1;
  }

  /** A settlement drawn on the lease is written; a retired lease goes back once its last one is. */
  written(lease: Lease): void {
    lease.unwritten -= 1;
    if (!lease.unwritten) this.giveBack();
  }

  /** Retires this user's leases here (before a refusal: what they hold is free again once given back); how many. */
  retireUser(userId: string): number {
    const prefix = `${userId}|`;
    const leases = [...this.active.values()].filter((lease) => lease.key.startsWith(prefix));
    for (const lease of leases) this.retire(lease);
    return leases.length;
  }

  retireAll(): void {
    this.generation += 1;
    for (const lease of [...this.active.values()]) this.retire(lease);
  }

  private retireIdle(): void {
    const now = Date.now();
    for (const lease of [...this.active.values()])
      if (now - lease.lastUsedAt >= LEASE_IDLE_MS || now - lease.takenAt >= LEASE_MAX_AGE_MS) this.retire(lease);
  }

  private retire(lease: Lease): void {
    if (this.active.get(lease.key) !== lease) return;
    this.active.delete(lease.key);
    this.retired.add(lease);
    this.giveBack();
  }

  /** Gives back what retired leases still hold, once no call draws on them and their calls' settlements are written. */
  giveBack(): void {
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

  /** Leases are being given back. */
  get returningAny(): boolean {
    return this.returning.size > 0;
  }

  /** Resolves once the leases being given back now are (each given back or left to the sweeper). */
  async returned(): Promise<void> {
    await Promise.allSettled([...this.returning]);
  }

  /** The ids of the leases this instance keeps alive: active ones and retired ones not yet given back. */
  heldIds(): string[] {
    return [...this.active.values(), ...this.retired].map((lease) => lease.id);
  }
}
