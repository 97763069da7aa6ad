// The gateway (/v1) as the dashboard calls it: with an API key as the bearer credential, never the session
// cookie (the gateway does not read cookies, and credentials: 'omit' keeps them from being sent at all).
// Failures become the same ApiError as everywhere else, read from OpenAI's error shape.
import { env } from '../config/env';
import { ApiError, readBody, toApiError } from './http';

export interface GatewayRequest {
  /** The API key (sy-…). */
  apiKey: string;
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

/** The gateway's public address, for snippets people copy. */
export function gatewayBaseUrl(): string {
  return `${window.location.origin}${env.apiBasePath}/v1`;
}

/** Calls `/v1{path}`; answers the Response when it is a success (the caller reads it), throws ApiError otherwise. */
export async function gatewayFetch(path: string, request: GatewayRequest): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${request.apiKey}` };
  let body: BodyInit | undefined;
  if (request.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(request.json);
  } else if (request.form) {
    body = request.form;
  }
  let response: Response;
  try {
    response = await fetch(`${env.apiBasePath}/v1${path}`, {
      method: request.method ?? (body === undefined ? 'GET' : 'POST'),
      headers,
      body,
      credentials: 'omit',
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
