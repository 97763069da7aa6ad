import type { OAuthScope, UserInfoResponse, UserResponse } from '@switchyard/shared-dto';
import { accessTokenHash } from './jose';

/** How long an ID token is valid: it is read once, when the app signs the user in. */
export const ID_TOKEN_TTL_SECONDS = 3600;

/**
 * The claims the scopes held promise (OpenID Connect Core section 5.4), for the ID token and the userinfo
 * endpoint alike: `profile` gives `name` and `preferred_username` (the handle), `email` gives `email` and
 * `email_verified`. A claim without a value is left out, as section 5.3.2 asks. The interface's `profile:read`
 * keeps its own userinfo shape (`email`, `name`, `handle`).
 */
export function userClaims(user: UserResponse, scopes: readonly OAuthScope[]): UserInfoResponse {
  const claims: UserInfoResponse = { sub: user.id };
  if (scopes.includes('profile:read'))
    Object.assign(claims, { email: user.email, name: user.name, handle: user.handle });
  if (scopes.includes('profile')) {
    if (user.name) claims.name = user.name;
    if (user.handle) claims.preferred_username = user.handle;
  }
  if (scopes.includes('email')) {
    claims.email = user.email;
    // Whether the user followed the verification link sent to the address (docs/mail.md).
    claims.email_verified = user.emailVerified;
  }
  return claims;
}

export interface IdTokenInput {
  issuer: string;
  clientId: string;
  user: UserResponse;
  scopes: readonly OAuthScope[];
  /** The authorization request's nonce; none on a refresh. */
  nonce: string | null;
  accessToken: string;
  now: number;
}

/** An ID token's claims (Core section 2): who, for which app, from whom, until when, and the scopes' claims. */
export function idTokenClaims(input: IdTokenInput): Record<string, unknown> {
  const iat = Math.floor(input.now / 1000);
  // profile:read is the interface's userinfo scope; an ID token carries OpenID Connect's claims only.
  const identity = input.scopes.filter((scope) => scope !== 'profile:read');
  return {
    ...userClaims(input.user, identity),
    iss: input.issuer,
    sub: input.user.id,
    aud: input.clientId,
    iat,
    exp: iat + ID_TOKEN_TTL_SECONDS,
    ...(input.nonce ? { nonce: input.nonce } : {}),
    at_hash: accessTokenHash(input.accessToken),
  };
}
