import { ArgumentsHost, Catch, ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import type { Request, Response } from 'express';
import { AppException, CommonErrorCode, CommonException } from './app.exception';
import { ErroredRequest, sendError } from './error-render';

/** Turns anything thrown into an AppException; unknown errors become a generic 500, logged with the request id. */
export function toAppException(error: unknown, req: ErroredRequest, logger?: Logger): AppException {
  if (error instanceof AppException) return error;
  if (error instanceof HttpException) {
    const status = error.getStatus();
    if (status === 404)
      return new CommonException(CommonErrorCode.ROUTE_NOT_FOUND, `No route for ${req.method} ${req.path}`);
    if (status === 413) return new CommonException(CommonErrorCode.PAYLOAD_TOO_LARGE, 'Request body is too large');
    if (status === 405) return new CommonException(CommonErrorCode.METHOD_NOT_ALLOWED, 'Method not allowed');
    if (status === 401) return new CommonException(CommonErrorCode.UNAUTHENTICATED, 'Authentication required');
    if (status === 403) return new CommonException(CommonErrorCode.FORBIDDEN, 'Forbidden');
    if (status < 500) return new AppException('BAD_REQUEST', status, error.message);
  }
  const bodyError = error as { type?: string; status?: number; expose?: boolean } | undefined;
  if (bodyError?.type === 'entity.parse.failed')
    return new CommonException(CommonErrorCode.INVALID_JSON, 'Request body is not valid JSON');
  if (bodyError?.type === 'entity.too.large')
    return new CommonException(CommonErrorCode.PAYLOAD_TOO_LARGE, 'Request body is too large');
  if (bodyError?.type === 'charset.unsupported' || bodyError?.type === 'encoding.unsupported')
    return new CommonException(CommonErrorCode.UNSUPPORTED_MEDIA_TYPE, 'Unsupported request body encoding');
  // Any other failure to read a body (a length that does not match, a client that stopped sending, a compressed
  // body that does not inflate, too many form fields) is the caller's: body-parser marks it a 4xx (http-errors'
  // `expose`), whatever it names it.
  if (
    (typeof bodyError?.type === 'string' || bodyError?.expose === true) &&
    typeof bodyError?.status === 'number' &&
    bodyError.status >= 400 &&
    bodyError.status < 500
  )
    return bodyError.status === 413
      ? new CommonException(CommonErrorCode.PAYLOAD_TOO_LARGE, 'Request body is too large')
      : new CommonException(CommonErrorCode.INVALID_REQUEST, 'The request body could not be read');
  logger?.error(
    { msg: `unhandled error: ${(error as Error)?.message ?? String(error)}`, requestId: req.requestId },
    (error as Error)?.stack,
  );
  return new CommonException(CommonErrorCode.INTERNAL, 'Internal server error');
}

@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  private readonly logger = new Logger('Errors');

  catch(exception: unknown, host: ArgumentsHost): void {
    const http = host.switchToHttp();
    const req = http.getRequest<Request>();
    const res = http.getResponse<Response>();
    sendError(req, res, toAppException(exception, req, this.logger));
  }
}
