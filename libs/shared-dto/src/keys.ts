/** API keys: what the keys page lists, and the spend limits of a key. */

export const KEY_NAME_MAX_LENGTH = 100;

/** A spend limit (of a key) or cap (of an app) is at most this many currency units, with up to 6 decimals. */
export const SPEND_LIMIT_MAX = 1_000_000;
export const SPEND_LIMIT_DECIMALS = 6;

export interface ApiKeyCreatedResponse {
  id: string;
  name: string;
  key: string;
  createdAt: string;
  status: 'Active' | 'Revoked';
}

/** Spend limits of one key, in currency units; null means none. Windows are UTC calendar day, week, month. */
export interface KeyLimits {
  total: number | null;
  daily: number | null;
  weekly: number | null;
  monthly: number | null;
  perRequest: number | null;
}

export interface ApiKeyResponse {
  id: string;
  name: string;
  token: string;
  createdAt: string;
  lastUsedAt: string | null;
  status: 'Active' | 'Revoked';
  limits: KeyLimits;
  /** Gateway requests per minute for this key; null: the server's default (GATEWAY_RPM). */
  requestsPerMinute: number | null;
}

/** POST /api/v1/keys */
export interface KeyCreateRequest {
  name: string;
}

/** PUT /api/v1/keys/{id}/limits: every field optional; omitted fields keep their value, null removes a limit. */
export interface KeyLimitsUpdateRequest extends Partial<KeyLimits> {
  /** Gateway requests per minute for this key; null returns to the server's default. */
  requestsPerMinute?: number | null;
}
