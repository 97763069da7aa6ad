import { MetricsService } from '../../../common/metrics/metrics';
import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { LedgerEntryKind, LedgerPage, UsageSummaryResponse } from '@switchyard/shared-dto';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import { UsageErrorCode, UsageException } from '../usage.exception';
import { CreditKind, LedgerRepository, ReserveInput } from './ledger.repository';

/** What a caller asks to hold; the service adds the reservation's id and lifetime. */
export type ReservationRequest = Omit<ReserveInput, 'id' | 'ttlSeconds'>;

export interface Reservation {
  id: string;
  amountMicros: number;
}

/** Seconds a reservation lives without a heartbeat; calls still running here extend theirs every minute. */
const RESERVATION_TTL_SECONDS = 300;
const HEARTBEAT_MS = 60_000;
const SWEEP_MS = 30_000;
const SETTLE_INTERVAL_MS = 20;
const SETTLE_BATCH = 200;

export const toUnits = (micros: number) => micros / 1e6;

/**
 * Budgets (decisions.md section 10): every call reserves its worst-case cost before it is forwarded and settles
 * exactly once when it ends. Reservations of an instance that died expire and are settled by the sweeper from
 * what was recorded when they were made (the estimated input), on any instance.
 */
@Injectable()
export class BudgetService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly running = new Set<string>();
  private readonly pending: { id: string; costMicros: number; reason: string; resolve: (debited: number) => void }[] = [];
  private settleTimer: NodeJS.Timeout | undefined;
  private timers: NodeJS.Timeout[] = [];
  private readonly logger = new Logger('Budget');

  constructor(
    private readonly ledger: LedgerRepository,
    private readonly metrics: MetricsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    this.metrics.registerGauge('switchyard_reservations_open', 'Reservations held by calls in flight, on every instance', () => this.ledger.countOpen());
    const heartbeat = setInterval(() => void this.ledger.extend([...this.running], RESERVATION_TTL_SECONDS).catch(() => undefined), HEARTBEAT_MS);
    const sweep = setInterval(() => void this.sweepExpired().catch((error: Error) => this.logger.error(`sweep failed: ${error.message}`)), SWEEP_MS);
    heartbeat.unref();
    sweep.unref();
    this.timers = [heartbeat, sweep];
  }

  async beforeApplicationShutdown(): Promise<void> {
    for (const timer of this.timers) clearInterval(timer);
    await this.flushSettlements();
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
    this.running.delete(reservation.id);
    return new Promise((resolve) => {
      this.pending.push({ id: reservation.id, costMicros, reason, resolve });
      if (this.pending.length >= SETTLE_BATCH) void this.flushSettlements();
      else this.settleTimer ??= setTimeout(() => void this.flushSettlements(), SETTLE_INTERVAL_MS);
    });
  }

  /** Writes every queued settlement now (also at shutdown). */
  async flushSettlements(): Promise<void> {
    clearTimeout(this.settleTimer);
    this.settleTimer = undefined;
    while (this.pending.length) {
      const batch = this.pending.splice(0, SETTLE_BATCH);
      let settled: Map<string, number> | null = null;
      for (let attempt = 0; attempt < 3 && !settled; attempt += 1) {
        try {
          settled = await this.ledger.settleMany(batch);
        } catch (error) {
          // A deadlock with another instance's batch rolls the whole statement back: safe to run again.
          this.logger.error(`settling ${batch.length} reservations failed (attempt ${attempt + 1}): ${(error as Error).message}`);
          await new Promise((resolve) => setTimeout(resolve, 50 * (attempt + 1)));
        }
      }
      // A reservation named twice in a batch is debited once: only its first settlement reports the amount.
      const reported = new Set<string>();
      for (const item of batch) {
        item.resolve(reported.has(item.id) ? 0 : (settled?.get(item.id) ?? 0));
        reported.add(item.id);
      }
    }
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
