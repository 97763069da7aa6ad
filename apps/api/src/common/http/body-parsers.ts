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

export function bodyParsers(): RequestHandler[] {
  return [
    wrap(express.json({ limit: JSON_BODY_LIMIT, strict: true })),
    // RFC 6749 token and revoke requests are form-encoded.
    wrap(express.urlencoded({ extended: false, limit: '100kb', parameterLimit: 100 })),
  ];
}
