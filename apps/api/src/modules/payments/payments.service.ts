import { randomBytes, randomUUID } from 'node:crypto';
import { Inject, Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { PAYMENT_CURRENCY, type CheckoutSessionResponse, type PaymentVerifyResponse } from '@switchyard/shared-dto';
import Stripe from 'stripe';
import { CommonErrorCode, CommonException } from '../../common/errors/app.exception';
import { APP_CONFIG } from '../../config/config.module';
import { AccountsService } from '../accounts';
import type { AppConfig } from '../../config/config.schema';
import { LedgerService, toUnits } from '../usage';
import type { PaymentEntity } from './entities/payment.entity';
import { PaymentsErrorCode, PaymentsException } from './payments.exception';
import { PaymentsRepository, SESSION_LIFETIME_HOURS } from './payments.repository';
import { renderSandboxPage } from './sandbox-page';
import { RefundsService } from './refunds.service';
import { STRIPE_CLIENT } from './stripe.provider';

const MICROS_PER_CENT = 10_000;
const IDEMPOTENCY_KEY = /^[A-Za-z0-9._:-]{1,100}$/;
const SANDBOX_PATH = '/api/v1/payment/sandbox';

/** The ledger's idempotency key of a session's credit: redirect, retry, webhook and sandbox all use this one. */
export const paymentCreditKey = (sessionId: string) => `payment:${sessionId}`;

type ProviderState = 'paid' | 'unpaid' | 'expired';

/**
 * Card top-ups (docs/payments.md): a Checkout Session per top-up, recorded in `payments` before its URL is
 * handed out; the balance is credited once per session, keyed by the session id in the ledger, whichever of the
 * redirect's verify-and-capture, a retry, the webhook or the sandbox's Pay arrives first.
 */
const successUrl = (origin: string) => `${origin}/billing?session_id=`;
const cancelUrl = (origin: string) => `${origin}/billing?checkout=cancelled`;

@Injectable()
export class PaymentsService implements OnModuleInit {
  private readonly logger = new Logger('Payments');

  constructor(
    private readonly repository: PaymentsRepository,
    private readonly ledger: LedgerService,
    @Inject(STRIPE_CLIENT) private readonly stripe: Stripe | null,
    private readonly accounts: AccountsService,
    private readonly refunds: RefundsService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onModuleInit(): void {
    if (!this.stripe)
      this.logger.warn(
        'STRIPE_SECRET_KEY is unset: card top-ups use the sandbox checkout, where anyone signed in adds funds without paying',
      );
  }

  get sandbox(): boolean {
    return this.stripe === null;
  }

  /** `origin`: the dashboard origin the user is on (requestOrigin), where the checkout returns to. */
  async createCheckoutSession(
    userId: string,
    amount: number,
    origin: string,
    idempotencyKey?: string,
  ): Promise<CheckoutSessionResponse> {
    await this.accounts.requireVerifiedForTopUp(userId);
    if (idempotencyKey !== undefined && !IDEMPOTENCY_KEY.test(idempotencyKey))
      throw new CommonException(CommonErrorCode.VALIDATION_FAILED, 'Invalid request: check Idempotency-Key', {
        details: [{ field: 'Idempotency-Key', messages: ['Idempotency-Key must be 1-100 letters, digits or . _ : -'] }],
      });
    const cents = Math.round(amount * 100);
    const amountMicros = cents * MICROS_PER_CENT;
    if (!this.stripe) {
      const id = `cs_sandbox_${randomBytes(16).toString('hex')}`;
      await this.repository.insert({ id, userId, provider: 'sandbox', amountMicros, currency: PAYMENT_CURRENCY });
      return { sessionId: id, checkoutUrl: `${origin}${SANDBOX_PATH}/${id}` };
    }
    const session = await this.callStripe('creating a Checkout Session', () =>
      this.stripe!.checkout.sessions.create(
        {
          mode: 'payment',
          line_items: [
            {
              quantity: 1,
              price_data: {
                currency: PAYMENT_CURRENCY,
                unit_amount: cents,
                product_data: { name: 'Switchyard credit' },
              },
            },
          ],
          success_url: `${successUrl(origin)}{CHECKOUT_SESSION_ID}`,
          cancel_url: cancelUrl(origin),
          client_reference_id: userId,
          metadata: { userId, amountMicros: String(amountMicros) },
        },
        // Scoped to the user, so a key can never return another user's session. Without one from the client,
        // a fresh key still lets the SDK retry a failed request without creating a second session.
        { idempotencyKey: `checkout:${userId}:${idempotencyKey ?? randomUUID()}` },
      ),
    );
    if (!session.url) throw this.providerError('Stripe answered a Checkout Session without a URL');
    // Recorded before the URL is handed out: a session nobody holds a URL for can never be paid.
    await this.repository.insert({
      id: session.id,
      userId,
      provider: 'stripe',
      amountMicros,
      currency: PAYMENT_CURRENCY,
    });
    return { sessionId: session.id, checkoutUrl: session.url };
  }

  /** After the redirect back: asks the provider, credits once if paid. The same answer every time once paid. */
  async verifyAndCapture(userId: string, sessionId: string): Promise<PaymentVerifyResponse> {
    const payment = await this.repository.findOwned(userId, sessionId);
    if (!payment) throw new PaymentsException(PaymentsErrorCode.PAYMENT_NOT_FOUND, 'No such checkout session');
    const state = await this.providerState(payment);
    if (state === 'paid') await this.fulfil(payment);
    if (state === 'expired') await this.repository.markExpired(payment.id);
    const summary = await this.ledger.summary(userId);
    return {
      status: state,
      amountAdded: state === 'paid' ? toUnits(Number(payment.amountMicros)) : 0,
      newBalance: summary.remainingBudget,
    };
  }

  /**
   * Stripe's webhook. The signature is checked on the raw bytes; completed (paid) and async-payment-succeeded
   * sessions credit through the same idempotent path as verify-and-capture. Other events are acknowledged.
   */
  async handleWebhook(rawBody: unknown, signature: string | undefined): Promise<{ received: true }> {
    const secret = this.config.stripeWebhookSecret;
    if (!secret)
      throw new PaymentsException(
        PaymentsErrorCode.PAYMENT_WEBHOOK_NOT_CONFIGURED,
        'STRIPE_WEBHOOK_SECRET is not configured',
      );
    let event: Stripe.Event;
    try {
      if (!Buffer.isBuffer(rawBody) || !signature) throw new Error('no body or no signature');
      event = Stripe.webhooks.constructEvent(rawBody, signature, secret);
    } catch {
      throw new PaymentsException(
        PaymentsErrorCode.PAYMENT_WEBHOOK_SIGNATURE_INVALID,
        'The Stripe-Signature header does not match the body',
      );
    }
    switch (event.type) {
      case 'checkout.session.completed':
        // A delayed method (bank debit) completes unpaid; async_payment_succeeded follows once it clears.
        if (event.data.object.payment_status === 'paid') await this.fulfilFromStripe(event.data.object, event.id);
        break;
      case 'checkout.session.async_payment_succeeded':
        await this.fulfilFromStripe(event.data.object, event.id);
        break;
      case 'checkout.session.expired':
        await this.repository.markExpired(event.data.object.id);
        break;
      default:
        // Refunds and disputes (charge.refunded, charge.dispute.*): recorded once per Stripe id.
        await this.refunds.onStripeEvent(event);
        break;
    }
    return { received: true };
  }

  /**
   * The sandbox's hosted page. Its URL (the random session id) is the capability, as Stripe's own is. `origin`:
   * the one it was opened on (requestOrigin), where it returns to.
   */
  async sandboxPage(sessionId: string, origin: string): Promise<string> {
    const payment = await this.sandboxPayment(sessionId);
    const state = payment.status === 'open' && this.isStale(payment) ? 'expired' : payment.status;
    return renderSandboxPage({
      sessionId: payment.id,
      amount: toUnits(Number(payment.amountMicros)),
      currency: payment.currency,
      state,
      payAction: `${SANDBOX_PATH}/${payment.id}/pay`,
      returnUrl: `${successUrl(origin)}${payment.id}`,
      cancelUrl: cancelUrl(origin),
    });
  }

  /** "Pay" on the sandbox page: completes the session, credits (as Stripe's webhook would), returns the success URL. */
  async sandboxPay(sessionId: string, origin: string): Promise<string> {
    const payment = await this.sandboxPayment(sessionId);
    if (!(await this.repository.markSandboxPaid(payment.id))) {
      const current = await this.repository.findById(payment.id);
      if (current?.status !== 'paid')
        throw new PaymentsException(PaymentsErrorCode.PAYMENT_SESSION_EXPIRED, 'This checkout session has expired');
    }
    await this.fulfil(payment);
    return `${successUrl(origin)}${payment.id}`;
  }

  private async sandboxPayment(sessionId: string): Promise<PaymentEntity> {
    const payment =
      this.sandbox && sessionId.startsWith('cs_sandbox_') ? await this.repository.findById(sessionId) : null;
    if (!payment || payment.provider !== 'sandbox')
      throw new PaymentsException(PaymentsErrorCode.PAYMENT_NOT_FOUND, 'No such sandbox checkout session');
    return payment;
  }

  private async providerState(payment: PaymentEntity): Promise<ProviderState> {
    if (payment.provider === 'sandbox') {
      if (payment.status === 'paid') return 'paid';
      return payment.status === 'expired' || this.isStale(payment) ? 'expired' : 'unpaid';
    }
    if (!this.stripe) throw this.providerError('This session was made with Stripe, which is no longer configured');
    const session = await this.callStripe('retrieving a Checkout Session', () =>
      this.stripe!.checkout.sessions.retrieve(payment.id),
    );
    if (!this.matches(payment, session))
      throw this.providerError('The payment provider’s record of this session does not match ours');
    if (session.payment_status === 'paid') return 'paid';
    return session.status === 'expired' ? 'expired' : 'unpaid';
  }

  private async fulfilFromStripe(session: Stripe.Checkout.Session, eventId: string): Promise<void> {
    const payment = await this.repository.findById(session.id);
    if (!payment) {
      // Not made by this deployment (another app on the same Stripe account): acknowledged, nothing credited.
      this.logger.warn(`webhook ${eventId}: unknown Checkout Session ${session.id}, ignored`);
      return;
    }
    // Acknowledged either way: Stripe would only retry an event that can never match.
    if (this.matches(payment, session)) await this.fulfil(payment);
  }

  /** Credits the session's amount once, ever (the ledger's idempotency key), then notes it on the row. */
  private async fulfil(payment: PaymentEntity): Promise<void> {
    const credited = await this.ledger.credit(
      payment.userId,
      Number(payment.amountMicros),
      'payment',
      payment.id,
      paymentCreditKey(payment.id),
    );
    if (credited) this.logger.log(`credited ${toUnits(Number(payment.amountMicros))} for ${payment.id}`);
    if (credited || !payment.creditedAt) await this.repository.markCredited(payment.id);
  }

  /** What Stripe says must agree with what we recorded: the owner and the amount come from our row. */
  private matches(payment: PaymentEntity, session: Stripe.Checkout.Session): boolean {
    const cents = Number(payment.amountMicros) / MICROS_PER_CENT;
    const same =
      session.id === payment.id &&
      session.client_reference_id === payment.userId &&
      session.amount_total === cents &&
      session.currency === payment.currency;
    if (!same)
      this.logger.error(
        `Checkout Session ${payment.id} at Stripe does not match its record (owner, amount or currency); nothing credited`,
      );
    return same;
  }

  private isStale(payment: PaymentEntity): boolean {
    return Date.now() - payment.createdAt.getTime() > SESSION_LIFETIME_HOURS * 3_600_000;
  }

  private async callStripe<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      // Type, code and status only: Stripe's messages may quote request parameters.
      const stripeError = error as { type?: string; code?: string; statusCode?: number };
      this.logger.error(
        `${what} failed: ${stripeError.type ?? 'error'} ${stripeError.code ?? ''} ${stripeError.statusCode ?? ''}`.trim(),
      );
      throw this.providerError('The payment provider could not be reached or refused the request; try again');
    }
  }

  private providerError(message: string): PaymentsException {
    return new PaymentsException(PaymentsErrorCode.PAYMENT_PROVIDER_ERROR, message);
  }
}
