import { CSRF_COOKIE, CSRF_HEADER, REQUEST_ID_HEADER } from '@switchyard/shared-dto';
import type { ApiErrorDetail, ApiFailure, ApiSuccess } from '@switchyard/shared-dto';

import { env } from '../config/env';

/** Every failed call ends up as one of these: error envelopes, other error bodies and network failures alike. */
export class ApiError extends Error {
  /** HTTP status; 0 when the server could not be reached. */
  readonly status: number;
  /** Upper snake case code from the error envelope, e.g. INVALID_CREDENTIALS. */
  readonly code: string;
  readonly details: ApiErrorDetail[];
  /** Seconds from the Retry-After header (429, 503), when the server sent one. */
  readonly retryAfterSeconds: number | null;
  readonly requestId: string | null;

  constructor(init: {
    status: number;
    code: string;
    message: string;
    details?: ApiErrorDetail[];
    retryAfterSeconds?: number | null;
    requestId?: string | null;
  }) {
    super(init.message);
    this.name = 'ApiError';
    this.status = init.status;
    this.code = init.code;
    this.details = init.details ?? [];
    this.retryAfterSeconds = init.retryAfterSeconds ?? null;
    this.requestId = init.requestId ?? null;
  }

  /** Messages for one input field, from the validation details. */
  fieldMessages(field: string): string[] {
    return this.details.filter((detail) => detail.field === field).flatMap((detail) => detail.messages);
  }
}

export function isApiError(error: unknown): error is ApiError {
  return error instanceof ApiError;
}

type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface RequestOptions {
  signal?: AbortSignal;
  headers?: Record<string, string>;
}

export function readCookie(name: string): string | null {
  for (const part of document.cookie.split(';')) {
    const separator = part.indexOf('=');
    if (separator === -1) continue;
    if (part.slice(0, separator).trim() === name) {
      const value = part.slice(separator + 1).trim();
      try {
        return decodeURIComponent(value);
      } catch {
        return value;
      }
    }
  }
  return null;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isFailureEnvelope(body: unknown): body is ApiFailure {
  return isRecord(body) && body.success === false && isRecord(body.error) && typeof body.error.code === 'string';
}

function isSuccessEnvelope(body: unknown): body is ApiSuccess<unknown> {
  return isRecord(body) && body.success === true && 'data' in body;
}

function parseRetryAfter(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds);
  const date = Date.parse(header);
  return Number.isNaN(date) ? null : Math.max(0, Math.ceil((date - Date.now()) / 1000));
}

function fallbackMessage(status: number): string {
  if (status === 401) return 'You are not signed in.';
  if (status === 403) return 'You are not allowed to do that.';
  if (status === 404) return 'Not found.';
  if (status === 429) return 'Too many requests. Please wait a moment and try again.';
  if (status >= 500) return 'The server had a problem. Please try again.';
  return `The request failed (HTTP ${status}).`;
}

/** Builds an ApiError from any error body: our envelope first, then the OpenAI and OAuth shapes, then the status. */
export function toApiError(response: Response, body: unknown): ApiError {
  const base = {
    status: response.status,
    retryAfterSeconds: parseRetryAfter(response.headers.get('retry-after')),
    requestId: response.headers.get(REQUEST_ID_HEADER),
  };
  if (isFailureEnvelope(body)) {
    return new ApiError({
      ...base,
      code: body.error.code,
      message: body.message || fallbackMessage(response.status),
      details: Array.isArray(body.error.details) ? body.error.details : [],
      requestId: body.requestId ?? base.requestId,
    });
  }
  // OpenAI shape: { error: { message, type, code } }
  if (isRecord(body) && isRecord(body.error) && typeof body.error.message === 'string') {
    const code = typeof body.error.code === 'string' ? body.error.code : String(body.error.type ?? 'ERROR');
    return new ApiError({ ...base, code, message: body.error.message });
  }
  // RFC 6749 shape: { error, error_description }
  if (isRecord(body) && typeof body.error === 'string') {
    const description = typeof body.error_description === 'string' ? body.error_description : body.error;
    return new ApiError({ ...base, code: body.error, message: description });
  }
  return new ApiError({ ...base, code: `HTTP_${response.status}`, message: fallbackMessage(response.status) });
}

export async function readBody(response: Response): Promise<unknown> {
  if (response.status === 204 || response.status === 205) return undefined;
  const contentType = response.headers.get('content-type') ?? '';
  if (!contentType.includes('json')) return undefined;
  try {
    return (await response.json()) as unknown;
  } catch {
    return undefined;
  }
}

async function request<T>(method: Method, path: string, body: unknown, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') {
    // Double-submit CSRF: the API refuses cookie-authenticated writes whose header does not match the cookie.
    const csrf = readCookie(CSRF_COOKIE);
    if (csrf) headers[CSRF_HEADER] = csrf;
  }

  let response: Response;
  try {
    response = await fetch(`${env.apiBasePath}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      credentials: 'same-origin',
      signal: options.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError({
      status: 0,
      code: 'NETWORK_ERROR',
      message: 'Could not reach the server. Check your connection and try again.',
    });
  }

  const payload = await readBody(response);
  if (!response.ok || isFailureEnvelope(payload)) throw toApiError(response, payload);
  return (isSuccessEnvelope(payload) ? payload.data : payload) as T;
}

/** The one HTTP client: same-origin cookies, envelope unwrapped, errors as ApiError. No toasts, no redirects. */
export const http = {
  get: <T>(path: string, options?: RequestOptions) => request<T>('GET', path, undefined, options),
  post: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('POST', path, body, options),
  put: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PUT', path, body, options),
  patch: <T>(path: string, body?: unknown, options?: RequestOptions) => request<T>('PATCH', path, body, options),
  delete: <T>(path: string, options?: RequestOptions) => request<T>('DELETE', path, undefined, options),
};
