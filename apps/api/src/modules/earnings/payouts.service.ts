import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type Stripe from 'stripe';
import { PAYMENT_CURRENCY, type EarningsPayout, type EarningsPayoutResponse } from '@switchyard/shared-dto';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { createStripeClient } from '../payments';
import { CENT_MICROS, EarningsService, type PayoutRow, toUnits } from '../usage';
import { EarningsErrorCode, EarningsException } from './earnings.exception';

/**
 * Payouts of available earnings (docs/earnings.md, "Payouts"): a Stripe Connect account linked through Stripe's
 * hosted onboarding, and each payout one Stripe transfer keyed by the payout's id, so a retry (a double click, a
 * lost answer, Stripe down) sends it once. Without STRIPE_SECRET_KEY the sandbox stands in, as for the checkout:
 * a labelled account and transfers that exist only here.
 */
@Injectable()
export class PayoutsService {
  private readonly stripe: Stripe | null;
  private readonly logger = new Logger('Payouts');

  constructor(
    private readonly earnings: EarningsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {
    this.stripe = createStripeClient(config);
  }

  /** The hosted onboarding link of the maker's account (made at the first ask; the sandbox's: back to the page). */
  async connect(makerId: string): Promise<string> {
    const books = this.earnings.payouts;
    let account = await books.account(makerId);
    if (!account) {
      const created = this.stripe
        ? await this.stripe.accounts.create(
            { type: 'express', metadata: { user_id: makerId } },
            { idempotencyKey: `connect:${makerId}` },
          )
        : { id: `acct_sandbox_${randomBytes(8).toString('hex')}` };
      account = await books.saveAccount(makerId, created.id, !this.stripe);
    }
    const page = `${this.config.publicUrl}/earnings`;
    if (account.sandbox || !this.stripe) return `${page}?connected=sandbox`;
    const link = await this.stripe.accountLinks.create({
      account: account.accountId,
      refresh_url: `${page}?connect=refresh`,
      return_url: `${page}?connect=done`,
      type: 'account_onboarding',
    });
    return link.url;
  }

  /**
   * Pays out every available earning: first sends again any payout still pending, then takes what is available
   * (whole cents; below a cent goes to the budget) and sends it. Answers the new payout (null when nothing was
   * available) and what went to the budget.
   */
  async payout(makerId: string): Promise<EarningsPayoutResponse> {
    const books = this.earnings.payouts;
    const account = await books.account(makerId);
    if (!account)
      throw new EarningsException(
        EarningsErrorCode.PAYOUT_ACCOUNT_MISSING,
        'Link a payout account first (Earnings page, "Set up payouts")',
      );
    for (const pending of await books.pending(makerId)) await this.send(pending);
    const id = randomUUID();
    const started = await books.start(makerId, id, account.accountId, account.sandbox);
    const made = started.payout > 0 ? (await books.list(makerId, 50)).find((payout) => payout.id === id) : undefined;
    if (made) await this.send(made);
    const sent = made ? (await books.list(makerId, 50)).find((payout) => payout.id === id) : undefined;
    return { payout: sent ? toResponse(sent) : null, credited: toUnits(started.credited) };
  }

  async list(makerId: string): Promise<{ connected: boolean; sandbox: boolean; payouts: EarningsPayout[] }> {
    const account = await this.earnings.payouts.account(makerId);
    const payouts = await this.earnings.payouts.list(makerId, 50);
    return { connected: account !== null, sandbox: account?.sandbox ?? !this.stripe, payouts: payouts.map(toResponse) };
  }

  /** One transfer per payout, keyed by its id; a failure leaves it pending (sent again by the next payout). */
  private async send(payout: PayoutRow): Promise<void> {
    let transferId: string;
    if (payout.sandbox || !this.stripe) transferId = `tr_sandbox_${payout.id.replace(/-/g, '')}`;
    else {
      try {
        const transfer = await this.stripe.transfers.create(
          {
            amount: payout.amountMicros / CENT_MICROS,
            currency: PAYMENT_CURRENCY,
            destination: payout.accountId,
            metadata: { payout_id: payout.id },
          },
          { idempotencyKey: `payout:${payout.id}` },
        );
        transferId = transfer.id;
      } catch (error) {
        this.logger.warn(`payout ${payout.id}: the transfer failed (${(error as Error).message}); kept pending`);
        throw new EarningsException(
          EarningsErrorCode.PAYOUT_PENDING,
          'Stripe did not take the payout; it stays pending and is sent again (once) with your next payout',
        );
      }
    }
    await this.earnings.payouts.paid(payout.id, transferId);
  }
}

function toResponse(payout: PayoutRow): EarningsPayout {
  return {
    id: payout.id,
    amount: toUnits(payout.amountMicros),
    status: payout.status,
    transferId: payout.transferId,
    sandbox: payout.sandbox,
    createdAt: payout.createdAt.toISOString(),
    paidAt: payout.paidAt?.toISOString() ?? null,
  };
}
