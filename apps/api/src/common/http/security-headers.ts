import type { IncomingMessage, ServerResponse } from 'node:http';

/** Headers every answer carries. Framing is refused so the consent page cannot be clickjacked. */
export function securityHeaders(_req: IncomingMessage, res: ServerResponse, next: () => void): void {
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Referrer-Policy', 'strict-origin-when-cross-origin');
  res.setHeader('X-Frame-Options', 'DENY');
  res.setHeader('Content-Security-Policy', "frame-ancestors 'none'");
  res.removeHeader('X-Powered-By');
  next();
}
