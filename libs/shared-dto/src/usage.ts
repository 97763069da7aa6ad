/** The caller's usage: the budget summary, the activity list and the analytics. */

export interface UsageSummaryResponse {
  totalCost: number;
  maxBudget: number;
  remainingBudget: number;
}

/** One gateway call on the dashboard (the activity record of docs/decisions.md#rules-for-clients, with the money trace). */
export interface ActivityRecord {
  /** The call's own id (the server's): what its ledger entry references. */
  id: string;
  /** The X-Request-Id the call came with (or the one the gateway gave it), to quote when asking about it. */
  requestId: string;
  startTime: string;
  endTime: string;
  /** The key's or the app's name; 'Unknown' when none. */
  name: string;
  credentialType: 'api_key' | 'oauth' | 'unknown';
  /** The key the call used (null for an app's call, or a key since deleted). */
  apiKeyId: string | null;
  /** The OAuth app (its client id) the call came through, if any. */
  appId: string | null;
  model: string;
  /** The catalog's provider id of the deployment that served the call (docs/routing.md); null when none was reached. */
  provider: string | null;
  /** That deployment's model id at the provider; null when none was reached (or for calls recorded before it was kept). */
  upstreamModel: string | null;
  method: string;
  stream: boolean;
  /** Every input token, cached or not (docs/pricing.md). */
  promptTokens: number;
  /** Every output token, reasoning included. */
  completionTokens: number;
  totalTokens: number;
  /** Of promptTokens: read from the provider's prompt cache. The rest of it minus the writes is uncached input. */
  cacheReadTokens: number;
  /** Of promptTokens: written to the prompt cache for five minutes. */
  cacheWriteTokens: number;
  /** Of promptTokens: written to the prompt cache for one hour. */
  cacheWrite1hTokens: number;
  /** Of completionTokens: reasoning (thinking), where the provider reports it. */
  reasoningTokens: number;
  cost: number;
  status: string;
  httpStatus: number;
  errorCode: string | null;
  /**
   * Which limit refused the call: the account's balance (`budget_exhausted`), or a key's or an app's spend limit
   * (`spend_limit_exceeded`); null for every other ending.
   */
  refusedLimit: RefusedLimit | null;
  latencyMs: number;
  /** ms from the start to the answer's first byte; null when no answer began (or for calls recorded before it was kept). */
  firstByteMs: number | null;
  /** What happened to the money: reserved before the call, then settled (charged) or released, and why. */
  money: {
    reserved: number;
    charged: number;
    released: number;
    outcome: 'settled' | 'released' | 'open' | 'none';
    reason: string | null;
    /**
     * Through an app with a markup (docs/earnings.md): the rate the call was priced at and how what was charged
     * splits into the provider's cost and the app's markup; null otherwise.
     */
    markup: { percent: number; providerCost: number; markup: number } | null;
    /**
     * What the app paid of this call from its sponsor pool (docs/earnings.md, "Sponsored credits"; the Requests
     * page says "paid by {name}"); while the call is open, what the pool holds for it; 0 when it paid nothing.
     */
    sponsored: number;
  };
}

/** The limit that refused a call: `{scope: 'account', limit: null}` for the balance. */
export interface RefusedLimit {
  scope: 'account' | SpendLimitScope;
  limit: SpendLimitName | null;
}

export interface ActivityPage {
  items: ActivityRecord[];
  nextCursor: string | null;
}

export const ANALYTICS_GROUPS = ['day', 'model', 'key', 'app'] as const;
export type AnalyticsGroupBy = (typeof ANALYTICS_GROUPS)[number];

export interface AnalyticsGroup {
  key: string;
  requests: number;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cost: number;
}

export interface AnalyticsResponse {
  from: string;
  to: string;
  groupBy: AnalyticsGroupBy;
  totals: Omit<AnalyticsGroup, 'key'>;
  groups: AnalyticsGroup[];
}

/** The ending of a call as recorded (`status` of an ActivityRecord). */
export const USAGE_STATUSES = ['success', 'upstream_error', 'client_closed', 'timeout', 'rejected'] as const;
/** An activity status filter: one ending, or `error` for every ending but success. */
export const ACTIVITY_STATUS_FILTERS = [...USAGE_STATUSES, 'error'] as const;
export type ActivityStatusFilter = (typeof ACTIVITY_STATUS_FILTERS)[number];

/**
 * GET /api/v1/usage/me/activity: `limit` is a page size of 1 to 100, `cursor` a page's nextCursor (sent with the
 * same filters). Filters: `keyId` (one of the caller's keys), `appId` (an OAuth client id), `model`, `status`, and
 * the window [`from`, `to`) as ISO 8601 (a bare date as `to` means the whole of that day). Another user's key or
 * app matches nothing.
 */
export interface UsageActivityQuery {
  limit?: number;
  cursor?: string;
  keyId?: string;
  appId?: string;
  model?: string;
  status?: ActivityStatusFilter;
  from?: string;
  to?: string;
}

/** GET /api/v1/usage/me/analytics: ISO 8601 dates (UTC). */
export interface UsageAnalyticsQuery {
  from?: string;
  to?: string;
  groupBy?: AnalyticsGroupBy;
}

/** Which entries of the ledger: credits (amount above 0: payments, gift cards, sign-up…) or debits (calls). */
export const LEDGER_SIDES = ['credit', 'debit'] as const;
export type LedgerSide = (typeof LEDGER_SIDES)[number];

/** GET /api/v1/usage/me/ledger (its pages are LedgerPage): as the activity's query; `side` keeps one side only. */
export interface UsageLedgerQuery {
  limit?: number;
  cursor?: string;
  side?: LedgerSide;
}

/** GET /api/v1/usage/me/daily-spend: `limit` days a page (1 to 100), `cursor` a page's nextCursor. */
export interface UsageDailySpendQuery {
  limit?: number;
  cursor?: string;
}

/** What the calls of one UTC day were charged, from the ledger's debits. */
export interface DailySpend {
  /** YYYY-MM-DD (UTC). */
  day: string;
  /** Charged that day, in currency units (positive). */
  amount: number;
  /** Charged calls that day. */
  calls: number;
}

export interface DailySpendPage {
  items: DailySpend[];
  nextCursor: string | null;
}

/**
 * The limits a call can be refused by, other than the account's balance (`budget_exhausted`): an API key's spend
 * limits and the caps a user set for an app share these names (docs/budgets.md, "Which limit refused a call").
 */
export const SPEND_LIMIT_NAMES = ['per_request', 'daily', 'weekly', 'monthly', 'total'] as const;
export type SpendLimitName = (typeof SPEND_LIMIT_NAMES)[number];
/** Whose limit: the API key's, or the caps the user set for an app. */
export type SpendLimitScope = 'key' | 'app';

/**
 * The `error` of a 403 `spend_limit_exceeded` on /v1 (OpenAI's shape; on /v1/messages the same fields sit in
 * Anthropic's `error` beside its `type` and `message`).
 */
export interface SpendLimitExceededError {
  code: 'spend_limit_exceeded';
  message: string;
  limit: SpendLimitName;
  scope: SpendLimitScope;
  keyId?: string | null;
  clientId?: string | null;
  /** The limit, in currency units. */
  limitAmount: number;
  /** What the key or app spent in the limit's window (settled plus held by calls in flight); null for per_request. */
  spent: number | null;
  /** The least this call needs (its input and one output token). */
  needed: number;
  /** When a daily, weekly or monthly window starts again (UTC); null for total and per_request. */
  resetsAt: string | null;
  /** The account's balance, which is not what refused the call. */
  remainingBudget: number;
}
