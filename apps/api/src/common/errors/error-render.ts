import type { ServerResponse } from 'node:http';
import type { ApiFailure, OAuthErrorBody, OpenAIErrorBody } from '@switchyard/shared-dto';
import { AppException } from './app.exception';

/** Which error shape a path answers in (docs/decisions.md#answers-and-errors). */
export type ErrorSurface = 'openai' | 'anthropic' | 'oauth' | 'envelope';

const OPENAI_PREFIXES = ['/v1/', '/apikey/v1/', '/oauth2/v1/', '/dashboard/v1/'];
/** The gateway's Anthropic Messages routes (docs/anthropic.md), under each gateway prefix. */
const ANTHROPIC_PATHS = /^\/(v1|apikey\/v1|oauth2\/v1|dashboard\/v1)\/messages(\/count_tokens)?\/?$/;
const OAUTH_PROTOCOL_PATHS = ['/oauth2/token', '/oauth2/revoke', '/oauth2/introspect', '/oauth2/register'];

export function errorSurface(path: string): ErrorSurface {
  const lower = path.toLowerCase();
  if (ANTHROPIC_PATHS.test(lower)) return 'anthropic';
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

/** Anthropic's error `type` for an HTTP status (docs/anthropic.md, "Errors"). */
export function anthropicErrorType(status: number): string {
  if (status === 401) return 'authentication_error';
  if (status === 403) return 'permission_error';
  if (status === 404) return 'not_found_error';
  if (status === 413) return 'request_too_large';
  if (status === 429) return 'rate_limit_error';
  if (status === 503 || status === 529) return 'overloaded_error';
  if (status >= 500) return 'api_error';
  return 'invalid_request_error';
}

/**
 * The status of an error on Anthropic's routes: the gateway's own, but a bad API key is 401 (Anthropic's
 * authentication_error; the OpenAI face answers 403) and an unsupported media type 400.
 */
export function anthropicStatus(error: AppException): number {
  if (error.code === 'INVALID_API_KEY') return 401;
  if (error.status === 415) return 400;
  return error.status;
}

/** An error in Anthropic's shape: `{"type":"error","error":{"type","message"}}` (and the request's id). */
export function anthropicError(status: number, message: string, requestId?: string): AnthropicErrorBody {
  return {
    type: 'error',
    error: { type: anthropicErrorType(status), message },
    ...(requestId ? { request_id: requestId } : {}),
  };
}

export interface AnthropicErrorBody {
  type: 'error';
  error: { type: string; message: string; code?: string; [figure: string]: unknown };
  request_id?: string;
}

export function renderError(
  surface: ErrorSurface,
  error: AppException,
  requestId: string | undefined,
): ApiFailure | OpenAIErrorBody | AnthropicErrorBody | OAuthErrorBody {
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
    case 'anthropic': {
      const body = anthropicError(anthropicStatus(error), error.message, requestId);
      // An error with figures (budget_exhausted, spend_limit_exceeded, a rate limit's wait) carries the gateway's
      // code and the figures beside Anthropic's type and message, so a client can tell which limit refused it.
      if (extra) Object.assign(body.error, { code: error.code.toLowerCase(), ...extra });
      return body;
    }
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

/** What an error answer needs of a request: Express's, or the gateway's plain node one. */
export interface ErroredRequest {
  method?: string;
  path: string;
  requestId?: string;
}

/** Writes an AppException in the shape of the request's surface (node's response API: Express's or a plain one). */
export function sendError(req: ErroredRequest, res: ServerResponse, error: AppException): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  const surface = errorSurface(req.path);
  for (const [name, value] of Object.entries(error.options.headers ?? {})) res.setHeader(name, value);
  if (surface === 'oauth') res.setHeader('Cache-Control', 'no-store');
  writeJson(
    res,
    surface === 'anthropic' ? anthropicStatus(error) : error.status,
    renderError(surface, error, req.requestId),
  );
}

/** A JSON answer, as Express's res.json writes it, on node's response API. */
export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
