import type { PrefixKind } from './credentials/caller';
import type { GatewayPrefix, GatewayRoute } from './call/route';
import { FACES } from './gateway-faces';

export type { BodyKind, GatewayRoute } from './call/route';
export type { RouteMethod } from './catalog/actions';
export type { PrefixKind };
export { DASHBOARD_GATEWAY_PREFIX } from './call/route';

/**
 * The allowlist (docs/decisions.md#the-allowlist): every face's (method, path) pairs under its prefixes, and nothing
 * else. Anything else under a gateway prefix is 403 "Endpoint not allowed" and never forwarded.
 */
export const GATEWAY_ROUTES: GatewayRoute[] = FACES.flatMap(({ definition }) => definition.routes);

/** The prefixes a route is served under: its own, else its face's. */
const prefixesOf = (route: GatewayRoute): GatewayPrefix[] =>
  route.prefixes ?? FACES.find(({ definition }) => definition.name === route.face)!.definition.prefixes;

/** Every prefix a face answers under (a prefix several faces share is listed once). */
export const GATEWAY_PREFIXES: GatewayPrefix[] = [
  ...new Map(GATEWAY_ROUTES.flatMap(prefixesOf).map((entry) => [entry.prefix, entry])).values(),
];

export interface MatchedRoute {
  route: GatewayRoute;
  prefix: PrefixKind;
  params: Record<string, string>;
}

const PARAM = /^[A-Za-z0-9][A-Za-z0-9._:@+-]{0,199}$/;

/** A template segment: a literal, a parameter, or a parameter before a literal suffix (`{model}:generateContent`). */
interface Segment {
  literal: string | null;
  param: string | null;
  suffix: string;
}

function compileSegment(part: string): Segment {
  const open = part.indexOf('{');
  if (open !== 0) return { literal: part, param: null, suffix: '' };
  const close = part.indexOf('}');
  return { literal: null, param: part.slice(1, close), suffix: part.slice(close + 1) };
}

/** Each prefix's routes: those of every face served under it. */
const compiled = new Map(
  GATEWAY_PREFIXES.map((entry) => [
    entry.prefix,
    GATEWAY_ROUTES.filter((route) => prefixesOf(route).some((own) => own.prefix === entry.prefix)).map((route) => ({
      route,
      segments: route.template.split('/').slice(1).map(compileSegment),
    })),
  ]),
);

/** Which gateway prefix a raw URL path falls under, in any letter case (so case variants are refused, not 404). */
export function gatewayPrefixOf(rawPath: string): string | null {
  const lower = rawPath.toLowerCase();
  for (const { prefix, under } of GATEWAY_PREFIXES)
    if ((!under && lower === prefix) || lower.startsWith(`${prefix}/`)) return prefix;
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
  for (const { route, segments: template } of compiled.get(entry.prefix)!) {
    if (route.method !== httpMethod || template.length !== segments.length) continue;
    const params: Record<string, string> = {};
    const ok = template.every((part, i) => {
      if (part.param === null) return part.literal === segments[i];
      const segment = segments[i];
      if (!segment.endsWith(part.suffix)) return false;
      const value = segment.slice(0, segment.length - part.suffix.length);
      if (!PARAM.test(value)) return false;
      params[part.param] = value;
      return true;
    });
    if (ok) return { route, prefix: entry.kind, params };
  }
  return null;
}
