import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import type { PaymentRefundResponse } from '@switchyard/shared-dto';
import Stripe from 'stripe';
import { AuditLogService } from '../audit';
import { toUnits } from '../usage';
import { PaymentsErrorCode, PaymentsException } from './payments.exception';
import { PaymentsRepository } from './payments.repository';
import type { EntityManager } from 'typeorm';
import { RecordOutcome, RefundKind, RefundRow, RefundsRepository } from './refunds.repository';
import { STRIPE_CLIENT } from './stripe.provider';

const MICROS_PER_CENT = 10_000;

/**
 * Refunds and disputes of card top-ups (docs/payments.md, "Refunds and disputes"). Each is recorded once, keyed
 * by Stripe's refund or dispute id (the sandbox's `re_sandbox_…`), whichever of the admin's request and Stripe's
 * webhooks arrives first: the amount leaves the user's balance, at most what the balance has free; the rest is the
 * operator's loss. A balance never goes below zero.
 */
@Injectable()
export class RefundsService {
  private readonly logger = new Logger('Refunds');

  constructor(
    private readonly refunds: RefundsRepository,
    private readonly payments: PaymentsRepository,
    @Inject(STRIPE_CLIENT) private readonly stripe: Stripe | null,
    private readonly audit: AuditLogService,
  ) {}

  /**
   * An admin's refund of a paid top-up: `amount` (units, whole cents) or what is left of it. At Stripe first (its
   * id keys the record, so the charge.refunded webhook that follows takes nothing more), the sandbox's own id
   * when the top-up was made in the sandbox.
   */
  /** `adminId`: null from the command line (`npm run admin -- refund`). */
  async refund(
    adminId: string | null,
    userId: string,
    paymentId: string,
    amount: number | undefined,
  ): Promise<PaymentRefundResponse> {
    // In the audit log in the refund's own transaction, with what it did.
    const onRecorded = (manager: EntityManager, refund: RefundRow) =>
      this.audit.append(manager, {
        adminId,
        action: 'payment_refunded',
        targetUserId: userId,
        details: {
          paymentId,
          refundId: refund.id,
          amount: toUnits(refund.amountMicros),
          debited: toUnits(refund.debitedMicros),
          lost: toUnits(refund.lostMicros),
          clawed: toUnits(refund.clawedMicros),
        },
      });
    const payment = await this.payments.findOwned(userId, paymentId);
    if (!payment) throw new PaymentsException(PaymentsErrorCode.PAYMENT_NOT_FOUND, 'No such payment');
    if (!payment.creditedAt)
      throw new PaymentsException(PaymentsErrorCode.PAYMENT_NOT_REFUNDABLE, 'This payment was never paid');
    const micros = amount === undefined ? null : Math.round(amount * 100) * MICROS_PER_CENT;
    const left = await this.refunds.refundable(paymentId);
    if (left <= 0 || (micros !== null && micros > left)) throw this.exceeds(left);
    if (payment.provider === 'sandbox') {
      const id = `re_sandbox_${randomBytes(12).toString('hex')}`;
      // Without an amount, what is left when the top-up's row is locked (a racing refund may have taken some).
      return this.answer(
        await this.refunds.record({
          id,
          paymentId,
          kind: 'refund',
          amountMicros: micros,
          ownerId: userId,
          capToRemaining: false,
          onRecorded,
        }),
      );
    }
    // Stripe holds the limit: a racing refund above what is left is refused there, and nothing is recorded.
    const take = micros ?? left;
    const id = await this.refundAtStripe(paymentId, take);
    return this.answer(
      await this.refunds.record({
        id,
        paymentId,
        kind: 'refund',
        amountMicros: take,
        ownerId: userId,
        capToRemaining: true,
        onRecorded,
      }),
    );
  }

