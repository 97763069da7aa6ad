import { AppException } from '../../common/errors/app.exception';

/**
 * Errors of the OAuth protocol endpoints. The codes are RFC 6749 / 7591 error names (rendered in lower case as
 * `error`); statuses per docs/decisions.md#answers-and-errors: 401 for invalid_client, 400 for the rest.
 */
export enum OAuthErrorCode {
  INVALID_REQUEST = 'INVALID_REQUEST',
  INVALID_CLIENT = 'INVALID_CLIENT',
  INVALID_GRANT = 'INVALID_GRANT',
  UNAUTHORIZED_CLIENT = 'UNAUTHORIZED_CLIENT',
  UNSUPPORTED_GRANT_TYPE = 'UNSUPPORTED_GRANT_TYPE',
  UNSUPPORTED_TOKEN_TYPE = 'UNSUPPORTED_TOKEN_TYPE',
  INVALID_SCOPE = 'INVALID_SCOPE',
  INVALID_REDIRECT_URI = 'INVALID_REDIRECT_URI',
  INVALID_CLIENT_METADATA = 'INVALID_CLIENT_METADATA',
  ACCESS_DENIED = 'ACCESS_DENIED',
  /** The consent page's API (envelope surface): the authorization request cannot be shown or answered. */
  AUTHORIZATION_REQUEST_INVALID = 'AUTHORIZATION_REQUEST_INVALID',
}

const STATUS: Record<OAuthErrorCode, number> = {
  [OAuthErrorCode.INVALID_REQUEST]: 400,
  [OAuthErrorCode.INVALID_CLIENT]: 401,
  [OAuthErrorCode.INVALID_GRANT]: 400,
  [OAuthErrorCode.UNAUTHORIZED_CLIENT]: 400,
  [OAuthErrorCode.UNSUPPORTED_GRANT_TYPE]: 400,
  [OAuthErrorCode.UNSUPPORTED_TOKEN_TYPE]: 400,
  [OAuthErrorCode.INVALID_SCOPE]: 400,
  [OAuthErrorCode.INVALID_REDIRECT_URI]: 400,
  [OAuthErrorCode.INVALID_CLIENT_METADATA]: 400,
  [OAuthErrorCode.ACCESS_DENIED]: 403,
  [OAuthErrorCode.AUTHORIZATION_REQUEST_INVALID]: 400,
};

export class OAuthException extends AppException {
  constructor(code: OAuthErrorCode, message: string, headers?: Record<string, string>) {
    super(code, STATUS[code], message, headers ? { headers } : {});
  }
}
