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
 * Gives every request an id (the caller's X-Request-Id when it is sane, else a new one), echoes it in the
 * response and logs one line per request when it ends. Only the path is logged: query strings can carry
 * secrets (a revoke token, a checkout session id), and bodies and headers are never logged.
 */
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

export function requestContext(logger = new Logger('HTTP'), logRequests = true) {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.headers[REQUEST_ID_HEADER] as string | undefined;
    req.requestId = given && CALLER_ID.test(given) ? given : newRequestId();
    res.setHeader(REQUEST_ID_HEADER, req.requestId);
    if (logRequests) {
      const started = process.hrtime.bigint();
      res.on('finish', () => {
        const ms = Number(process.hrtime.bigint() - started) / 1e6;
        logger.log(`[${req.requestId}] ${req.method} ${req.path} ${res.statusCode} ${ms.toFixed(1)}ms`);
      });
    }
    next();
  };
}
