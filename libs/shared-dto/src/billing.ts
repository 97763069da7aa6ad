/** Money in: card top-ups (docs/payments.md), and the ledger of every credit and debit. */

/** Card top-ups (docs/payments.md): currency units, at most two decimals (cents). */
export const PAYMENT_MIN_AMOUNT = 0.5;
export const PAYMENT_MAX_AMOUNT = 10_000;
export const PAYMENT_CURRENCY = 'usd';

export interface CheckoutSessionResponse {
  sessionId: string;
  checkoutUrl: string;
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

export const LEDGER_ENTRY_KINDS = ['signup_credit', 'payment', 'gift_card', 'admin_adjustment', 'usage', 'reversal'] as const;
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
