import { randomBytes } from 'node:crypto';
import type { NextFunction, Request, Response } from 'express';
import { Logger } from '@nestjs/common';
import { REQUEST_ID_HEADER } from '@switchyard/shared-dto';

declare module 'express-serve-static-core' {
  interface Request {
    requestId?: string;
  }
}

const CALLER_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/**
 * What the access line knows about the request being handled. Deliberately not an AsyncLocalStorage: on Node 20
 * one active store slows every promise in the process, which measured 0.1 ms of CPU per gateway call (about 17%;
 * docs/benchmarks.md). Lines about a request pass its id explicitly (the access line, the error filter, the
 * gateway).
 */
export interface RequestStore {
  requestId: string;
  /** What kind of credential authenticated the call, once one did: session, oauth, api_key, internal. */
  principal?: string;
}

/** Notes, for the request's access log line, what kind of credential authenticated it (never the credential). */
export function notePrincipal(req: object, kind: string): void {
  const store = storeOf.get(req);
  if (store) store.principal = kind;
}

const storeOf = new WeakMap<object, RequestStore>();

/**
 * Request ids: a random per-process prefix and a counter, unique across instances and restarts without a call
 * into the random generator per request (ids are correlation handles, not secrets).
 */
let prefix = randomBytes(8).toString('hex');
let counter = 0;
export function newRequestId(): string {
  counter += 1;
  if (counter > 0xffffffff) {
    prefix = randomBytes(8).toString('hex');
    counter = 1;
  }
  return `req_${prefix}${counter.toString(16).padStart(8, '0')}`;
}

/**
 * Gives every request an id (the caller's X-Request-Id when it is sane, else a new one), echoes it in the
 * response and logs one access line, with the id, when it ends. Only the path is logged: query strings can carry
 * secrets (a revoke token, a checkout session id), and bodies and headers are never logged.
 */
export function requestContext(logger = new Logger('HTTP'), logRequests = true) {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.headers[REQUEST_ID_HEADER] as string | undefined;
    req.requestId = given && CALLER_ID.test(given) ? given : newRequestId();
    res.setHeader(REQUEST_ID_HEADER, req.requestId);
    const store: RequestStore = { requestId: req.requestId };
    storeOf.set(req, store);
    if (logRequests) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const durationMs = Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
        // Session and OAuth principals are attached by the Nest guards; the gateway notes its caller's kind.
        const principal = store.principal ?? req.principal?.kind;
        logger.log({
          msg: `${req.method} ${req.path} ${res.statusCode} ${durationMs.toFixed(1)}ms`,
          requestId: store.requestId,
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
