import type { IncomingMessage } from 'node:http';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { sendError } from '../errors/error-render';
import { toAppException } from '../errors/all-exceptions.filter';
import { CommonErrorCode, CommonException } from '../errors/app.exception';
import { encodedTextProblem, inputProblemException, jsonBodyProblem } from './input-hygiene';

export const JSON_BODY_LIMIT = '1mb';

/**
 * Body parsers whose failures (malformed JSON, too large, bad charset) answer in the documented error shape of
 * the path, like every other error, instead of Express's HTML page.
 */
function wrap(parser: RequestHandler): RequestHandler {
  return (req: Request, res: Response, next: NextFunction) =>
    parser(req, res, (error?: unknown) => (error ? sendError(req, res, toAppException(error, req)) : next()));
}

/** Whether a request carries a body: chunked, or a positive Content-Length (an empty form post carries none). */
export function hasBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true;
  const length = Number(req.headers['content-length']);
  return Number.isFinite(length) ? length > 0 : req.headers['content-length'] !== undefined;
}

/** Express routes ignore letter case, so these prefixes do too. */
const startsWith = (path: string, prefix: string) => path.toLowerCase().startsWith(prefix);

/**
 * Checked before JSON.parse sees the bytes (body-parser's `verify`): nesting depth, NUL and lone surrogates, UTF-8.
 * The exception thrown keeps its 400 (body-parser keeps an error's own status).
 */
function verifyJson(_req: IncomingMessage, _res: unknown, bytes: Buffer): void {
  const problem = jsonBodyProblem(bytes);
  if (problem) throw inputProblemException(problem);
}

function verifyForm(_req: IncomingMessage, _res: unknown, bytes: Buffer): void {
  const problem = encodedTextProblem(bytes.toString('latin1'));
  if (problem) throw inputProblemException(problem);
}

/**
 * Which bodies are read, where:
 * - `rawPaths` (the Stripe webhook): the exact bytes received, whatever the type (a Buffer in req.body): a
 *   webhook's signature is computed over those bytes, which parsing and re-serialising would change;
 * - `/api/...`: JSON only; any other body is 415 in the envelope;
 * - `/oauth2/...` (token, revoke, introspect, register): JSON, and form-encoded bodies as RFC 6749 requires;
 * - elsewhere, JSON. The gateway (/v1 and its aliases) reads its own bodies (modules/proxy/request-body.ts).
 */
export function bodyParsers(rawPaths: string[] = []): RequestHandler[] {
  const raw = wrap(express.raw({ type: () => true, limit: JSON_BODY_LIMIT }));
  const form = wrap(express.urlencoded({ extended: false, limit: '100kb', parameterLimit: 100, verify: verifyForm }));
  return [
    // Once read, the body is finished, and the parsers below leave the request alone.
    (req: Request, res: Response, next: NextFunction) => {
      if (rawPaths.includes(req.path)) return raw(req, res, next);
      if (startsWith(req.path, '/api/') && hasBody(req) && !req.is('application/json'))
        return sendError(
          req,
          res,
          new CommonException(
            CommonErrorCode.UNSUPPORTED_MEDIA_TYPE,
            'Request bodies on /api/v1 must be application/json',
          ),
        );
      next();
    },
    wrap(express.json({ limit: JSON_BODY_LIMIT, strict: true, verify: verifyJson })),
    // RFC 6749 token and revoke requests are form-encoded.
    (req: Request, res: Response, next: NextFunction) =>
      startsWith(req.path, '/oauth2/') ? form(req, res, next) : next(),
  ];
}
