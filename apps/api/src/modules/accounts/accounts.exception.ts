import { AppException } from '../../common/errors/app.exception';

export enum AccountsErrorCode {
  EMAIL_TAKEN = 'EMAIL_TAKEN',
  INVALID_CREDENTIALS = 'INVALID_CREDENTIALS',
  SESSION_INVALID = 'SESSION_INVALID',
  TOKEN_INVALID = 'TOKEN_INVALID',
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  FORBIDDEN = 'FORBIDDEN',
  CSRF_INVALID = 'CSRF_INVALID',
  PASSWORD_INCORRECT = 'PASSWORD_INCORRECT',
  RESET_LINK_INVALID = 'RESET_LINK_INVALID',
  VERIFY_LINK_INVALID = 'VERIFY_LINK_INVALID',
  ACCOUNT_DISABLED = 'ACCOUNT_DISABLED',
  EMAIL_UNVERIFIED = 'EMAIL_UNVERIFIED',
}

const STATUS: Record<AccountsErrorCode, number> = {
  [AccountsErrorCode.EMAIL_TAKEN]: 409,
  [AccountsErrorCode.INVALID_CREDENTIALS]: 401,
  [AccountsErrorCode.SESSION_INVALID]: 401,
  [AccountsErrorCode.TOKEN_INVALID]: 401,
  [AccountsErrorCode.UNAUTHENTICATED]: 401,
  [AccountsErrorCode.FORBIDDEN]: 403,
  [AccountsErrorCode.CSRF_INVALID]: 403,
  // Not 401: the session is good, and a 401 would send the dashboard to sign in again.
  [AccountsErrorCode.PASSWORD_INCORRECT]: 403,
  [AccountsErrorCode.RESET_LINK_INVALID]: 400,
  [AccountsErrorCode.VERIFY_LINK_INVALID]: 400,
  [AccountsErrorCode.ACCOUNT_DISABLED]: 403,
  [AccountsErrorCode.EMAIL_UNVERIFIED]: 403,
};

export class AccountsException extends AppException {
  constructor(code: AccountsErrorCode, message: string, field?: string) {
    super(code, STATUS[code], message, {
      details: field ? [{ field, messages: [message] }] : undefined,
      // RFC 6750 section 3: a 401 for a bearer-protected resource names the scheme.
      headers:
        STATUS[code] === 401 && code !== AccountsErrorCode.INVALID_CREDENTIALS ? { 'WWW-Authenticate': 'Bearer' } : {},
    });
  }
}
