import type { ApiErrorDetail } from '@switchyard/shared-dto';

/**
 * The one base exception. Each feature subclasses it with its own string-enum code and a `Record<Code, status>`
 * table, so the type checker forces every code to have a status. Services throw these, never HttpException;
 * the global filter renders them in the shape of the surface that was called (envelope, OpenAI or RFC 6749).
 */
export class AppException extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly options: {
      details?: ApiErrorDetail[];
      /** Extra fields placed inside `error` (e.g. remainingBudget). Never secrets. */
      extra?: Record<string, unknown>;
      headers?: Record<string, string>;
    } = {},
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export enum CommonErrorCode {
  VALIDATION_FAILED = 'VALIDATION_FAILED',
  INVALID_JSON = 'INVALID_JSON',
  UNSUPPORTED_MEDIA_TYPE = 'UNSUPPORTED_MEDIA_TYPE',
  PAYLOAD_TOO_LARGE = 'PAYLOAD_TOO_LARGE',
  ROUTE_NOT_FOUND = 'ROUTE_NOT_FOUND',
  METHOD_NOT_ALLOWED = 'METHOD_NOT_ALLOWED',
  UNAUTHENTICATED = 'UNAUTHENTICATED',
  FORBIDDEN = 'FORBIDDEN',
  CSRF_INVALID = 'CSRF_INVALID',
  ORIGIN_FORBIDDEN = 'ORIGIN_FORBIDDEN',
  INVALID_REQUEST = 'INVALID_REQUEST',
  INVALID_TOKEN = 'INVALID_TOKEN',
  INSUFFICIENT_SCOPE = 'INSUFFICIENT_SCOPE',
  RATE_LIMITED = 'RATE_LIMITED',
  SERVICE_UNAVAILABLE = 'SERVICE_UNAVAILABLE',
  INTERNAL = 'INTERNAL',
}

const COMMON_STATUS: Record<CommonErrorCode, number> = {
  [CommonErrorCode.VALIDATION_FAILED]: 400,
  [CommonErrorCode.INVALID_JSON]: 400,
  [CommonErrorCode.UNSUPPORTED_MEDIA_TYPE]: 415,
  [CommonErrorCode.PAYLOAD_TOO_LARGE]: 413,
  [CommonErrorCode.ROUTE_NOT_FOUND]: 404,
  [CommonErrorCode.METHOD_NOT_ALLOWED]: 405,
  [CommonErrorCode.UNAUTHENTICATED]: 401,
  [CommonErrorCode.FORBIDDEN]: 403,
  [CommonErrorCode.CSRF_INVALID]: 403,
  [CommonErrorCode.ORIGIN_FORBIDDEN]: 403,
  [CommonErrorCode.INVALID_REQUEST]: 400,
  [CommonErrorCode.INVALID_TOKEN]: 401,
  [CommonErrorCode.INSUFFICIENT_SCOPE]: 403,
  [CommonErrorCode.RATE_LIMITED]: 429,
  [CommonErrorCode.SERVICE_UNAVAILABLE]: 503,
  [CommonErrorCode.INTERNAL]: 500,
};

export class CommonException extends AppException {
  constructor(code: CommonErrorCode, message: string, options: AppException['options'] = {}) {
    super(code, COMMON_STATUS[code], message, options);
  }
}
