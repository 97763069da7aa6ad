import type { KeyLimits } from './keys';
import type { OAuthScope } from './oauth';

/**
 * What one app may spend of its user's budget (currency units; null means no cap below the budget): a total
 * cap, caps per UTC calendar day, week and month, and the most one call may cost. The same set as an API key's.
 */
export type ConsentLimits = KeyLimits;

/** An app the user authorized (docs/decisions.md#resource-shapes), with the caps the user set on it. */
export interface ConsentResponse {
  clientId: string;
  clientName: string;
  scopes: OAuthScope[];
  grantedAt: string;
  lastUsedAt: string | null;
  limits: ConsentLimits;
  /** What the app spent (settled, plus what its calls in flight hold) this UTC month. */
  spentThisMonth: number;
  /**
   * The app's registered redirect URIs: a dashboard page opened as the app's popup tells the opener it is done
   * only at one of their origins (docs/sdk.md#popups).
   */
  redirectUris: string[];
  /** The app's markup on this user's calls, whole percent: they pay the provider's price × (1 + markup/100). */
  markupPercent: number;
  /** A raised markup the user has not approved (it applies only once they authorize the app again); else null. */
  pendingMarkupPercent: number | null;
  /**
   * Sponsored credits (docs/earnings.md): what the app pays of this user's calls through it; null when it pays none
   * (no allowance: they approved before its pool opened, or it has none; or the pool was withdrawn or has ended).
   */
  sponsor: ConsentSponsor | null;
}

/** What an app pays of its user's calls from its sponsor pool (currency units, like the consent page's figure). */
export interface ConsentSponsor {
  /** The allowance the user got by approving the app while its pool was open. */
  allowance: number;
  /**
   * What the app still pays: the allowance less what its calls drew (calls in flight count what they hold), never
   * more than the pool has left; 0 when it is used up.
   */
  left: number;
  /** When the pool stops paying (ISO 8601); null: no end. */
  endsAt: string | null;
}

/**
 * GET /api/v1/oauth2/consents/current, with an app's token: what is left of the caps the user set on this app
 * (currency units; null where there is no cap). `spent` is what the app's calls for this user were charged in
 * each window plus what its calls in flight hold, the sums the gateway checks the caps against.
 */
export interface AppAllowanceResponse {
  clientId: string;
  clientName: string;
  limits: ConsentLimits;
  spent: { total: number; daily: number; weekly: number; monthly: number };
  remaining: ConsentLimits;
}

/**
 * New caps: PUT /api/v1/oauth2/consents/{clientId}/limits, and with an approval on the consent page. Every field
 * optional: omitted caps keep their value, null removes one.
 */
export interface ConsentLimitsRequest {
  total?: number | null;
  daily?: number | null;
  weekly?: number | null;
  monthly?: number | null;
  perRequest?: number | null;
}
