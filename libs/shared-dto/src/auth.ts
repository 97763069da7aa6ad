/** Accounts and sessions (docs/decisions.md#accounts-and-sessions). */
export const USER_ROLES = ['user', 'admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 200;
export const NAME_MAX_LENGTH = 100;
export const EMAIL_MAX_LENGTH = 254;

/** The cookie that carries the dashboard session (HttpOnly, SameSite=Lax). */
export const SESSION_COOKIE = 'sy_session';
/** Double-submit CSRF cookie, readable by the dashboard, echoed in CSRF_HEADER on cookie-authenticated writes. */
export const CSRF_COOKIE = 'sy_csrf';
export const CSRF_HEADER = 'x-csrf-token';
export const REQUEST_ID_HEADER = 'x-request-id';

export interface AuthRegisterRequest {
  email: string;
  password: string;
  name?: string;
}

export interface AuthLoginRequest {
  email: string;
  password: string;
}

export interface UserResponse {
  id: string;
  email: string;
  name: string | null;
  handle: string | null;
  role: UserRole;
  createdAt: string;
  /** Whether the account has verified its address (docs/mail.md). */
  emailVerified: boolean;
}

export interface AuthSessionResponse {
  user: UserResponse;
  /** A bearer token for this session; the same session is also set as the cookie. */
  token: string;
  expiresAt: string;
}

/** PATCH /api/v1/auth/me */
export interface AccountUpdateRequest {
  name: string;
}

/**
 * POST /api/v1/auth/password: the current password, and the new one (the same rules as at registration).
 * `revokeCredentials` (default false) also revokes every API key and every app's authorization of the account.
 */
export interface PasswordChangeRequest {
  currentPassword: string;
  newPassword: string;
  revokeCredentials?: boolean;
}

/** POST /api/v1/auth/logout-everywhere: `revokeCredentials` (default false) revokes every API key and app authorization too. */
export interface SignOutEverywhereRequest {
  revokeCredentials?: boolean;
}

/** What a password change, a reset or "sign out everywhere" ended (docs/accounts.md, "Settings"). */
export interface SignedOutResponse {
  signedOutSessions: number;
  /** API keys revoked: 0 unless revokeCredentials was asked. */
  revokedApiKeys: number;
  /** Apps whose authorization (grants and tokens) was revoked: 0 unless revokeCredentials was asked. */
  revokedAppAuthorizations: number;
}

/** POST /api/v1/auth/delete-account: the password confirms it. */
export interface AccountDeleteRequest {
  password: string;
}

/**
 * Characters an email address may not hold (docs/accounts.md, "Emails"): invisible and formatting ones
 * (Unicode general category Cf: zero-width spaces and joiners, bidi controls, the soft hyphen; Default_Ignorable
 * code points such as U+3164 and variation selectors), controls (Cc), separators (Z*: every space but the plain
 * spaces trimmed off the ends), and private-use, unassigned or lone surrogate code points. Any of them can make an
 * address that reads like another account's (`victim\u200b@example.com` beside `victim@example.com`).
 */
const EMAIL_FORBIDDEN = /[\p{Cf}\p{Cc}\p{Z}\p{Default_Ignorable_Code_Point}\p{Co}\p{Cn}\p{Cs}]/u;

/**
 * An email as it is stored and looked up: NFKC-normalised (fullwidth and compatibility forms folded), plain spaces,
 * tabs and line ends trimmed off the ends (nothing invisible: a trailing zero-width or byte-order mark stays, to be
 * refused), lower-cased.
 */
export function normaliseEmail(raw: string): string {
  return raw
    .normalize('NFKC')
    .replace(/^[ \t\r\n]+|[ \t\r\n]+$/g, '')
    .toLowerCase();
}

/** The first character a (normalised) email may not hold, as "U+200B", or null when it has none. */
export function emailForbiddenCharacter(email: string): string | null {
  const match = EMAIL_FORBIDDEN.exec(email);
  if (!match) return null;
  return `U+${match[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;
}

/** POST /api/v1/auth/password-reset: ask for a reset link by mail (the answer is the same whether or not an account has it). */
export interface PasswordResetRequest {
  email: string;
}

/** POST /api/v1/auth/password-reset/confirm: the link's token and the new password. */
export interface PasswordResetConfirmRequest {
  token: string;
  newPassword: string;
  /** Also revoke every API key and app authorization (default false), as a password change may. */
  revokeCredentials?: boolean;
}

/** POST /api/v1/auth/verify-email: the verification link's token. */
export interface EmailVerifyRequest {
  token: string;
}

/** The tokens mail links carry: a prefix and 256 random bits, base64url. */
export const MAIL_TOKEN_MAX_LENGTH = 100;

/**
 * GET/PUT /api/v1/notifications/settings: the budget alerts' thresholds (docs/mail.md, "Alerts"). `lowBalance`:
 * mail when the balance falls below this amount (currency units); `capAlertPercent`: mail when a key's or an app's
 * spend reaches this share of one of its limits. null turns that alert off; receipts are always sent.
 */
export interface NotificationSettings {
  lowBalance: number | null;
  capAlertPercent: number | null;
}

export const DEFAULT_NOTIFICATION_SETTINGS: NotificationSettings = { lowBalance: 1, capAlertPercent: 80 };
export const LOW_BALANCE_MAX = 1_000_000;
