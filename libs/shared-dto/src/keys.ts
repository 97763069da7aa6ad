/** API keys: what the keys page lists, and the spend limits of a key. */

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
