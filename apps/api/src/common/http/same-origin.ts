import type { IncomingMessage } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import { CommonErrorCode, CommonException } from '../errors/app.exception';
import { sendError } from '../errors/error-render';

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * The origins of the service's own pages: PUBLIC_URL's, and when PUBLIC_URL is a loopback address, every
 * loopback name on its port and on the port the request arrived at (a local install is reached as localhost
 * or 127.0.0.1 alike, and tests listen on a random port).
 */
export function ownOrigins(publicUrl: string, localPort: number | undefined): Set<string> {
  const url = new URL(publicUrl);
  const origins = new Set([url.origin]);
  if (!LOOPBACK_HOSTS.has(url.hostname)) return origins;
  const ports = new Set([
    url.port || (url.protocol === 'https:' ? '443' : '80'),
    ...(localPort ? [String(localPort)] : []),
  ]);
  for (const host of LOOPBACK_HOSTS)
    for (const port of ports) origins.add(new URL(`${url.protocol}//${host}:${port}`).origin);
  return origins;
}

/**
 * The origin the user is on, for links and redirects back into the dashboard (a checkout's return, docs/payments.md):
 * the request's `Origin`, or else its `Host` with PUBLIC_URL's scheme, when that is one of the service's own
 * origins (ownOrigins: a local install reached as localhost or 127.0.0.1 stays on the name it was opened with, so
 * its cookies come back with it); anything else (another site's Origin, a forged Host) falls back to PUBLIC_URL's
 * origin, so no header can send a user elsewhere.
 */
export function requestOrigin(req: IncomingMessage, publicUrl: string): string {
  const own = ownOrigins(publicUrl, req.socket.localPort);
  const origin = req.headers.origin;
  if (typeof origin === 'string' && own.has(origin)) return origin;
  const host = req.headers.host;
  if (typeof host === 'string' && /^[A-Za-z0-9.:[\]-]+$/.test(host)) {
    const candidate = `${new URL(publicUrl).protocol}//${host.toLowerCase()}`;
    if (own.has(candidate)) return candidate;
  }
  return new URL(publicUrl).origin;
}

/**
 * Why a browser request must be refused as cross-site (login CSRF, a forged cookie write), or null: its
 * `Sec-Fetch-Site` says cross-site, or it carries an `Origin` (including the opaque `null`) that is not one of
 * the service's own. A request with neither header is not from a browser's cross-site form or fetch (non-browser
 * clients send neither) and passes.
 */
export function crossSiteProblem(req: IncomingMessage, publicUrl: string): string | null {
  const site = req.headers['sec-fetch-site'];
  if (typeof site === 'string' && site.trim().toLowerCase() === 'cross-site')
    return 'Requests from other sites are not accepted here (Sec-Fetch-Site: cross-site)';
  const origin = req.headers.origin;
  if (origin === undefined) return null;
  if (ownOrigins(publicUrl, req.socket.localPort).has(origin)) return null;
  return 'Requests from other sites are not accepted here: the Origin is not this service’s';
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * The Origin rule (docs/accounts.md), ahead of the body parsers so that it answers first: writes a browser can be
 * made to send from another site (sign-in, registration, a cookie-carried session's write: any /api write without
 * an Authorization header) must come from the service's own pages. A form post from another site would otherwise
 * sign the victim in to the attacker's account (login CSRF). Bearer calls cannot be forged by a page (CORS is
 * closed on /api) and pass; so do /oauth2/token & co, which are not under /api.
 */
export function refuseCrossSiteWrites(publicUrl: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (SAFE_METHODS.has(req.method) || req.headers.authorization !== undefined || !req.path.startsWith('/api/'))
      return next();
    const problem = crossSiteProblem(req, publicUrl);
    if (!problem) return next();
    sendError(req, res, new CommonException(CommonErrorCode.ORIGIN_FORBIDDEN, problem));
  };
}
