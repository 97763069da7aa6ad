/** OAuth apps as their owners manage them; the registration rules (names, redirect URIs, lifetimes) are in ./oauth. */
import type { OAuthScope } from './oauth';

export interface OAuthClientResponse {
  id: number;
  clientId: string;
  clientSecret?: string;
  clientName: string;
  clientType: 'PUBLIC' | 'CONFIDENTIAL';
  redirectUris: string[];
  scopes: OAuthScope[];
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  requirePkce: boolean;
  /** False only for a trusted app: its users are not asked (the opposite of `trusted`). */
  requireConsent: boolean;
  /** A first-party app that an admin marked trusted: it skips the consent page. */
  trusted: boolean;
  isActive: boolean;
  createdAt: string;
  updatedAt: string;
  authorizedUserCount: number;
  /** Gateway requests per minute for each user of this app; null: the server's default (GATEWAY_RPM). */
  requestsPerMinute: number | null;
  /** The app's markup on its users' calls, in whole percent (docs/earnings.md): they pay cost × (1 + markup/100). */
  markupPercent: number;
  /** Users still on a lower rate they agreed to: a raise applies to each once they approve the app again. */
  usersOnOldRate: number;
}

/** GET /api/v1/oauth2/clients/{clientId}/usage (docs/decisions.md#resource-shapes). */
export interface ClientUsageResponse {
  clientId: string;
  startDate: string;
  endDate: string;
  totalCost: number;
  totalTokens: number;
  requests: number;
  users: number;
  byModel: { model: string; requests: number; totalTokens: number; cost: number }[];
  byDay: { date: string; requests: number; totalTokens: number; cost: number }[];
}

/** The fields a client's create and update share, each optional. */
export interface OAuthClientFields {
  /** At least one on create (here or in redirectUri); see redirectUriProblem. */
  redirectUris?: string[];
  /** One create example sends a single redirect URI; it joins redirectUris. */
  redirectUri?: string;
  /** Unset on create: api:access. */
  requestedScopes?: OAuthScope[];
  /** Only `true`: an admin decides which first-party apps skip the consent page. */
  requireConsent?: boolean;
  accessTokenTtlSeconds?: number;
  refreshTokenTtlSeconds?: number;
  /** Gateway requests per minute for each user of the app; null: the server's default. */
  requestsPerMinute?: number | null;
  /** Whole percent from 0 to MAX_MARKUP_PERCENT (300); unset on create: 0. A raise needs each user's re-consent. */
  markupPercent?: number;
}

/** The highest markup an app may set, in percent (docs/earnings.md). */
export const MAX_MARKUP_PERCENT = 300;

/** POST /api/v1/oauth2/clients */
export interface OAuthClientCreateRequest extends OAuthClientFields {
  clientName: string;
  /** true makes a CONFIDENTIAL client whose secret is shown once. */
  generateSecret?: boolean;
}

/** PUT /api/v1/oauth2/clients/{id}: the create fields, each optional; fields left out keep their value. */
export interface OAuthClientUpdateRequest extends OAuthClientFields {
  clientName?: string;
}

/** PUT /api/v1/admin/oauth2/clients/{clientId}/trusted: whether a first-party app skips the consent page. */
export interface OAuthClientTrustRequest {
  trusted: boolean;
}

/** GET /api/v1/oauth2/clients/{clientId}/usage: dates such as 2026-11-01; unset, the last 30 days. */
export interface ClientUsageQuery {
  startDate?: string;
  endDate?: string;
}
