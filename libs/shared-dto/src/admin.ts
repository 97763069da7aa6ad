/** The operator's console (docs/operations.md, "The operator's console"): admins only. */

export const ACCOUNT_STATUSES = ['active', 'disabled', 'deleted'] as const;
export type AccountStatus = (typeof ACCOUNT_STATUSES)[number];

/** One account as the console lists it; money in currency units. */
export interface AdminUser {
  id: string;
  email: string;
  name: string | null;
  handle: string | null;
  role: 'user' | 'admin';
  status: AccountStatus;
  emailVerified: boolean;
  createdAt: string;
  disabledAt: string | null;
  /** credits − debits: what the account may still spend (calls in flight hold part of it: `reserved`). */
  balance: number;
  reserved: number;
  /** Everything the account was credited, and everything debited (calls, and negative adjustments). */
  credits: number;
  debits: number;
  /** What its calls were charged since the UTC month began. */
  spentThisMonth: number;
  /** When its last call started; null when it never made one. */
  lastCallAt: string | null;
}

export interface AdminUserPage {
  items: AdminUser[];
  nextCursor: string | null;
}

/** GET /api/v1/admin/users: `q` matches the email, name or handle (a part of it), or an account id (whole). */
export interface AdminUserQuery {
  q?: string;
  status?: AccountStatus;
  limit?: number;
  cursor?: string;
}

export const ADJUSTMENT_MAX_AMOUNT = 1_000_000;
export const ADJUSTMENT_REASON_MAX_LENGTH = 500;

/**
 * POST /api/v1/admin/users/{id}/adjustments: a positive amount credits, a negative one debits (never below zero).
 * `idempotencyKey` (a UUID the console makes per submission) keeps a retried submission from adjusting twice.
 */
export interface BalanceAdjustmentRequest {
  amount: number;
  reason: string;
  idempotencyKey: string;
}

export interface BalanceAdjustmentResponse {
  /** The ledger entry; the same one when the idempotency key was used before. */
  ledgerEntryId: string;
  amount: number;
  /** Whether this request made it (false: an earlier one with the same key did). */
  applied: boolean;
  user: AdminUser;
}

/** POST /api/v1/admin/users/{id}/disable and /enable: why, for the audit log. */
export interface AccountStatusChangeRequest {
  reason: string;
}

export const ADMIN_USAGE_GROUPS = ['day', 'model', 'user', 'day_model'] as const;
export type AdminUsageGroupBy = (typeof ADMIN_USAGE_GROUPS)[number];

/** GET /api/v1/admin/usage: every user's calls, per UTC day, model, user, or day and model; default the last 30 days. */
export interface AdminUsageQuery {
  from?: string;
  to?: string;
  groupBy?: AdminUsageGroupBy;
}

export interface AdminUsageRow {
  /** The UTC day (`day`, `day_model`), the model (`model`, `day_model`), or the user's email (`user`). */
  day: string | null;
  model: string | null;
  userId: string | null;
  email: string | null;
  requests: number;
  errors: number;
  totalTokens: number;
  cost: number;
  users: number;
}

export interface AdminUsageResponse {
  from: string;
  to: string;
  groupBy: AdminUsageGroupBy;
  rows: AdminUsageRow[];
  totals: { requests: number; errors: number; totalTokens: number; cost: number; users: number };
}

export const GIFT_CARD_STATUSES = ['unredeemed', 'redeemed', 'expired'] as const;
export type GiftCardStatus = (typeof GIFT_CARD_STATUSES)[number];

/** An issued gift card (its code is never stored, so never shown again). */
export interface AdminGiftCard {
  id: string;
  amount: number;
  status: GiftCardStatus;
  createdAt: string;
  expiresAt: string | null;
  /** The admin who issued it; null from the command line. */
  issuedBy: { id: string; email: string } | null;
  redeemedAt: string | null;
  redeemedBy: { id: string; email: string } | null;
}

export interface AdminGiftCardPage {
  items: AdminGiftCard[];
  nextCursor: string | null;
}

/** GET /api/v1/admin/giftcards */
export interface AdminGiftCardQuery {
  status?: GiftCardStatus;
  limit?: number;
  cursor?: string;
}

export const AUDIT_ACTIONS = [
  'balance_adjusted',
  'account_disabled',
  'account_enabled',
  'gift_cards_issued',
  'payment_refunded',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** One admin action, as the append-only audit log keeps it. */
export interface AuditEntry {
  id: string;
  at: string;
  actor: 'admin' | 'cli';
  admin: { id: string; email: string } | null;
  action: AuditAction;
  target: { id: string; email: string } | null;
  details: Record<string, unknown>;
}

export interface AuditPage {
  items: AuditEntry[];
  nextCursor: string | null;
}

/** GET /api/v1/admin/audit: newest first; `userId` keeps the actions on one account. */
export interface AuditQuery {
  userId?: string;
  limit?: number;
  cursor?: string;
}

/** GET /api/v1/admin/money: the last `days` UTC days (1 to 365, default 30), today included. */
export interface AdminMoneyQuery {
  days?: number;
}

/** One UTC day of the operator's money (currency units): fees earned on markups, and losses. */
export interface AdminMoneyDay {
  date: string;
  /** The operator's share of the markups of calls made that day (maker_earnings.fee_micros). */
  fees: number;
  /** Calls through marked-up apps that day. */
  markedUpCalls: number;
  /** Calls charged less than they cost (operator_losses): how many, and how much was lost. */
  lossCalls: number;
  callLosses: number;
  /** Refunds and disputes that took more than the balance held: how many, what was lost, what claw-backs recovered. */
  lossRefunds: number;
  refundLosses: number;
  clawedBack: number;
}

export interface AdminMoneyResponse {
  days: number;
  totals: Omit<AdminMoneyDay, 'date'>;
  /** Only days with anything in them, newest first. */
  items: AdminMoneyDay[];
}
