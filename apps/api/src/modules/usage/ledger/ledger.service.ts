import { Inject, Injectable } from '@nestjs/common';
import type {
  DailySpendPage,
  LedgerEntryKind,
  LedgerPage,
  LedgerSide,
  UsageSummaryResponse,
} from '@switchyard/shared-dto';
import type { EntityManager } from 'typeorm';
import { isCheckViolation } from '../../../common/database/postgres-errors';
import { APP_CONFIG } from '../../../config/config.module';
import { UsageErrorCode, UsageException } from '../usage.exception';
import type { AppConfig } from '../../../config/config.schema';
import { DAY_MS } from '../usage-window';
import { CreditKind, LedgerRepository } from './ledger.repository';

/** A credit made (once, by its idempotency key): what the notifications module mails a receipt for. */
export interface CreditEvent {
  userId: string;
  amountMicros: number;
  kind: CreditKind;
  /** The credit's reference: a Checkout Session id, a gift card id, `admin:<id>`. */
  source: string;
}

/** Micro-units to currency units, for answers (exact to the micro-unit). */
export const toUnits = (micros: number) => micros / 1e6;

/**
 * The ledger's face (docs/budgets.md): credits (payments, gift cards, sign-up, admin), each exactly once per
 * idempotency key, and the reads of it (summary, history). What calls hold and spend is ReservationService's.
 */
@Injectable()
export class LedgerService {
  private readonly creditListeners: ((event: CreditEvent) => void)[] = [];

  constructor(
    private readonly ledger: LedgerRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /**
   * Credits once per idempotency key; false when that key already credited (a duplicate, replay or race). The one
   * credit that is made is announced to the credit listeners (a receipt by mail), whichever path made it.
   */
  async credit(
    userId: string,
    amountMicros: number,
    kind: CreditKind,
    source: string,
    idempotencyKey: string,
  ): Promise<boolean> {
    const made = await this.ledger.credit(userId, amountMicros, kind, source, idempotencyKey);
    if (made) this.announceCredit({ userId, amountMicros, kind, source });
    return made;
  }

  /**
   * Where a module above this one hears of every credit made (the notifications module mails a receipt; the usage
   * module cannot import it). Listeners run after the credit is written; one that throws is ignored.
   */
  onCredit(listener: (event: CreditEvent) => void): void {
    this.creditListeners.push(listener);
  }

  /** Announces a credit written in a caller's transaction, once that transaction has committed (an adjustment). */
  announceCredit(event: CreditEvent): void {
    for (const listener of this.creditListeners) {
      try {
        listener(event);
      } catch {
        // A receipt is a courtesy: it never fails the credit.
      }
    }
  }

  /**
   * The ledger, newest first: every credit and debit (or those of one `side`), in currency units. `cursor` is a
   * previous nextCursor.
   */
  async history(
    userId: string,
    limit: number,
    cursor: string | null,
    side: LedgerSide | null = null,
  ): Promise<LedgerPage> {
    const rows = await this.ledger.entries(userId, limit + 1, cursor, side);
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

  /**
   * What the calls were charged per UTC day, newest first: a page is a window of `limit` days ending before
   * `cursor` (a date; tomorrow when absent), skipping ahead over a window without any spend, so a page is empty
   * only at the end. nextCursor is the window's first day while older spend exists.
   */
  async dailySpend(userId: string, limit: number, cursor: string | null): Promise<DailySpendPage> {
    const shift = (day: string, days: number) =>
      new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
    let to = cursor ?? shift(new Date().toISOString().slice(0, 10), 1);
    for (;;) {
      const from = shift(to, -limit);
      const rows = await this.ledger.dailySpend(userId, from, to);
      const older = await this.ledger.lastSpendDayBefore(userId, from);
      if (rows.length || !older)
        return {
          items: rows.map((row) => ({ day: row.day, amount: toUnits(row.micros), calls: row.calls })),
          nextCursor: older ? from : null,
        };
      // A window without spend: the next one ends just after the latest day that had some.
      to = shift(older, 1);
    }
  }

  /**
   * An operator's adjustment of a balance, in the caller's transaction (the admin module writes its audit entry in
   * the same one): credited or debited once per `idempotencyKey`. Throws ADJUSTMENT_EXCEEDS_BALANCE when a debit
   * would take the balance (less what calls in flight hold) below zero, ADJUSTMENT_KEY_REUSED when the key was
   * used for another account.
   */
  async adjust(
    manager: EntityManager,
    userId: string,
    amountMicros: number,
    source: string,
    idempotencyKey: string,
  ): Promise<{ entryId: string; applied: boolean }> {
    const key = `adjustment:${idempotencyKey}`;
    let written: { entryId: string; applied: boolean } | null;
    try {
      written = await this.ledger.adjust(manager, userId, amountMicros, source, key);
    } catch (error) {
      if (isCheckViolation(error))
        throw new UsageException(
          UsageErrorCode.ADJUSTMENT_EXCEEDS_BALANCE,
          'The balance cannot go below zero: debit at most what the account has free',
          { field: 'amount' },
        );
      throw error;
    }
    if (written) return written;
    // The same key in a request racing with this one: its entry committed after this statement's snapshot.
    const earlier = await this.ledger.findAdjustment(manager, userId, key);
    if (earlier) return { entryId: earlier, applied: false };
    throw new UsageException(
      UsageErrorCode.ADJUSTMENT_KEY_REUSED,
      'This idempotency key was used for another account: make a new one',
      { field: 'idempotencyKey' },
    );
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
}
