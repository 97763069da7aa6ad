import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { sendError } from '../errors/error-render';
import { toAppException } from '../errors/all-exceptions.filter';

export const JSON_BODY_LIMIT = '1mb';

/**
 * Body parsers whose failures (malformed JSON, too large, bad charset) answer in the documented error shape of
 * the path, like every other error, instead of Express's HTML page.
 */
function wrap(parser: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) =>
    parser(req, res, (error?: unknown) => (error ? sendError(req, res, toAppException(error, req)) : next()));
}

/**
 * @param rawPaths paths whose body is kept as the exact bytes received (a Buffer in req.body), whatever its
 *   type: a webhook's signature is computed over those bytes, which parsing and re-serialising would change.
 */
export function bodyParsers(rawPaths: string[] = []): RequestHandler[] {
  const raw = wrap(express.raw({ type: () => true, limit: JSON_BODY_LIMIT }));
  return [
    // Once read, the body is finished, and the parsers below leave the request alone.
    (req: Request, res: Response, next: NextFunction) => (rawPaths.includes(req.path) ? raw(req, res, next) : next()),
    wrap(express.json({ limit: JSON_BODY_LIMIT, strict: true })),
    // RFC 6749 token and revoke requests are form-encoded.
    wrap(express.urlencoded({ extended: false, limit: '100kb', parameterLimit: 100 })),
  ];
}
