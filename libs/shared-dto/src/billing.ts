/** Money in: card top-ups (docs/payments.md), and the ledger of every credit and debit. */

/** Card top-ups (docs/payments.md): currency units, at most two decimals (cents). */
export const PAYMENT_MIN_AMOUNT = 0.5;
export const PAYMENT_MAX_AMOUNT = 10_000;
export const PAYMENT_CURRENCY = 'usd';

/** POST /api/v1/payment/create-checkout-session (an Idempotency-Key header makes a retry answer the same session). */
export interface PaymentCheckoutCreateRequest {
  amount: number;
}

export interface CheckoutSessionResponse {
  sessionId: string;
  checkoutUrl: string;
}

/** Checkout Session ids: Stripe's `cs_test_…`/`cs_live_…`, or the sandbox's `cs_sandbox_…`. */
export const CHECKOUT_SESSION_ID_PATTERN = /^cs_[A-Za-z0-9_]{1,250}$/;

/** POST /api/v1/payment/verify-and-capture?session_id=… */
export interface PaymentVerifyQuery {
  session_id: string;
}

/**
 * verify-and-capture (docs/decisions.md#resource-shapes). Idempotent: once paid, every call answers the same, and
 * `amountAdded` is what this session added to the balance (once, whichever of redirect, retry or webhook came first).
 */
export interface PaymentVerifyResponse {
  status: 'paid' | 'unpaid' | 'expired';
  amountAdded: number;
  newBalance: number;
}

/** POST /api/v1/admin/payments/{id}/refund: an admin refunds a card top-up; without an amount, what is left of it. */
export interface PaymentRefundRequest {
  amount?: number;
}

/**
 * A refund or dispute of a card top-up (docs/payments.md, "Refunds and disputes"): `amount` left the user's
 * balance as `debited`, and what the balance no longer held is the operator's `lost` (currency units).
 */
export interface PaymentRefundResponse {
  refundId: string;
  paymentId: string;
  kind: 'refund' | 'dispute';
  amount: number;
  debited: number;
  lost: number;
  /** What it took back of makers' pending earnings from the user's calls (docs/earnings.md). */
  clawed: number;
  /** What can still be refunded of the top-up. */
  refundable: number;
}

export const LEDGER_ENTRY_KINDS = [
  'signup_credit',
  'payment',
  'gift_card',
  'admin_adjustment',
  'usage',
  'reversal',
  'refund',
  /** A maker's available earnings moved into their own budget (docs/earnings.md). */
  'earnings',
] as const;
export type LedgerEntryKind = (typeof LEDGER_ENTRY_KINDS)[number];

/** One money movement: credits positive, debits negative (currency units). */
export interface LedgerEntryResponse {
  id: string;
  createdAt: string;
  kind: LedgerEntryKind;
  amount: number;
  /** What moved it: a Checkout Session id, a gift card id, a gateway request id. */
  reference: string | null;
}

export interface LedgerPage {
  items: LedgerEntryResponse[];
  nextCursor: string | null;
}
