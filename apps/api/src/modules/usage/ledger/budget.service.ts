import { randomUUID } from 'node:crypto';
import { BeforeApplicationShutdown, Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import type { UsageSummaryResponse } from '@switchyard/shared-dto';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import { UsageErrorCode, UsageException } from '../usage.exception';
import { CreditKind, LedgerRepository } from './ledger.repository';

export interface ReservationRequest {
  requestId: string;
  userId: string;
  apiKeyId: string | null;
  oauthClientId: string | null;
  worstMicros: number;
  minimumMicros: number;
  inputEstimateMicros: number;
}

export interface Reservation {
  id: string;
  amountMicros: number;
}

/** Seconds a reservation lives without a heartbeat; calls still running here extend theirs every minute. */
const RESERVATION_TTL_SECONDS = 300;
const HEARTBEAT_MS = 60_000;
const SWEEP_MS = 30_000;

export const toUnits = (micros: number) => micros / 1e6;

/**
 * Budgets (decisions.md section 10): every call reserves its worst-case cost before it is forwarded and settles
 * exactly once when it ends. Reservations of an instance that died expire and are settled by the sweeper from
 * what was recorded when they were made (the estimated input), on any instance.
 */
@Injectable()
export class BudgetService implements OnModuleInit, BeforeApplicationShutdown {
  private readonly running = new Set<string>();
  private timers: NodeJS.Timeout[] = [];
  private readonly logger = new Logger('Budget');

  constructor(
    private readonly ledger: LedgerRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    const heartbeat = setInterval(() => void this.ledger.extend([...this.running], RESERVATION_TTL_SECONDS).catch(() => undefined), HEARTBEAT_MS);
    const sweep = setInterval(() => void this.sweepExpired().catch((error: Error) => this.logger.error(`sweep failed: ${error.message}`)), SWEEP_MS);
    heartbeat.unref();
    sweep.unref();
    this.timers = [heartbeat, sweep];
  }

  beforeApplicationShutdown(): void {
    for (const timer of this.timers) clearInterval(timer);
  }

  credit(userId: string, amountMicros: number, kind: CreditKind, source: string, idempotencyKey: string): Promise<boolean> {
    return this.ledger.credit(userId, amountMicros, kind, source, idempotencyKey);
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

  /** Holds the call's worst case (or what remains, if at least the minimum); throws BUDGET_EXHAUSTED otherwise. */
  async reserve(request: ReservationRequest): Promise<Reservation> {
    const id = randomUUID();
    const result = await this.ledger.reserve({ ...request, id, ttlSeconds: RESERVATION_TTL_SECONDS });
    if (result.amountMicros === null) throw this.exhausted(result.remainingMicros);
    this.running.add(id);
    return { id, amountMicros: result.amountMicros };
  }

  exhausted(remainingMicros: number, message = 'Your budget is exhausted: add funds to continue'): UsageException {
    return new UsageException(UsageErrorCode.BUDGET_EXHAUSTED, message, {
      remainingBudget: toUnits(Math.max(0, remainingMicros)),
      topUpUrl: `${this.config.publicUrl}/billing`,
    });
  }

  /** Settles once; a failure is retried a few times, then left to the expiry sweeper. Returns what was debited. */
  async settle(reservation: Reservation, costMicros: number, reason: string): Promise<number> {
    this.running.delete(reservation.id);
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        return (await this.ledger.settle(reservation.id, costMicros, reason)) ?? 0;
      } catch (error) {
        this.logger.error(`settling reservation ${reservation.id} failed (attempt ${attempt + 1}): ${(error as Error).message}`);
        await new Promise((resolve) => setTimeout(resolve, 200 * (attempt + 1)));
      }
    }
    return Math.min(costMicros, reservation.amountMicros);
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
