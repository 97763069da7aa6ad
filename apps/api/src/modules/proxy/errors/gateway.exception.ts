import { AppException } from '../../../common/errors/app.exception';

/** Errors of the /v1 gateway, rendered in OpenAI's shape with the code in lower case. */
export enum GatewayErrorCode {
  ENDPOINT_NOT_ALLOWED = 'ENDPOINT_NOT_ALLOWED',
  MISSING_CREDENTIALS = 'MISSING_CREDENTIALS',
  INVALID_API_KEY = 'INVALID_API_KEY',
  INVALID_TOKEN = 'INVALID_TOKEN',
  /** A session-carried write on /dashboard/v1 without the session's CSRF token, or from another site. */
  CSRF_INVALID = 'CSRF_INVALID',
  INVALID_REQUEST = 'INVALID_REQUEST',
  INSUFFICIENT_SCOPE = 'INSUFFICIENT_SCOPE',
  INVALID_JSON = 'INVALID_JSON',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  MODEL_NOT_FOUND = 'MODEL_NOT_FOUND',
  UNSUPPORTED_METHOD = 'UNSUPPORTED_METHOD',
  MODEL_NOT_PRICED = 'MODEL_NOT_PRICED',
  VIDEO_NOT_FOUND = 'VIDEO_NOT_FOUND',
  UPSTREAM_ERROR = 'UPSTREAM_ERROR',
  UPSTREAM_TIMEOUT = 'UPSTREAM_TIMEOUT',
  UPSTREAM_RATE_LIMITED = 'UPSTREAM_RATE_LIMITED',
  SHUTTING_DOWN = 'SHUTTING_DOWN',
}

const STATUS: Record<GatewayErrorCode, number> = {
  [GatewayErrorCode.ENDPOINT_NOT_ALLOWED]: 403,
  [GatewayErrorCode.MISSING_CREDENTIALS]: 401,
  [GatewayErrorCode.INVALID_API_KEY]: 403,
  [GatewayErrorCode.INVALID_TOKEN]: 401,
  [GatewayErrorCode.CSRF_INVALID]: 403,
  [GatewayErrorCode.INVALID_REQUEST]: 400,
  [GatewayErrorCode.INSUFFICIENT_SCOPE]: 403,
  [GatewayErrorCode.INVALID_JSON]: 400,
  [GatewayErrorCode.UNSUPPORTED_MEDIA_TYPE]: 415,
  [GatewayErrorCode.PAYLOAD_TOO_LARGE]: 413,
  [GatewayErrorCode.MODEL_NOT_FOUND]: 404,
  [GatewayErrorCode.UNSUPPORTED_METHOD]: 400,
  [GatewayErrorCode.MODEL_NOT_PRICED]: 403,
  [GatewayErrorCode.VIDEO_NOT_FOUND]: 404,
  [GatewayErrorCode.UPSTREAM_ERROR]: 502,
  [GatewayErrorCode.UPSTREAM_TIMEOUT]: 504,
  [GatewayErrorCode.UPSTREAM_RATE_LIMITED]: 429,
  [GatewayErrorCode.SHUTTING_DOWN]: 503,
};

export class GatewayException extends AppException {
  constructor(
    code: GatewayErrorCode,
    message: string,
    options: { param?: string; status?: number; headers?: Record<string, string> } = {},
  ) {
    const auth = code === GatewayErrorCode.MISSING_CREDENTIALS || code === GatewayErrorCode.INVALID_TOKEN;
    super(code, options.status ?? STATUS[code], message, {
      details: options.param ? [{ field: options.param, messages: [message] }] : undefined,
      // RFC 6750 section 3.
      headers: { ...(auth ? { 'WWW-Authenticate': 'Bearer' } : {}), ...options.headers },
    });
  }
}
