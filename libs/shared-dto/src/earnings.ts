/** An app maker's earnings (docs/earnings.md): amounts in currency units. */

/** Earnings by state: `pending` within the hold, `available` to move or pay out, `moved` into the maker's budget. */
export interface EarningsTotals {
  pending: number;
  available: number;
  moved: number;
}

/** One of the maker's apps: what its users paid through it and how that split. */
export interface EarningsByApp extends EarningsTotals {
  clientId: string;
  clientName: string;
  markupPercent: number;
  calls: number;
  /** What the users paid, all of it. */
  paid: number;
  providerCost: number;
  fees: number;
  earnings: number;
}

/** One UTC day of one app. */
export interface EarningsDay {
  date: string;
  clientId: string;
  calls: number;
  paid: number;
  providerCost: number;
  fees: number;
  earnings: number;
  pending: number;
  available: number;
}

/** GET /api/v1/earnings: the signed-in maker's earnings; `days` the last 90 UTC days, newest first. */
export interface EarningsResponse {
  totals: EarningsTotals;
  /** The operator's share of each markup, in percent, and the days earnings stay pending. */
  platformFeePercent: number;
  holdDays: number;
  apps: EarningsByApp[];
  days: EarningsDay[];
}

/** POST /api/v1/earnings/move: what was moved into the maker's budget now (0 when nothing was available). */
export interface EarningsMoveResponse {
  moved: number;
}

/** One payout of available earnings: whole cents, sent as one Stripe transfer (or the sandbox's). */
export interface EarningsPayout {
  id: string;
  amount: number;
  status: 'pending' | 'paid';
  transferId: string | null;
  sandbox: boolean;
  createdAt: string;
  paidAt: string | null;
}

/** POST /api/v1/earnings/payouts: the payout made now (null: nothing available), and what below a cent went to the budget. */
export interface EarningsPayoutResponse {
  payout: EarningsPayout | null;
  credited: number;
}

/** GET /api/v1/earnings/payouts: whether a payout account is linked, and the last 50 payouts, newest first. */
export interface EarningsPayoutsResponse {
  connected: boolean;
  sandbox: boolean;
  payouts: EarningsPayout[];
}

/** POST /api/v1/earnings/connect: where the maker goes to link their account (Stripe's hosted onboarding). */
export interface EarningsConnectResponse {
  url: string;
}

/** The most a maker may put into a pool at once, and the highest allowance per user (currency units). */
export const SPONSOR_MAX_AMOUNT = 100_000;

/**
 * PUT /api/v1/oauth2/clients/{id}/sponsor (docs/earnings.md, "Sponsored credits"): `amount` (currency units, up to 6
 * decimals) moves from the maker's balance into the app's pool (0 or left out: only the settings change; the first
 * time it must be more than 0); `allowancePerUser` is what the app pays of each new user's calls (a user who
 * consents from now on); `endsAt` (ISO 8601, in the future) stops draws then, null or left out: no end.
 */
export interface SponsorPoolUpdateRequest {
  amount?: number;
  allowancePerUser?: number;
  endsAt?: string | null;
}

/** An app's sponsor pool; `status` 'none' before it was ever funded. Amounts in currency units. */
export interface SponsorPoolResponse {
  clientId: string;
  status: 'none' | 'open' | 'ended' | 'withdrawn';
  /** Everything the maker put in. */
  funded: number;
  /** What calls may still draw. */
  left: number;
  /** What the app paid of its users' calls (calls in flight count what they hold until they settle). */
  drawn: number;
  /** What went back into the maker's balance. */
  takenBack: number;
  allowancePerUser: number | null;
  endsAt: string | null;
  /** Users given an allowance (each once, when they consented while the pool was open). */
  users: number;
}

/** POST /api/v1/oauth2/clients/{id}/sponsor/withdraw: what went back into the maker's balance, and the pool after. */
export interface SponsorWithdrawResponse {
  takenBack: number;
  pool: SponsorPoolResponse;
}
