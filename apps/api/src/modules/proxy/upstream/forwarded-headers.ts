import type { IncomingHttpHeaders } from 'node:http';

/**
 * The one allowlist of the caller's request headers that may reach a provider, per way a call goes upstream.
 * Every other header the caller sent stays at the gateway: its credential (authorization, cookie, x-api-key,
 * api-key, x-service-oauth-client-id), anything that would act on the shared provider account
 * (openai-organization, openai-project, openai-beta), anything that claims where the call came from
 * (x-forwarded-*, forwarded, x-real-ip, host, origin), hop-by-hop headers (connection, te, upgrade, expect,
 * proxy-authorization) and every custom header. The gateway sets what the provider needs itself: the provider's
 * key and catalog headers, accept, content-type and content-length. docs/gateway.md, "Headers sent upstream".
 */
export type UpstreamPath = 'json' | 'multipart' | 'binary';

export const FORWARDED_REQUEST_HEADERS: Readonly<Record<UpstreamPath, readonly string[]>> = {
  // JSON bodies (every provider type): nothing of the caller's; the body is the whole request.
  json: [],
  // Multipart uploads: re-encoded by the gateway, with its own content-type and boundary.
  multipart: [],
  // Binary downloads (GET /videos/{id}/content): what lets a player resume, seek or revalidate.
  binary: ['accept', 'range', 'if-range', 'if-none-match', 'if-modified-since'],
};

/** A longer value is dropped: no allowed header needs one, and a provider need not parse it. */
const MAX_VALUE_LENGTH = 256;

/** The caller's headers that `path` forwards, lower-case names, single values. */
export function forwardedRequestHeaders(path: UpstreamPath, incoming: IncomingHttpHeaders): Record<string, string> {
  const forwarded: Record<string, string> = {};
  for (const name of FORWARDED_REQUEST_HEADERS[path]) {
    const value = incoming[name];
    if (typeof value === 'string' && value.length <= MAX_VALUE_LENGTH) forwarded[name] = value;
  }
  return forwarded;
}

/**
 * Provider response headers passed back to the caller; everything else (cookies, server, rate-limit internals,
 * the provider's own request ids) stays. `relayed`: answers the gateway relays (speech audio); `binary`: downloads
 * passed through, with what a range or conditional request answers.
 */
export const PASSED_RESPONSE_HEADERS = {
  relayed: ['content-type', 'content-disposition', 'content-length'],
  binary: [
    'content-type',
    'content-disposition',
    'content-length',
    'content-range',
    'accept-ranges',
    'etag',
    'last-modified',
  ],
} as const satisfies Record<string, readonly string[]>;
