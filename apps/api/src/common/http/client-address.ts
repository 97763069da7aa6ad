import type { Request } from 'express';

/** The caller's address for rate limits: Express's req.ip (X-Forwarded-For only with TRUST_PROXY). */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
