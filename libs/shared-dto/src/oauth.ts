import type { ConsentLimits, ConsentLimitsRequest } from './consents';

/** The scopes an app registers (and the dashboard's forms offer). */
export const OAUTH_SCOPES = ['api:access', 'profile:read'] as const;
/**
 * OpenID Connect's identity scopes (docs/oauth.md#openid-connect): every app may ask for them without registering
 * them, as with other identity providers; they let the app know who the user is, never spend anything.
 */
export const IDENTITY_SCOPES = ['openid', 'profile', 'email'] as const;
/** Every scope an authorization may hold. */
export const ALL_SCOPES = [...OAUTH_SCOPES, ...IDENTITY_SCOPES] as const;
export type OAuthScope = (typeof ALL_SCOPES)[number];
export type IdentityScope = (typeof IDENTITY_SCOPES)[number];

/** The header an app sends beside its access token on /v1 (docs/oauth.md#the-flow-for-an-app). */
export const OAUTH_CLIENT_ID_HEADER = 'x-service-oauth-client-id';

/** The consent page's words for each scope. */
export const SCOPE_DESCRIPTIONS: Record<OAuthScope, string> = {
  'api:access': 'Call AI models for you, paid from your budget',
  'profile:read': 'See your name, email address and handle',
  openid: 'Sign you in to the app with your Switchyard account',
  profile: 'See your name and handle',
  email: 'See your email address',
};

export const ACCESS_TOKEN_TTL_DEFAULT = 3600;
export const REFRESH_TOKEN_TTL_DEFAULT = 2_592_000;
export const ACCESS_TOKEN_TTL_RANGE = [60, 86_400] as const;
export const REFRESH_TOKEN_TTL_RANGE = [300, 31_536_000] as const;
export const CLIENT_NAME_RANGE = [3, 255] as const;
export const MAX_REDIRECT_URIS = 10;
/** The longest OpenID Connect `nonce` an authorization request may carry. */
export const NONCE_MAX_LENGTH = 255;

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);
const FORBIDDEN_SCHEMES = new Set(['javascript:', 'data:', 'file:', 'vbscript:', 'blob:', 'about:']);

/**
 * Why a redirect URI cannot be registered, or null when it can (RFC 8252 and OAuth 2.1): an absolute URI without
 * a fragment or wildcard; https anywhere, http only on loopback, or an app's private-use scheme (`myapp:/cb`).
 */
export function redirectUriProblem(uri: string): string | null {
  if (typeof uri !== 'string' || !uri.trim()) return 'must be a non-empty URI';
  if (uri.length > 2000) return 'must be at most 2000 characters';
  if (uri !== uri.trim() || /\s/.test(uri)) return 'must not contain spaces';
  if (uri.includes('*')) return 'must not contain wildcards';
  if (uri.includes('#')) return 'must not contain a fragment (#)';
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return 'must be an absolute URI such as https://app.example.com/callback or myapp://callback';
  }
  if (FORBIDDEN_SCHEMES.has(url.protocol)) return `must not use the ${url.protocol} scheme`;
  if (url.username || url.password) return 'must not contain a user name or password';
  if (url.protocol === 'http:' && !LOOPBACK_HOSTS.has(url.hostname))
    return 'may use http only on a loopback address (localhost, 127.0.0.1, [::1]); use https';
  if (url.protocol !== 'http:' && url.protocol !== 'https:' && !/^[a-z][a-z0-9+.-]*:$/.test(url.protocol))
    return 'has an invalid scheme';
  return null;
}

/**
 * Words an app's name may not contain, because the name is shown on the consent page and an app that calls
 * itself after the service (or its staff) would be asking users to trust it as first-party.
 */
export const RESERVED_NAME_WORDS = ['switchyard', 'admin', 'official'] as const;

/** Letters from other scripts, and digits or signs, that read as a Latin letter (a small confusables table). */
const LOOKALIKES: Record<string, string> = {
  // Cyrillic
  а: 'a',
  в: 'b',
  е: 'e',
  ё: 'e',
  к: 'k',
  м: 'm',
  н: 'h',
  о: 'o',
  р: 'p',
  с: 'c',
  т: 't',
  у: 'y',
  х: 'x',
  ѕ: 's',
  і: 'i',
  ї: 'i',
  ј: 'j',
  һ: 'h',
  ԁ: 'd',
  ԛ: 'q',
  ԝ: 'w',
  ӏ: 'i',
  // Greek
  α: 'a',
  β: 'b',
  ε: 'e',
  η: 'n',
  ι: 'i',
  κ: 'k',
  ν: 'v',
  ο: 'o',
  ρ: 'p',
  τ: 't',
  υ: 'u',
  χ: 'x',
  ω: 'w',
  // Latin look-alikes NFKD leaves alone
  ı: 'i',
  ɑ: 'a',
  ɡ: 'g',
  ɩ: 'i',
  ʏ: 'y',
  ℮: 'e',
  ø: 'o',
  đ: 'd',
  ħ: 'h',
  ł: 'l',
  ŧ: 't',
  // Armenian
  օ: 'o',
  ս: 'u',
  ո: 'n',
  հ: 'h',
  // Digits and signs
  '0': 'o',
  '1': 'i',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '7': 't',
  '8': 'b',
  '9': 'g',
  '@': 'a',
  $: 's',
  '!': 'i',
  '|': 'i',
};

