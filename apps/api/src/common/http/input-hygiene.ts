import { isUtf8 } from 'node:buffer';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { REQUEST_ID_HEADER } from '@switchyard/shared-dto';
import { AppException, CommonErrorCode, CommonException } from '../errors/app.exception';
import { errorSurface, renderError, sendError } from '../errors/error-render';
import { newRequestId } from './request-context';

/**
 * Input hygiene at the edge, before anything reads, stores or recurses over what a caller sent
 * (docs/gateway.md, "Input hygiene"): no NUL (U+0000) and no unpaired UTF-16 surrogate in a URL or a body string,
 * no invalid UTF-8, and JSON nested at most MAX_JSON_DEPTH levels. PostgreSQL cannot store a NUL in text, a lone
 * surrogate has no UTF-8 form, and deep nesting exhausts the stack of whatever walks it.
 */

/** Deepest JSON nesting accepted, objects and arrays together. */
export const MAX_JSON_DEPTH = 64;

export type InputProblem = 'nul' | 'surrogate' | 'utf8' | 'depth';

export const INPUT_PROBLEM_MESSAGES: Record<InputProblem, string> = {
  nul: 'The request contains a NUL character (U+0000), which is not accepted',
  surrogate: 'The request contains an unpaired UTF-16 surrogate (\\ud800-\\udfff), which is not accepted',
  utf8: 'The request contains bytes that are not valid UTF-8',
  depth: `The JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`,
};

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const LOWER_U = 0x75;

/** The value of four hex digits at `at`, or -1. */
function hex4(bytes: Uint8Array, at: number): number {
  let value = 0;
  for (let k = 0; k < 4; k += 1) {
    const c = bytes[at + k];
    const lower = c | 0x20;
    const digit = c >= 0x30 && c <= 0x39 ? c - 0x30 : lower >= 0x61 && lower <= 0x66 ? lower - 0x57 : -1;
    if (digit < 0) return -1;
    value = value * 16 + digit;
  }
  return value;
}

/**
 * What is wrong with a JSON body's raw bytes, or null, in one pass and without parsing: invalid UTF-8, nesting
 * deeper than `maxDepth` (`{` and `[` counted outside strings), a `\u0000` escape, an unpaired surrogate escape.
 * Strings are skipped with native searches for the next quote and backslash, so a body made mostly of text
 * (a chat's messages) costs little more than the UTF-8 check. Malformed JSON is left to JSON.parse.
 */
export function jsonBodyProblem(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): InputProblem | null {
  if (!isUtf8(bytes)) return 'utf8';
  const buffer = Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = buffer.length;
  let depth = 0;
  // Where the next backslash is (length when none is left); searched again only once passed.
  let backslash = -1;
  for (let i = 0; i < length; i += 1) {
    const c = buffer[i];
    if (c === QUOTE) {
      let j = i + 1;
      for (;;) {
        const quote = buffer.indexOf(QUOTE, j);
        if (quote === -1) return null; // unterminated: JSON.parse refuses it
        if (backslash < j) {
          backslash = buffer.indexOf(BACKSLASH, j);
          if (backslash === -1) backslash = length;
        }
        if (backslash > quote) {
          i = quote;
          break;
        }
        // An escape inside the string, before the quote found (which it may itself escape).
        if (buffer[backslash + 1] !== LOWER_U) {
          j = backslash + 2;
          continue;
        }
        const unit = hex4(buffer, backslash + 2);
        if (unit === 0) return 'nul';
        if (unit >= 0xdc00 && unit <= 0xdfff) return 'surrogate';
        if (unit >= 0xd800 && unit <= 0xdbff) {
          const low =
            buffer[backslash + 6] === BACKSLASH && buffer[backslash + 7] === LOWER_U ? hex4(buffer, backslash + 8) : -1;
          if (low < 0xdc00 || low > 0xdfff) return 'surrogate';
          j = backslash + 12;
        } else j = backslash + 6;
      }
    } else if (c === 0x7b || c === 0x5b) {
      depth += 1;
      if (depth > maxDepth) return 'depth';
    } else if (c === 0x7d || c === 0x5d) depth -= 1;
    else if (c === 0) return 'nul';
  }
  return null;
}

