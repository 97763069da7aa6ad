import { Inject, Injectable } from '@nestjs/common';
import type { LedgerEntryKind, LedgerPage, UsageSummaryResponse } from '@switchyard/shared-dto';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import { CreditKind, LedgerRepository } from './ledger.repository';

/** Micro-units to currency units, for answers (exact to the micro-unit). */
export const toUnits = (micros: number) => micros / 1e6;

/**
 * The ledger's face (docs/budgets.md): credits (payments, gift cards, sign-up, admin), each exactly once per
 * idempotency key, and the reads of it (summary, history). What calls hold and spend is ReservationService's.
 */
@Injectable()
export class LedgerService {
  constructor(
    private readonly ledger: LedgerRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** Credits once per idempotency key; false when that key already credited (a duplicate, replay or race). */
  credit(
    userId: string,
    amountMicros: number,
    kind: CreditKind,
    source: string,
    idempotencyKey: string,
  ): Promise<boolean> {
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
}
