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
  model: string;
  method: string;
  stream: boolean;
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  cost: number;
  status: string;
  httpStatus: number;
  errorCode: string | null;
  latencyMs: number;
  /** What happened to the money: reserved before the call, then settled (charged) or released, and why. */
  money: { reserved: number; charged: number; released: number; outcome: 'settled' | 'released' | 'open' | 'none'; reason: string | null };
}

export interface ActivityPage {
  items: ActivityRecord[];
  nextCursor: string | null;
}

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
  groupBy: 'day' | 'model' | 'key' | 'app';
  totals: Omit<AnalyticsGroup, 'key'>;
  groups: AnalyticsGroup[];
}
