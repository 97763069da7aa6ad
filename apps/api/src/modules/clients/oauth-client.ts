import type { OAuthScope } from '@switchyard/shared-dto';

/**
 * A registered OAuth2 app as the protocol (the oauth module) sees it: what ClientsService hands out for the
 * authorization and token endpoints. The row it is read from (entities/oauth-client.entity.ts) stays this
 * module's own; the entity implements this interface, so the two cannot drift apart.
 */
export interface OAuthClient {
  /** The row's key: consents, grants and codes refer to the app by it. */
  readonly id: number;
  /** The public client_id. */
  readonly clientId: string;
  readonly clientName: string;
  readonly clientType: 'PUBLIC' | 'CONFIDENTIAL';
  /** The SHA-256 of a confidential client's secret (ClientsService.secretMatches compares it); null for a public one. */
  readonly secretHash: string | null;
  readonly redirectUris: string[];
  readonly scopes: OAuthScope[];
  readonly accessTokenTtlSeconds: number;
  readonly refreshTokenTtlSeconds: number;
  /** A first-party app an admin trusted: its users are not asked for consent. */
  readonly trusted: boolean;
  readonly registration: 'owner' | 'dynamic';
  /** The app's markup on its users' calls, whole percent (docs/earnings.md); a consent records what its user saw. */
  readonly markupPercent: number;
  /** When a token was first issued to the app (null: never). */
  readonly usedAt: Date | null;
  /** The monthly cap (micro-units, as a string) a new user's consent starts with; null: none. */
  readonly visitorMonthlyCapMicros: string | null;
  readonly createdAt: Date;
}
