import type { ServerResponse } from 'node:http';
import type { ApiFailure, OAuthErrorBody, OpenAIErrorBody } from '@switchyard/shared-dto';
import { AppException } from './app.exception';

/**
 * Which error shape a path answers in (docs/decisions.md#answers-and-errors): the envelope, RFC 6749's, the gateway's
 * own (OpenAI's), or the shape a gateway face registered for its paths (registerErrorShape).
 */
export type ErrorSurface = 'openai' | 'oauth' | 'envelope' | (string & {});

/** How a face of the gateway answers the errors of its paths (its own shape, its own statuses). */
export interface ErrorShape {
  /** Whether a path (in lower case) is the face's. */
  owns(lowerPath: string): boolean;
  status(error: AppException): number;
  body(error: AppException, requestId: string | undefined): unknown;
}

/** The faces' error shapes, by name (modules/proxy registers them at start; a name registered again is replaced). */
const shapes = new Map<string, ErrorShape>();

export function registerErrorShape(name: string, shape: ErrorShape): void {
  shapes.set(name, shape);
}

const OPENAI_PREFIXES = ['/v1/', '/apikey/v1/', '/oauth2/v1/', '/dashboard/v1/'];
const OAUTH_PROTOCOL_PATHS = ['/oauth2/token', '/oauth2/revoke', '/oauth2/introspect', '/oauth2/register'];

export function errorSurface(path: string): ErrorSurface {
  const lower = path.toLowerCase();
  for (const [name, shape] of shapes) if (shape.owns(lower)) return name;
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

export function renderError(surface: ErrorSurface, error: AppException, requestId: string | undefined): unknown {
  const { details, extra } = error.options;
  const registered = shapes.get(surface);
  if (registered) return registered.body(error, requestId);
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
      } satisfies OpenAIErrorBody;
    case 'oauth':
      return { error: error.code.toLowerCase(), error_description: error.message } satisfies OAuthErrorBody;
    default:
      return {
        success: false,
        message: error.message,
        error: { code: error.code, ...(details ? { details } : {}), ...extra },
        timestamp: new Date().toISOString(),
        ...(requestId ? { requestId } : {}),
      } satisfies ApiFailure;
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
  writeJson(res, shapes.get(surface)?.status(error) ?? error.status, renderError(surface, error, req.requestId));
}

/** A JSON answer, as Express's res.json writes it, on node's response API. */
export function writeJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text);
}
