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

/** POST /api/v1/auth/password: the current password, and the new one (the same rules as at registration). */
export interface PasswordChangeRequest {
  currentPassword: string;
  newPassword: string;
}

/** POST /api/v1/auth/delete-account: the password confirms it. */
export interface AccountDeleteRequest {
  password: string;
}
