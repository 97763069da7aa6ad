import { Injectable } from '@nestjs/common';
import { Readable } from 'node:stream';
import { Agent, type Dispatcher } from 'undici';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import type { CancelSignal } from './cancel';
import { type Body, collect } from './each-chunk';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Body;
}

export interface UpstreamRequest {
  url: string;
  method: 'GET' | 'POST';
  /** Sent as they are, lower-case names (content-length and host are added for the body and the URL). */
  headers: Record<string, string>;
  body?: string | Buffer | Readable;
  signal: CancelSignal;
  timeoutMs: number;
}

/** Thrown when the caller went away: not an upstream failure, and never billed as one. */
export class ClientGoneError extends Error {}

/** The provider was silent too long: while connecting, before its headers, or between two chunks. */
export class UpstreamTimeoutError extends Error {}

const CONNECT_TIMEOUT_MS = 10_000;
/** undici's codes for its three timeouts: connecting, waiting for the headers, waiting for the next body chunk. */
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);

interface ParsedUrl {
  origin: string;
  /** Path and query. */
  path: string;
  /** Basic credentials from the URL's user info, if any. */
  authorization: string | null;
}

/** undici's failures as the gateway's: its timeouts are UpstreamTimeoutError, the rest are kept (their codes matter). */
function asUpstreamError(error: Error): Error {
  return TIMEOUT_CODES.has((error as { code?: string }).code ?? '')
    ? new UpstreamTimeoutError('the provider was silent too long')
    : error;
}

/**
 * Keep-alive connection pools to the providers: undici's Agent (a pool per origin, up to 256 connections), driven
 * through its low-level `dispatch` — no fetch, no per-request promise chain or body mixins. Measured beside node's
 * http.Agent + ClientRequest, it costs about half the client-side CPU per call (docs/benchmarks.md). Connecting is
 * bounded (10 s); the provider may then be silent for its timeout at most — before its headers or between two
 * chunks.
 */
@Injectable()
export class UpstreamClient {
  private readonly dispatcher = new Agent({ connections: 256, connect: { timeout: CONNECT_TIMEOUT_MS } });

  /**
   * One request. A request whose connection fails before any answer came (refused, reset, a kept-alive socket
   * the provider had closed) is sent once more (on another pooled connection or a new one), when the body can be
   * sent again (JSON; a streamed multipart body cannot). Nothing has reached the caller at that point, so the
   * retry is invisible to them.
   */
  async send(req: UpstreamRequest): Promise<UpstreamResponse> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.once(req);
      } catch (error) {
        const replayable = req.body === undefined || typeof req.body === 'string' || Buffer.isBuffer(req.body);
        if (attempt < 2 && replayable && !req.signal.aborted && isConnectionFailure(error)) continue;
        throw upstreamFailure(error, req.signal);
      }
    }
  }

  private once(req: UpstreamRequest): Promise<UpstreamResponse> {
    return new Promise((resolve, reject) => {
      if (req.signal.aborted) return reject(new ClientGoneError('client closed the request'));
      let url: ParsedUrl;
      try {
        url = this.parse(req.url);
      } catch (error) {
        return reject(error);
      }
      const headers: string[] = [];
      for (const name in req.headers) headers.push(name, req.headers[name]);
      if (url.authorization && !('authorization' in req.headers)) headers.push('authorization', url.authorization);
      let controller: Dispatcher.DispatchController | null = null;
      let body: Readable | null = null;
      let ended = false;
      // The caller leaving ends the exchange; a reader of the body sees the error.
      const onAbort = () => {
        const gone = new ClientGoneError('client closed the request');
        if (body) body.destroy(gone);
        else controller?.abort(gone);
      };
      req.signal.addEventListener('abort', onAbort, { once: true });
      const done = () => req.signal.removeEventListener('abort', onAbort);
      this.dispatcher.dispatch(
        {
          origin: url.origin,
          path: url.path,
          method: req.method,
          headers,
          body: req.body ?? null,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        },
        {
          onRequestStart: (started) => {
            controller = started;
            if (req.signal.aborted) started.abort(new ClientGoneError('client closed the request'));
          },
          onResponseStart: (started, status, responseHeaders) => {
            if (status < 200) return; // informational (100 Continue, 103 Early Hints): the answer follows
            body = new Readable({
              read: () => started.resume(),
              destroy: (error, callback) => {
                done();
                // The reader stopped early (or the caller left): the rest is not wanted, the connection is not reused.
                if (!ended) started.abort(error ?? new ClientGoneError('the body was not read to its end'));
                callback(error);
              },
            });
            resolve({ status, headers: responseHeaders, body });
          },
          onResponseData: (started, chunk) => {
            if (!body!.push(chunk)) started.pause();
          },
          onResponseEnd: () => {
            ended = true;
            done();
            body!.push(null);
          },
          onResponseError: (_started, error) => {
            done();
            ended = true; // the exchange is over: nothing left to abort
            if (body) body.destroy(asUpstreamError(error));
            else reject(asUpstreamError(error));
          },
        },
      );
    });
  }

  /** Provider URLs repeat (a base URL and a few paths): parsed into what a request needs once each, in a bounded map. */
  private readonly parsed = new Map<string, ParsedUrl>();

  private parse(text: string): ParsedUrl {
    let url = this.parsed.get(text);
    if (!url) {
      if (this.parsed.size >= 1000) this.parsed.clear();
      const whole = new URL(text);
      if (whole.protocol !== 'http:' && whole.protocol !== 'https:') throw new Error('unsupported protocol');
      const user =
        whole.username || whole.password
          ? `${decodeURIComponent(whole.username)}:${decodeURIComponent(whole.password)}`
          : null;
      url = {
        origin: whole.origin,
        path: whole.pathname + whole.search,
        authorization: user === null ? null : `Basic ${Buffer.from(user).toString('base64')}`,
      };
      this.parsed.set(text, url);
    }
    return url;
  }

  async close(): Promise<void> {
    await this.dispatcher.destroy();
  }
}

// UND_ERR_SOCKET: undici's "other side closed" (a kept-alive socket the provider had closed, a reset before any answer).
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/** A failure of the connection itself (not a timeout, not an answer): worth one more try. */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code !== undefined && CONNECTION_CODES.has(code);
}

/** Maps a network failure to the caller's error, without the upstream URL or key (docs/decisions.md#answers-and-errors). */
export function upstreamFailure(error: unknown, signal?: CancelSignal): Error {
  if (signal?.aborted || error instanceof ClientGoneError) return new ClientGoneError('client closed the request');
  if (error instanceof UpstreamTimeoutError)
    return new GatewayException(GatewayErrorCode.UPSTREAM_TIMEOUT, 'The model provider did not answer in time');
  return new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider could not be reached');
}

/**
 * An upstream answer's text, up to `limit` bytes (the rest is dropped and the body destroyed). A failure while
 * reading (the provider fell silent, the connection broke, the caller left) becomes the caller's error.
 */
export async function readText(body: Body, limit = 256 * 1024, signal?: CancelSignal): Promise<string> {
  const { bytes, over } = await collect(body, limit, (error) => upstreamFailure(error, signal));
  if (over) body.destroy?.();
  return bytes.toString('utf8');
}
