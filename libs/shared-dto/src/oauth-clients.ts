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
