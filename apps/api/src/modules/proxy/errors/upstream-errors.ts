import type { IncomingHttpHeaders } from 'node:http';
import { AppException } from '../../../common/errors/app.exception';
import type { CatalogModel } from '../catalog/catalog.types';
import { retryAfterMs } from './retry-after';
import { GatewayErrorCode, GatewayException } from './gateway.exception';

/**
 * A provider's error answer as the caller's error, in one place for every provider kind: never passes on the
 * provider's URL or key, nor blames the caller for the gateway's own credentials.
 */
export function mapUpstreamStatus(
  status: number,
  message: string,
  code: string | null,
  model: CatalogModel,
  headers?: IncomingHttpHeaders,
): AppException {
  const clean = sanitize(message, model.provider.apiKey);
  if (status === 401 || status === 403)
    return new GatewayException(
      GatewayErrorCode.UPSTREAM_ERROR,
      'The model provider refused the gateway’s credentials; tell the operator of this Switchyard',
    );
  if (status === 429)
    return new GatewayException(
      GatewayErrorCode.UPSTREAM_RATE_LIMITED,
      clean || 'The model provider is rate limiting; retry later',
      { headers: retryAfterHeader(headers) },
    );
  if (status >= 400 && status < 500) {
    const safeCode = code && /^[a-z0-9_.-]{1,64}$/i.test(code) ? code.toUpperCase() : 'INVALID_REQUEST';
    return new AppException(
      safeCode,
      status === 404 && model.provider.type !== 'demo' ? 400 : status,
      clean || 'The model provider rejected the request',
    );
  }
  return new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, `The model provider failed (status ${status})`);
}

/** An error answer in OpenAI's shape (`{error: {message, code | type}}`, or `{error: "…"}`), mapped. */
export function openAiUpstreamError(
  status: number,
  text: string,
  model: CatalogModel,
  headers?: IncomingHttpHeaders,
): AppException {
  let message = '';
  let code: string | null = null;
  try {
    const parsed = JSON.parse(text) as { error?: { message?: unknown; code?: unknown; type?: unknown } | string };
    if (typeof parsed.error === 'object' && parsed.error) {
      message = typeof parsed.error.message === 'string' ? parsed.error.message : '';
      code =
        typeof parsed.error.code === 'string'
          ? parsed.error.code
          : typeof parsed.error.type === 'string'
            ? parsed.error.type
            : null;
    } else if (typeof parsed.error === 'string') message = parsed.error;
  } catch {
    // not JSON: keep the generic message
  }
  return mapUpstreamStatus(status, message, code, model, headers);
}

/**
 * A provider's `retry-after-ms` or `Retry-After` (seconds or an HTTP date) as the `Retry-After` of its 429: the
 * breaker's cooldown for the deployment (routing/breaker.ts outcomeOf), and the caller's when it is the answer.
 */
function retryAfterHeader(headers: IncomingHttpHeaders | undefined): Record<string, string> {
  const ms = retryAfterMs(headers, Date.now());
  return ms === null ? {} : { 'Retry-After': String(Math.max(1, Math.ceil(ms / 1000))) };
}

const UPSTREAM_FAILURES = new Set<string>([
  GatewayErrorCode.UPSTREAM_ERROR,
  GatewayErrorCode.UPSTREAM_TIMEOUT,
  GatewayErrorCode.UPSTREAM_RATE_LIMITED,
]);

/** A provider's own failure — unreachable, timed out, 5xx, rate limited — not the caller's request. */
export function worthFallingBack(error: unknown): boolean {
  if (!(error instanceof AppException)) return false;
  return UPSTREAM_FAILURES.has(error.code);
}

/** The translators' cleaning (URLs, keys in query strings), plus key-like tokens and the provider's own key. */
function sanitize(message: string, apiKey: string | null): string {
  let clean = sanitizeUpstreamMessage(message).replace(/\b(sk|rk|pk|sy|key)[-_][A-Za-z0-9_*-]{6,}/g, '[redacted]');
  if (apiKey && apiKey.length >= 6) clean = clean.split(apiKey).join('[redacted]');
  return clean;
}

/**
 * Upstream error messages go to our clients: drop anything URL-like (a Google 404 page names the request path, and
 * a key could ride in a `key=` query parameter) and cap the length.
 */
export function sanitizeUpstreamMessage(message: string): string {
  const cleaned = message
    .replace(/\b(?:https?|wss?):\/\/[^\s"'<>]+/gi, '[url]')
    .replace(/([?&](?:key|api_key|apikey|access_token)=)[^&\s"'<>]+/gi, '$1[redacted]')
    .replace(/\s+/g, ' ')
    .trim();
  return cleaned.length > 1000 ? `${cleaned.slice(0, 1000)}…` : cleaned;
}
