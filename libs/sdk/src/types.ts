import type { StorageOption } from './storage.js';

export interface SwitchyardOptions {
  /** The Switchyard server, e.g. `https://switchyard.example.com` (its PUBLIC_URL, the OAuth issuer). */
  baseUrl: string;
  /** Your app's client id (the dashboard's OAuth apps page). */
  clientId: string;
  /** A redirect URI you registered; by default this page's address without its query. */
  redirectUri?: string;
  /** By default `openid profile api:access`: who the user is, and calls on their budget. */
  scopes?: string[];
  /** Where tokens live: `session` (default in browsers), `local`, `memory` (default elsewhere) or your own. */
  storage?: StorageOption;
  /** The dashboard (consent, billing, caps), if not served by `baseUrl` itself. */
  dashboardUrl?: string;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

/** The signed-in user, from the ID token (scopes `openid`, `profile`, `email`). */
export interface SwitchyardUser {
  id: string;
  name?: string;
  handle?: string;
  email?: string;
}

export interface AppCaps {
  total: number | null;
  daily: number | null;
  weekly: number | null;
  monthly: number | null;
  perRequest: number | null;
}

/** What the user can still spend through this app (currency units). */
export interface Balance {
  /** The user's whole remaining budget. */
  remainingBudget: number;
  totalCost: number;
  maxBudget: number;
  /** The caps the user set on this app and what is left of each (null: no cap). */
  app: { limits: AppCaps; remaining: AppCaps } | null;
  /** The most the next calls may spend in all: the budget, or a cap's remainder when that is less. */
  available: number;
}

export type SwitchyardStatus = 'signed-in' | 'signed-out';

export interface SwitchyardState {
  status: SwitchyardStatus;
  user: SwitchyardUser | null;
}

export interface Tokens {
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
  scope: string;
  user: SwitchyardUser | null;
}

export interface Pending {
  state: string;
  verifier: string;
  nonce: string;
  redirectUri: string;
}

/** The options for the `openai` SDK, the Vercel AI SDK's OpenAI-compatible provider and `@anthropic-ai/sdk`. */
export interface ClientOptions {
  baseURL: string;
  apiKey: string;
  defaultHeaders: Record<string, string>;
  headers: Record<string, string>;
  fetch: typeof fetch;
  name: string;
  dangerouslyAllowBrowser: true;
}
