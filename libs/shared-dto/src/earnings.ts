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