const HEX = /^[0-9A-Fa-f]{2}$/;
/** Anything but printable ASCII other than `%`: the only URLs that need a closer look. */
const NEEDS_A_LOOK = /[^\x21-\x24\x26-\x7e]/;

/**
 * What is wrong with a URL (path and query) or a form-encoded body, or null: a NUL, raw or `%00`, or bytes that
 * are not valid UTF-8 once %-escapes are decoded (`%ff`, or `%ed%a0%80`, a surrogate encoded as UTF-8). `text`
 * is as node gives it (one character per byte). A `%` not followed by two hex digits is left as it is.
 */
export function encodedTextProblem(text: string): InputProblem | null {
  if (!NEEDS_A_LOOK.test(text)) return null;
  const bytes = Buffer.allocUnsafe(text.length);
  let size = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === 0x25 && HEX.test(text.slice(i + 1, i + 3))) {
      bytes[size++] = parseInt(text.slice(i + 1, i + 3), 16);
      i += 2;
    } else if (code > 0xff) return 'utf8';
    else bytes[size++] = code;
  }
  const decoded = bytes.subarray(0, size);
  if (decoded.includes(0)) return 'nul';
  return isUtf8(decoded) ? null : 'utf8';
}

export function inputProblemException(problem: InputProblem): CommonException {
  return new CommonException(
    problem === 'depth' ? CommonErrorCode.INVALID_JSON : CommonErrorCode.INVALID_REQUEST,
    INPUT_PROBLEM_MESSAGES[problem],
  );
}

/**
 * Refuses, with 400 in the shape of the path's surface, a request whose URL carries a NUL or invalid UTF-8.
 * Runs first for every route: Express's and the gateway's front door.
 */
export function refuseBadUrls(
  req: IncomingMessage & { path?: string; requestId?: string },
  res: ServerResponse,
  next: () => void,
): void {
  const problem = encodedTextProblem(req.url ?? '/');
  if (!problem) return next();
  const url = req.url ?? '/';
  const query = url.indexOf('?');
  sendError(
    { method: req.method, path: req.path ?? (query < 0 ? url : url.slice(0, query)), requestId: req.requestId },
    res,
    inputProblemException(problem),
  );
}

/**
 * Answers a request node's HTTP parser refuses (an invalid character in the request line, an unknown method,
 * headers too large) with a JSON error in the shape of its path's surface, and closes the connection once the
 * answer is written. Node's own handler writes a bare 400 and destroys the socket at once, so under load the
 * client often sees a reset instead of the answer.
 */
export function answerMalformedRequests(server: Server): void {
  const answered = new WeakSet<Socket>();
  server.on('clientError', (error: Error & { code?: string; rawPacket?: Buffer }, socket: Socket) => {
    // The rest of a request already answered (its headers or body arriving after the error) fails to parse
    // too: it is dropped until the peer closes. Destroying the socket then would reset the connection, and the
    // peer could lose the answer.
    if (answered.has(socket)) return;
    // As node does: no answer while another one is being written on this connection (it would corrupt it).
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } | null })._httpMessage;
    if (!socket.writable || inFlight?.headersSent || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    answered.add(socket);
    socket.setTimeout(5_000, () => socket.destroy());
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const [method, target = '/'] = (error.rawPacket?.toString('latin1') ?? '').split('\r\n', 1)[0].split(' ');
    const path = target.split('?', 1)[0];
    const exception = new AppException(
      status === 431 ? 'HEADERS_TOO_LARGE' : status === 408 ? 'REQUEST_TIMEOUT' : 'BAD_REQUEST',
      status,
      MALFORMED_MESSAGES[status],
    );
    const requestId = newRequestId();
    const body = JSON.stringify(renderError(errorSurface(path), exception, requestId));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
        `X-Content-Type-Options: nosniff\r\n${REQUEST_ID_HEADER}: ${requestId}\r\nConnection: close\r\n\r\n${method === 'HEAD' ? '' : body}`,
    );
  });
}

const MALFORMED_MESSAGES: Record<number, string> = {
  400: 'The request is not valid HTTP (its method, target or headers)',
  408: 'The request took too long to arrive',
  431: 'The request headers are too large',
};
