import type { IncomingMessage, Server, ServerResponse } from 'node:http';

/**
 * Headers every answer carries. Framing is refused so the consent page cannot be clickjacked. The names are
 * lower-case (as HTTP/2 sends every name; HTTP/1.1 names are case-insensitive): node's setHeader lower-cases each
 * name it is given, and a name already in lower case skips that copy, which measured at about half of these four
 * calls' cost, paid on every gateway call.
 */
export function setSecurityHeaders(res: ServerResponse): void {
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'strict-origin-when-cross-origin');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('content-security-policy', "frame-ancestors 'none'");
}

/** The security headers as Express middleware, which also drops the X-Powered-By header Express sets. */
export function securityHeaders(_req: IncomingMessage, res: ServerResponse, next: () => void): void {
  setSecurityHeaders(res);
  res.removeHeader('X-Powered-By');
  next();
}

/** HSTS for an https PUBLIC_URL (or SPACES_ORIGIN): browsers then refuse plain http to the host for a year. */
export const STRICT_TRANSPORT_SECURITY = 'max-age=31536000; includeSubDomains';

/**
 * The dashboard's Content-Security-Policy: its own built scripts and styles only (Vite emits no inline script),
 * requests to its own origin, frames only of hosted space apps (their origin is another one), never framed.
 * Images may be data:, blob: (the playground) or https: (a provider's image URL); audio blob: (text to speech).
 */
export function dashboardCsp(spacesOrigin: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data: blob: https:",
    "media-src 'self' data: blob:",
    "font-src 'self' data:",
    "connect-src 'self'",
    `frame-src ${spacesOrigin}`,
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/**
 * Adds HSTS to every answer of `server`, Express's and the gateway front door's alike: a listener that runs
 * before the others and only sets the header.
 */
export function addStrictTransport(server: Server): void {
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    res.setHeader('Strict-Transport-Security', STRICT_TRANSPORT_SECURITY);
  });
}
