import type { ModelMethod } from '@switchyard/shared-dto';

/** What a route does; the model's catalog `methods` must list it (docs/decisions.md#model-catalog). */
export type RouteMethod =
  | ModelMethod
  | 'list_models'
  | 'get_model'
  | 'video_retrieve'
  | 'video_content'
  | 'video_remix'
  | 'messages'
  | 'count_tokens';

export type BodyKind = 'none' | 'json' | 'multipart';

export interface GatewayRoute {
  method: 'GET' | 'POST';
  /** Segments after the prefix; `{id}` is a parameter. */
  template: string;
  action: RouteMethod;
  body: BodyKind;
  summary: string;
}

/**
 * The allowlist (docs/decisions.md#the-allowlist): the only (method, path) pairs the gateway serves. Anything else is
 * 403 "Endpoint not allowed" and never forwarded. `GET /chat/completions` (stored completions), `/files` and
 * `DELETE /models/{id}` are deliberately absent: the provider key is shared by every tenant.
 */
export const GATEWAY_ROUTES: GatewayRoute[] = [
  {
    method: 'GET',
    template: '/models',
    action: 'list_models',
    body: 'none',
    summary: 'List models (filters: type, capability, method, detailed)',
  },
  { method: 'GET', template: '/models/{id}', action: 'get_model', body: 'none', summary: 'One model' },
  {
    method: 'POST',
    template: '/chat/completions',
    action: 'chat_completions',
    body: 'json',
    summary: 'Chat completion (SSE with stream: true)',
  },
  {
    method: 'POST',
    template: '/messages',
    action: 'messages',
    body: 'json',
    summary: "Anthropic's Messages API, for any chat model (SSE with stream: true; docs/anthropic.md)",
  },
  {
    method: 'POST',
    template: '/messages/count_tokens',
    action: 'count_tokens',
    body: 'json',
    summary: 'Input tokens of a Messages request (free; docs/anthropic.md)',
  },
  { method: 'POST', template: '/completions', action: 'completions', body: 'json', summary: 'Legacy text completion' },
  { method: 'POST', template: '/responses', action: 'responses', body: 'json', summary: 'Responses API' },
  { method: 'POST', template: '/embeddings', action: 'embeddings', body: 'json', summary: 'Embeddings' },
  {
    method: 'POST',
    template: '/images/generations',
    action: 'image_generation',
    body: 'json',
    summary: 'Image generation',
  },
  {
    method: 'POST',
    template: '/images/edits',
    action: 'image_edit',
    body: 'multipart',
    summary: 'Image edit (multipart; repeated image fields, optional mask)',
  },
  {
    method: 'POST',
    template: '/images/variations',
    action: 'image_variation',
    body: 'multipart',
    summary: 'Image variation (multipart)',
  },
  {
    method: 'POST',
    template: '/audio/speech',
    action: 'audio_speech',
    body: 'json',
    summary: 'Text to speech (binary audio)',
  },
  {
    method: 'POST',
    template: '/audio/transcriptions',
    action: 'audio_transcription',
    body: 'multipart',
    summary: 'Transcription (multipart)',
  },
  {
    method: 'POST',
    template: '/videos',
    action: 'video_generation',
    body: 'json',
    summary: 'Start a video generation job',
  },
  { method: 'GET', template: '/videos/{id}', action: 'video_retrieve', body: 'none', summary: 'Video job status' },
  {
    method: 'GET',
    template: '/videos/{id}/content',
    action: 'video_content',
    body: 'none',
    summary: 'Video content (binary)',
  },
  { method: 'POST', template: '/videos/{id}/remix', action: 'video_remix', body: 'json', summary: 'Remix a video' },
];

export type PrefixKind = 'shared' | 'apikey' | 'oauth' | 'dashboard';

/** The dashboard's own gateway: the signed-in session (cookie) calls through the user's dashboard key. */
export const DASHBOARD_GATEWAY_PREFIX = '/dashboard/v1';

export const GATEWAY_PREFIXES: { prefix: string; kind: PrefixKind }[] = [
  { prefix: '/v1', kind: 'shared' },
  { prefix: '/apikey/v1', kind: 'apikey' },
  { prefix: '/oauth2/v1', kind: 'oauth' },
  { prefix: DASHBOARD_GATEWAY_PREFIX, kind: 'dashboard' },
];

export interface MatchedRoute {
  route: GatewayRoute;
  prefix: PrefixKind;
  params: Record<string, string>;
}

const PARAM = /^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,199}$/;
const compiled = GATEWAY_ROUTES.map((route) => ({ route, segments: route.template.split('/').slice(1) }));

/** Which gateway prefix a raw URL path falls under, in any letter case (so case variants are refused, not 404). */
export function gatewayPrefixOf(rawPath: string): string | null {
  const lower = rawPath.toLowerCase();
  for (const { prefix } of GATEWAY_PREFIXES) if (lower === prefix || lower.startsWith(`${prefix}/`)) return prefix;
  return null;
}

/**
 * Matches of routes without parameters, by method and raw path (a few dozen in practice; bounded): the same few
 * paths arrive on every call. Only matches are kept, never refusals, and a kept match is frozen.
 */
const staticMatches = new Map<string, MatchedRoute>();

export function matchGatewayRoute(httpMethod: string, rawPath: string): MatchedRoute | null {
  const key = `${httpMethod} ${rawPath}`;
  const known = staticMatches.get(key);
  if (known) return known;
  const match = matchUncached(httpMethod, rawPath);
  if (match && !match.route.template.includes('{')) {
    if (staticMatches.size >= 1000) staticMatches.clear();
    staticMatches.set(key, Object.freeze({ ...match, params: Object.freeze(match.params) }));
  }
  return match;
}

/**
 * Matches a raw request path (as sent, before any decoding) against the allowlist after one canonical
 * decoding. Refused: encoded slashes, backslashes or dots, dot segments, empty segments (double slashes),
 * double encoding, any letter-case variant, and any method not listed for the path.
 */
function matchUncached(httpMethod: string, rawPath: string): MatchedRoute | null {
  const entry = GATEWAY_PREFIXES.find(({ prefix }) => rawPath.startsWith(`${prefix}/`));
  if (!entry) return null;
  const rest = rawPath.slice(entry.prefix.length + 1);
  if (/%(2f|5c|2e|00)/i.test(rest) || rest.includes('\\')) return null;
  const rawSegments = rest.split('/');
  const segments: string[] = [];
  for (const raw of rawSegments) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return null;
    }
    if (segment === '' || segment === '.' || segment === '..' || segment.includes('%') || segment.includes('/'))
      return null;
    segments.push(segment);
  }
  for (const { route, segments: template } of compiled) {
    if (route.method !== httpMethod || template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const ok = template.every((part, i) => {
      if (part.startsWith('{')) {
        if (!PARAM.test(segments[i])) return false;
        params[part.slice(1, -1)] = segments[i];
        return true;
      }
      return part === segments[i];
    });
    if (ok) return { route, prefix: entry.kind, params };
  }
  return null;
}
