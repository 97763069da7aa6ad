/** API keys: what the keys page lists, and the spend limits of a key. */

export const KEY_NAME_MAX_LENGTH = 100;

/** A spend limit (of a key) or cap (of an app) is at most this many currency units, with up to 6 decimals. */
export const SPEND_LIMIT_MAX = 1_000_000;
export const SPEND_LIMIT_DECIMALS = 6;

/** A key may expire at most this many days ahead (about ten years); without `expiresAt` it never does. */
export const KEY_EXPIRY_MAX_DAYS = 3660;

/**
 * The form of an API key: a prefix (`sy-` unless the server's API_KEY_PREFIX says otherwise) and 48 base62
 * characters. The dashboard checks a pasted key against it at once.
 */
export const API_KEY_PATTERN = /^[A-Za-z0-9_-]{1,16}[0-9A-Za-z]{48}$/;

/** The name of the one key per user that the dashboard's playground and Models page call through. */
export const DASHBOARD_KEY_NAME = 'Dashboard';

export interface ApiKeyCreatedResponse {
  id: string;
  name: string;
  key: string;
  createdAt: string;
  status: 'Active' | 'Revoked';
  expiresAt: string | null;
}

/** Spend limits of one key, in currency units; null means none. Windows are UTC calendar day, week, month. */
export interface KeyLimits {
  total: number | null;
  daily: number | null;
  weekly: number | null;
  monthly: number | null;
  perRequest: number | null;
}

/** What calls of one key have spent (settled, plus holds of calls in flight), in currency units. */
export interface KeySpend {
  /** Since the UTC calendar month began. */
  thisMonth: number;
  allTime: number;
}

export interface ApiKeyResponse {
  id: string;
  name: string;
  token: string;
  createdAt: string;
  lastUsedAt: string | null;
  /** `Expired`: past its `expiresAt` (refused by the gateway like a revoked key); `Revoked` wins over it. */
  status: 'Active' | 'Revoked' | 'Expired';
  /** When the key stops working; null: never. */
  expiresAt: string | null;
  /** The dashboard's own key (the playground and Models page call through it); its secret is never shown. */
  dashboard: boolean;
  limits: KeyLimits;
  /** Gateway requests per minute for this key; null: the server's default (GATEWAY_RPM). */
  requestsPerMinute: number | null;
  spend: KeySpend;
}

/** PUT /api/v1/keys/{id}/limits: every field optional; omitted fields keep their value, null removes a limit. */
export interface KeyLimitsUpdateRequest extends Partial<KeyLimits> {
  /** Gateway requests per minute for this key; null returns to the server's default. */
  requestsPerMinute?: number | null;
}

/** POST /api/v1/keys: a name, and optionally the key's limits and when it expires (ISO 8601, in the future). */
export interface KeyCreateRequest extends KeyLimitsUpdateRequest {
  name: string;
  expiresAt?: string | null;
}

/** PATCH /api/v1/keys/{id}: rename. */
export interface KeyUpdateRequest {
  name: string;
}
