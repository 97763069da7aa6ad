import { randomUUID } from 'node:crypto';
import { Inject, Injectable, OnModuleInit } from '@nestjs/common';
import type { EarningsDay, EarningsResponse } from '@switchyard/shared-dto';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import { EarningsRepository } from './earnings.repository';
import { PayoutsRepository } from './payouts.repository';
import type { PayoutRow } from './payouts.repository';
import { toUnits } from './ledger.service';

/** How many UTC days the earnings page and its CSV cover. */
export const EARNINGS_DAYS = 90;

export type { PayoutRow };

/**
 * An app maker's earnings (docs/earnings.md): written by the database as each call through a marked-up app settles
 * (the same statement as the user's debit), read here per app and per day, and moved into the maker's budget once
 * past the hold. At start it hands the database the operator's fee and hold (PLATFORM_FEE_PERCENT, EARNINGS_HOLD_DAYS).
 */
@Injectable()
export class EarningsService implements OnModuleInit {
  constructor(
    private readonly repository: EarningsRepository,
    /** The payouts' books (docs/earnings.md, "Payouts"); Stripe is the earnings module's PayoutsService's. */
    readonly payouts: PayoutsRepository,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onModuleInit(): Promise<void> {
    await this.repository.writeSettings(this.config.platformFeePercent, this.config.earningsHoldDays);
  }

  async earnings(makerId: string): Promise<EarningsResponse> {
    const [totals, apps, days] = await Promise.all([
      this.repository.totals(makerId),
      this.repository.byApp(makerId),
      this.repository.byDay(makerId, EARNINGS_DAYS),
    ]);
    return {
      totals: { pending: toUnits(totals.pending), available: toUnits(totals.available), moved: toUnits(totals.moved) },
      platformFeePercent: this.config.platformFeePercent,
      holdDays: this.config.earningsHoldDays,
      apps: apps.map((app) => ({
        clientId: app.clientId,
        clientName: app.clientName,
        markupPercent: app.markup,
        calls: app.calls,
        paid: toUnits(app.paid),
        providerCost: toUnits(app.provider),
        fees: toUnits(app.fees),
        earnings: toUnits(app.earnings),
        pending: toUnits(app.pending),
        available: toUnits(app.available),
        moved: toUnits(app.moved),
      })),
      days: days.map((day): EarningsDay => ({
        date: day.date,
        clientId: day.clientId,
        calls: day.calls,
        paid: toUnits(day.paid),
        providerCost: toUnits(day.provider),
        fees: toUnits(day.fees),
        earnings: toUnits(day.earnings),
        pending: toUnits(day.pending),
        available: toUnits(day.available),
      })),
    };
  }

  /** The per-day table as CSV (amounts in currency units, to the micro-unit). */
  async csv(makerId: string): Promise<string> {
    const { days } = await this.earnings(makerId);
    const lines = ['date,client_id,calls,paid,provider_cost,fees,earnings,pending,available'];
    for (const day of days)
      lines.push(
        [
          day.date,
          day.clientId,
          day.calls,
          day.paid,
          day.providerCost,
          day.fees,
          day.earnings,
          day.pending,
          day.available,
        ]
          .map(String)
          .join(','),
      );
    return `${lines.join('\n')}\n`;
  }

  /** Moves every available earning into the maker's own budget, at once; answers how much (currency units). */
  async moveToBudget(makerId: string): Promise<number> {
    return toUnits(await this.repository.moveAvailable(makerId, randomUUID()));
  }
}
