import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';

/**
 * CORS open to every origin (docs/oauth.md#endpoints: the resource APIs and the token endpoint), for bearer
 * credentials only: no cookies are ever allowed cross-origin. Answers a preflight itself; returns whether it did.
 * A request without an Origin header is not a cross-origin one (a server-side SDK, curl): it gets no CORS headers.
 */
export function applyOpenCors(req: IncomingMessage, res: ServerResponse, methods: string, exposed?: string): boolean {
  if (req.headers.origin === undefined && req.method !== 'OPTIONS') return false;
  res.setHeader('Access-Control-Allow-Origin', '*');
  if (exposed) res.setHeader('Access-Control-Expose-Headers', exposed);
  if (req.method !== 'OPTIONS') return false;
  res.setHeader('Access-Control-Allow-Methods', methods);
  res.setHeader(
    'Access-Control-Allow-Headers',
    req.headers['access-control-request-headers'] ?? 'authorization, content-type',
  );
  res.setHeader('Access-Control-Max-Age', '600');
  res.statusCode = 204;
  res.end();
  return true;
}

/**
 * The OAuth endpoints a browser app calls from its own origin (the authorize endpoint is a navigation, not CORS),
 * and the two management routes an app's token may read (its user's budget, what is left of its caps: the SDK's
 * balance()). Bearer credentials only: with `*`, a browser never sends cookies along.
 */
const OPEN_OAUTH_PATHS = new Set([
  '/api/v1/usage/me/summary',
  '/api/v1/oauth2/consents/current',
  '/oauth2/token',
  '/oauth2/revoke',
  '/oauth2/userinfo',
  '/oauth2/introspect',
  '/oauth2/register',
  '/oauth2/jwks',
  '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration',
]);

export function oauthCors(req: Request, res: Response, next: NextFunction): void {
  const path = req.path.replace(/\/+$/, '') || '/';
  if (OPEN_OAUTH_PATHS.has(path) && applyOpenCors(req, res, 'GET, POST, OPTIONS', 'www-authenticate')) return;
  next();
}
