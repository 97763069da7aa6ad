import type { OAuthScope, UserRole } from '@switchyard/shared-dto';

/** Who is calling a management route, as the authentication guard attached it to the request. */
export interface SessionPrincipal {
  kind: 'session';
  userId: string;
  email: string;
  role: UserRole;
  sessionId: string;
  /** How the session token arrived: the Authorization header or the dashboard's cookie. */
  via: 'bearer' | 'cookie';
}

/** A third-party app acting for a user with an OAuth access token (only on routes that say `oauth: true`). */
export interface OAuthPrincipal {
  kind: 'oauth';
  userId: string;
  /** The public client_id of the app the token was issued to. */
  clientId: string;
  clientName: string;
  scopes: OAuthScope[];
  grantId: string;
}

export type Principal = SessionPrincipal | OAuthPrincipal;

/** OAuth access and refresh tokens (docs/decisions.md#names-and-defaults). */
export const OAUTH_ACCESS_TOKEN_PREFIX = 'sya_';
export const OAUTH_REFRESH_TOKEN_PREFIX = 'syr_';

declare module 'express-serve-static-core' {
  interface Request {
    principal?: Principal;
  }
}
