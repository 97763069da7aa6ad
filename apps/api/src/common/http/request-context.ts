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
export function requestContext(logger = new Logger('HTTP')) {
  return (req: Request, res: Response, next: NextFunction) => {
    const given = req.header(REQUEST_ID_HEADER);
    req.requestId = given && CALLER_ID.test(given) ? given : `req_${randomBytes(12).toString('hex')}`;
    res.setHeader(REQUEST_ID_HEADER, req.requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      logger.log(`[${req.requestId}] ${req.method} ${req.path} ${res.statusCode} ${ms.toFixed(1)}ms`);
    });
    next();
  };
}