  /**
   * Stripe's refund and dispute events (the signature already checked): `charge.refunded` records each of the
   * charge's succeeded refunds (listed from Stripe, so one made by the admin here or in Stripe's dashboard is taken
   * once, by its id); `charge.dispute.created` takes the disputed amount when Stripe withdraws it, and
   * `charge.dispute.closed` as `lost` takes it if the first did not arrive; a dispute won restores nothing here.
   * A charge not from one of this deployment's Checkout Sessions is acknowledged and ignored.
   */
  async onStripeEvent(event: Stripe.Event): Promise<void> {
    if (!this.stripe) return;
    if (event.type === 'charge.refunded') {
      const charge = event.data.object;
      const paymentId = await this.paymentOf(charge.payment_intent);
      if (!paymentId) return;
      const refunds = await this.stripe.refunds.list({ charge: charge.id, limit: 100 });
      for (const refund of refunds.data)
        if (refund.status === 'succeeded') await this.fromStripe(paymentId, refund.id, 'refund', refund.amount);
      return;
    }
    if (
      event.type === 'charge.dispute.created' ||
      (event.type === 'charge.dispute.closed' && event.data.object.status === 'lost')
    ) {
      const dispute = event.data.object;
      const paymentId = await this.paymentOf(dispute.payment_intent);
      if (paymentId) await this.fromStripe(paymentId, dispute.id, 'dispute', dispute.amount);
    }
  }

  /** The Checkout Session (our payment's id) that made a PaymentIntent, when it is one of ours. */
  private async paymentOf(intent: string | Stripe.PaymentIntent | null): Promise<string | null> {
    const id = typeof intent === 'string' ? intent : intent?.id;
    if (!id || !this.stripe) return null;
    const sessions = await this.stripe.checkout.sessions.list({ payment_intent: id, limit: 1 });
    const session = sessions.data[0];
    return session && (await this.payments.findById(session.id)) ? session.id : null;
  }

  /** Stripe's word (a webhook): a refund or dispute of the charge behind a Checkout Session, once per id. */
  private async fromStripe(paymentId: string, id: string, kind: RefundKind, amountCents: number): Promise<void> {
    const outcome = await this.refunds.record({
      id,
      paymentId,
      kind,
      amountMicros: amountCents * MICROS_PER_CENT,
      capToRemaining: true,
    });
    if (outcome.outcome === 'recorded')
      this.logger.log(
        `${kind} ${id} of ${paymentId}: debited ${toUnits(outcome.refund.debitedMicros)}, lost ${toUnits(outcome.refund.lostMicros)}`,
      );
  }

  private async refundAtStripe(paymentId: string, micros: number): Promise<string> {
    if (!this.stripe) throw this.providerError('This payment was made with Stripe, which is no longer configured');
    try {
      const session = await this.stripe.checkout.sessions.retrieve(paymentId);
      const intent = typeof session.payment_intent === 'string' ? session.payment_intent : session.payment_intent?.id;
      if (!intent) throw new Error('no payment intent');
      const refund = await this.stripe.refunds.create(
        { payment_intent: intent, amount: micros / MICROS_PER_CENT, metadata: { paymentId } },
        { idempotencyKey: `refund:${paymentId}:${randomBytes(8).toString('hex')}` },
      );
      return refund.id;
    } catch (error) {
      const stripeError = error as { type?: string; code?: string; statusCode?: number };
      this.logger.error(
        `refunding ${paymentId} failed: ${stripeError.type ?? 'error'} ${stripeError.code ?? ''}`.trim(),
      );
      throw this.providerError('The payment provider refused or could not take the refund; nothing was refunded');
    }
  }

  private answer(outcome: RecordOutcome): PaymentRefundResponse {
    switch (outcome.outcome) {
      case 'recorded':
      case 'already':
        return {
          refundId: outcome.refund.id,
          paymentId: outcome.refund.paymentId,
          kind: outcome.refund.kind,
          amount: toUnits(outcome.refund.amountMicros),
          debited: toUnits(outcome.refund.debitedMicros),
          lost: toUnits(outcome.refund.lostMicros),
          clawed: toUnits(outcome.refund.clawedMicros),
          refundable: toUnits(outcome.refundableMicros),
        };
      case 'exceeds':
        throw this.exceeds(outcome.refundableMicros);
      case 'nothing_left':
        throw this.exceeds(0);
      case 'not_paid':
        throw new PaymentsException(PaymentsErrorCode.PAYMENT_NOT_REFUNDABLE, 'This payment was never paid');
      default:
        throw new PaymentsException(PaymentsErrorCode.PAYMENT_NOT_FOUND, 'No such payment');
    }
  }

  private exceeds(leftMicros: number): PaymentsException {
    return new PaymentsException(
      PaymentsErrorCode.PAYMENT_NOT_REFUNDABLE,
      `At most ${toUnits(leftMicros)} of this payment can still be refunded`,
    );
  }

  private providerError(message: string): PaymentsException {
    return new PaymentsException(PaymentsErrorCode.PAYMENT_PROVIDER_ERROR, message);
  }
}
