import type { Request, Response } from 'express';
import type { ApiFailure, OAuthErrorBody, OpenAIErrorBody } from '@switchyard/shared-dto';
import { AppException } from './app.exception';

/** Which error shape a path answers in (decisions.md section 6). */
export type ErrorSurface = 'openai' | 'oauth' | 'envelope';

const OPENAI_PREFIXES = ['/v1/', '/apikey/v1/', '/oauth2/v1/'];
const OAUTH_PROTOCOL_PATHS = ['/oauth2/token', '/oauth2/revoke', '/oauth2/introspect', '/oauth2/register'];

export function errorSurface(path: string): ErrorSurface {
  const lower = path.toLowerCase();
  if (OPENAI_PREFIXES.some((prefix) => lower.startsWith(prefix) || lower === prefix.slice(0, -1))) return 'openai';
  if (OAUTH_PROTOCOL_PATHS.includes(lower.replace(/\/+$/, ''))) return 'oauth';
  return 'envelope';
}

/** OpenAI's error `type` for an HTTP status. */
export function openAiErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 429) return 'rate_limit_error';
  if (status >= 500) return 'server_error';
  return 'invalid_request_error';
}

export function renderError(
  surface: ErrorSurface,
  error: AppException,
  requestId: string | undefined,
): ApiFailure | OpenAIErrorBody | OAuthErrorBody {
  const { details, extra } = error.options;
  switch (surface) {
    case 'openai':
      return {
        error: {
          message: error.message,
          type: openAiErrorType(error.status),
          code: error.code.toLowerCase(),
          param: details?.[0]?.field ?? null,
          ...extra,
        },
      };
    case 'oauth':
      return { error: error.code.toLowerCase(), error_description: error.message };
    case 'envelope':
      return {
        success: false,
        message: error.message,
        error: { code: error.code, ...(details ? { details } : {}), ...extra },
        timestamp: new Date().toISOString(),
        ...(requestId ? { requestId } : {}),
      };
  }
}

/** Writes an AppException to an Express response in the shape of the request's surface. */
export function sendError(req: Request, res: Response, error: AppException): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const surface = errorSurface(req.path);
  for (const [name, value] of Object.entries(error.options.headers ?? {})) res.setHeader(name, value);
  if (surface === 'oauth') res.setHeader('Cache-Control', 'no-store');
  res.status(error.status).json(renderError(surface, error, req.requestId));
}
