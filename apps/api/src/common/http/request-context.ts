import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import { REQUEST_ID_HEADER } from '@switchyard/shared-dto';

declare module 'express-serve-static-core' {
  interface Request {
    requestId?: string;
  }
}

const CALLER_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * What the access line reads of a request: Express's, or the gateway's plain node one (modules/proxy/front-door.ts).
 * Deliberately no AsyncLocalStorage: on Node 20 one active store slows every promise in the process, which
 * measured 0.1 ms of CPU per gateway call (about 17%; docs/benchmarks.md). Lines about a request pass its id
 * explicitly (the access line, the error filter, the gateway).
 */
export type ContextRequest = IncomingMessage & {
  path: string;
  requestId?: string;
  /** Set by the Nest guards for sessions and OAuth tokens. */
  principal?: { kind: string };
  /** Set by the gateway (notePrincipal): the kind of credential that authenticated the call. */
  principalKind?: string;
};

/** Notes, for the request's access log line, what kind of credential authenticated it (never the credential). */
export function notePrincipal(req: IncomingMessage, kind: string): void {
  (req as ContextRequest).principalKind = kind;
}

/**
 * Request ids: 96 random bits each, drawn from a pooled buffer (one call into the random generator per 512 ids).
 * They are correlation handles, never keys: money is keyed by each call's own id (docs/budgets.md), yet an id that
 * another caller could predict would still let them muddle a victim's logs, so they are not a counter.
 */
const ID_BYTES = 12;
let pool = Buffer.alloc(0);
let offset = 0;
export function newRequestId(): string {
  if (offset + ID_BYTES > pool.length) {
    pool = randomBytes(ID_BYTES * 512);
    offset = 0;
  }
  offset += ID_BYTES;
  return `req_${pool.toString('hex', offset - ID_BYTES, offset)}`;
}

/**
 * Gives every request an id (the caller's X-Request-Id when it is sane, else a new one), echoes it in the
 * response and logs one access line, with the id, when it ends. Only the path is logged: query strings can carry
 * secrets (a revoke token, a checkout session id), and bodies and headers are never logged.
 */
export function requestContext(logger = new Logger('HTTP'), logRequests = true) {
  return (req: ContextRequest, res: ServerResponse, next: () => void) => {
    const given = req.headers[REQUEST_ID_HEADER] as string | undefined;
    const requestId = given && CALLER_ID.test(given) ? given : newRequestId();
    req.requestId = requestId;
    res.setHeader(REQUEST_ID_HEADER, requestId);
    if (logRequests) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
        // Session and OAuth principals are attached by the Nest guards; the gateway notes its caller's kind.
        const principal = req.principalKind ?? req.principal?.kind;
        logger.log({
          msg: `${req.method} ${req.path} ${res.statusCode} ${durationMs.toFixed(1)}ms`,
          requestId,
          method: req.method,
          path: req.path,
          status: res.statusCode,
          durationMs,
          ...(principal ? { principal } : {}),
        });
      });
    }
    next();
  };
}
