// The gateway as the dashboard calls it (docs/dashboard.md, "One playground credential"): by default on the
// signed-in session, under /dashboard/v1, where the server calls as the user's key named "Dashboard" (the session
// cookie, and the CSRF header on writes, as every dashboard write); or with an API key the user pasted, as the
// bearer credential on /v1, where credentials: 'omit' keeps the cookie from being sent at all. Failures become
// the same ApiError as everywhere else, read from OpenAI's error shape.
import { CSRF_COOKIE, CSRF_HEADER } from '@switchyard/shared-dto';

import { env } from '../config/env';
import { ApiError, readBody, readCookie, toApiError } from './http';

/** null: the signed-in session (the Dashboard key); a string: an API key the user pasted (sy-…). */
export type GatewayCredential = string | null;

/** The dashboard's session gateway (the server's DASHBOARD_GATEWAY_PREFIX). */
const SESSION_GATEWAY_PATH = '/dashboard/v1';

export interface GatewayRequest {
  apiKey: GatewayCredential;
  method?: 'GET' | 'POST';
  /** A JSON body, sent as application/json. */
  json?: unknown;
  /** A multipart body (the browser sets its content type). */
  form?: FormData;
  signal?: AbortSignal;
}

/**
 * The key as the API keys page shows it (the first 12 characters, an ellipsis, the last 4): safe on screen and
 * as part of a query key, where the full key must not go.
 */
export function maskKey(key: string): string {
  return key.length <= 16 ? `${key.slice(0, 4)}…` : `${key.slice(0, 12)}…${key.slice(-4)}`;
}

/** What a query key may hold of a credential: the masked key, or "session". */
export function credentialLabel(credential: GatewayCredential): string {
  return credential === null ? 'session' : maskKey(credential);
}

/** The gateway's public address, for snippets people copy. */
export function gatewayBaseUrl(): string {
  return `${window.location.origin}${env.apiBasePath}/v1`;
}

/** Calls `/v1{path}`; answers the Response when it is a success (the caller reads it), throws ApiError otherwise. */
export async function gatewayFetch(path: string, request: GatewayRequest): Promise<Response> {
  const session = request.apiKey === null;
  const headers: Record<string, string> = {};
  if (request.apiKey !== null) headers.authorization = `Bearer ${request.apiKey}`;
  let body: BodyInit | undefined;
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.json);
  } else if (request.form) {
    body = request.form;
  }
  const method = request.method ?? (body === undefined ? 'GET' : 'POST');
  if (session && method !== 'GET') {
    const csrf = readCookie(CSRF_COOKIE);
    if (csrf) headers[CSRF_HEADER] = csrf;
  }
  let response: Response;
  try {
    response = await fetch(`${env.apiBasePath}${session ? SESSION_GATEWAY_PATH : '/v1'}${path}`, {
      method,
      headers,
      body,
      credentials: session ? 'same-origin' : 'omit',
      signal: request.signal,
    });
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error;
    throw new ApiError({
      status: 0,
      code: 'NETWORK_ERROR',
      message: 'Could not reach the gateway. Check your connection and try again.',
    });
  }
  if (!response.ok) throw toApiError(response, await readBody(response));
  return response;
}

/** A JSON answer of the gateway. */
export async function gatewayJson<T>(path: string, request: GatewayRequest): Promise<T> {
  const response = await gatewayFetch(path, request);
  return (await response.json()) as T;
}