/**
 * A name's skeleton for comparing what it looks like: compatibility-normalised (full-width and mathematical
 * letters become plain ones), accents dropped, lower case, look-alike letters folded (`l` and `i` alike, `rn`
 * as `m`, `vv` as `w`), and everything but letters removed, so spaces, dots and invisible characters hide nothing.
 */
export function nameSkeleton(name: string): string {
  const plain = name.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
  const folded = [...plain].map((char) => LOOKALIKES[char] ?? char).join('');
  return folded
    .replace(/[^a-z]/g, '')
    .replace(/l/g, 'i')
    .replace(/rn/g, 'm')
    .replace(/vv/g, 'w');
}

/** Why an app may not use this name (it imitates the service), or null. Case- and look-alike-insensitive. */
export function reservedNameProblem(name: string): string | null {
  const skeleton = nameSkeleton(name);
  const word = RESERVED_NAME_WORDS.find((reserved) => skeleton.includes(nameSkeleton(reserved)));
  return word
    ? `must not contain "${word}" (or a look-alike of it): app names may not pass for the service itself`
    : null;
}

/** Where a redirect URI goes, as the consent page names it. */
export function redirectHost(uri: string): string {
  try {
    const url = new URL(uri);
    return url.host || `${url.protocol}//`;
  } catch {
    return uri;
  }
}

/**
 * The authorization request's query (RFC 6749 section 4.1.1 plus PKCE, RFC 7636 section 4.3), as /oauth2/authorize
 * hands it to the consent page (GET /api/v1/oauth2/authorize/request) and the page hands it back with the decision.
 */
export interface AuthorizationParams {
  client_id: string;
  redirect_uri?: string;
  response_type?: string;
  scope?: string;
  state?: string;
  code_challenge?: string;
  code_challenge_method?: string;
  /** OpenID Connect: echoed in the ID token, so the app can tie it to this request. */
  nonce?: string;
  /**
   * OpenID Connect's `display`: `popup` when the app opened the authorization in a popup; the consent page then
   * hands the answer to the opener (postMessage to the redirect URI's origin) and closes (docs/sdk.md#popups).
   */
  display?: string;
}

/** The names of AuthorizationParams, in the order the consent page passes them on. */
export const AUTHORIZATION_PARAM_NAMES = [
  'client_id',
  'redirect_uri',
  'response_type',
  'scope',
  'state',
  'code_challenge',
  'code_challenge_method',
  'nonce',
  'display',
] as const satisfies readonly (keyof AuthorizationParams)[];

/** POST /api/v1/oauth2/authorize/decision: the request's parameters unchanged, and the user's answer. */
export interface AuthorizationDecisionRequest extends AuthorizationParams {
  approve: boolean;
  /** Caps on what the app may spend; only with an approval. */
  limits?: ConsentLimitsRequest;
  /**
   * The app's markup the consent page showed (AuthorizationRequestInfo.markupPercent): what the user agrees to.
   * Left out: no markup is agreed to (calls are priced at cost until the user approves a page that showed it).
   */
  markupPercent?: number;
}

/** What the consent page shows about a pending authorization (GET /api/v1/oauth2/authorize/request). */
export interface AuthorizationRequestInfo {
  client: { clientId: string; clientName: string; redirectHost: string; redirectUri: string };
  scopes: { scope: OAuthScope; description: string }[];
  /** Scopes this user already granted the app; the page may say it asks for more. */
  alreadyGranted: OAuthScope[];
  /** The caps the user set earlier on this app, if any. */
  limits: ConsentLimits | null;
  /** The app's markup in whole percent: calls through it cost the user the provider's price × (1 + markup/100). */
  markupPercent: number;
  /** The rate this user agreed to before (null: never approved): when lower, approving accepts the raise. */
  agreedMarkupPercent: number | null;
  /**
   * Sponsored credits (docs/earnings.md): what the app pays of this user's calls, at most (currency units): the
   * allowance they get by approving now, or what is left of the one they have; null when the app pays nothing.
   */
  sponsoredUpTo: number | null;
}

/** POST /api/v1/oauth2/authorize/decision answers where the browser goes next. */
export interface AuthorizationDecisionResponse {
  redirectTo: string;
}

export interface TokenResponse {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  token_type: 'Bearer';
  scope: string;
  /** OpenID Connect: a signed JWT saying who the user is, when the authorization holds the `openid` scope. */
  id_token?: string;
}

/**
 * GET /oauth2/userinfo (scope profile:read, or openid). `sub` always; with profile:read the fields `email`, `name`
 * and `handle`; with openid, OpenID Connect's claims of the scopes held: `profile` gives `name` and
 * `preferred_username` (the handle), `email` gives `email` and `email_verified`.
 */
export interface UserInfoResponse {
  sub: string;
  email?: string;
  email_verified?: boolean;
  name?: string | null;
  handle?: string | null;
  preferred_username?: string | null;
  updated_at?: number;
}
