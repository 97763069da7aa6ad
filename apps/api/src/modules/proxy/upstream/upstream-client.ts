import http from 'node:http';
import https from 'node:https';
import { pipeline, type Readable } from 'node:stream';
import type { Socket } from 'node:net';
import { urlToHttpOptions } from 'node:url';
import { GatewayErrorCode, GatewayException } from '../gateway.exception';
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
  /** Sent as they are (content-length is added to them for a string or Buffer body). */
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

interface ParsedUrl {
  protocol: string;
  hostname: string;
  port: number | string | null | undefined;
  path: string;
  /** The Host header: the URL's host, with its port when not the default. */
  host: string;
  /** Basic credentials from the URL's user info, if any. */
  authorization: string | null;
}

/**
 * A keep-alive pool whose sockets carry the provider's timeout from the start (so no call arms and disarms one),
 * with connecting bounded on its own (10 s): a fresh connection that takes longer fails with a timeout.
 */
function pool(protocol: string, timeoutMs: number): http.Agent {
  const options = { keepAlive: true, keepAliveMsecs: 30_000, maxSockets: 256, maxFreeSockets: 256, scheduling: 'lifo' as const, timeout: timeoutMs };
  const Base = protocol === 'https:' ? https.Agent : http.Agent;
  return new (class extends Base {
    override createConnection(...args: Parameters<http.Agent['createConnection']>) {
      const socket = super.createConnection(...args) as Socket;
      if (socket?.connecting) {
        const timer = setTimeout(() => socket.destroy(new UpstreamTimeoutError('connecting took too long')), CONNECT_TIMEOUT_MS);
        const clear = () => clearTimeout(timer);
        socket.once('connect', clear);
        socket.once('close', clear);
      }
      return socket;
    }
  })(options);
}

/**
 * Keep-alive connection pools to the providers: node's own http(s) Agents, a pool per origin and timeout (they
 * cost a fraction of undici's per-request CPU on the hot path; see docs/benchmarks.md). Connecting is bounded
 * (10 s); the provider may then be silent for its timeout at most — before its headers or between two chunks.
 */
export class UpstreamClient {
  /** Per protocol and provider timeout. */
  private readonly agents = new Map<string, http.Agent>();

  /**
   * One request. A connection that fails before any answer came (refused, reset, a kept-alive socket the
   * provider had closed) is tried once more on a fresh one, when the body can be sent again (JSON; a streamed
   * multipart body cannot). Nothing has reached the caller at that point, so the retry is invisible to them.
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

  private agentFor(protocol: string, timeoutMs: number): http.Agent | undefined {
    if (protocol !== 'http:' && protocol !== 'https:') return undefined;
    const key = protocol + timeoutMs;
    let agent = this.agents.get(key);
    if (!agent) this.agents.set(key, (agent = pool(protocol, timeoutMs)));
    return agent;
  }

  private once(req: UpstreamRequest): Promise<UpstreamResponse> {
    return new Promise((resolve, reject) => {
      if (req.signal.aborted) return reject(new ClientGoneError('client closed the request'));
      const url = this.parse(req.url);
      const agent = this.agentFor(url.protocol, req.timeoutMs);
      if (!agent) return reject(new Error('unsupported protocol'));
      // Headers as a flat list: node writes them as given (still validating each) instead of storing them one by one.
      const headers: (string | number)[] = 'host' in req.headers ? [] : ['host', url.host];
      for (const name in req.headers) headers.push(name, req.headers[name]);
      if (url.authorization && !('authorization' in req.headers)) headers.push('authorization', url.authorization);
      if (typeof req.body === 'string' || Buffer.isBuffer(req.body)) headers.push('content-length', Buffer.byteLength(req.body));
      const options = { protocol: url.protocol, hostname: url.hostname, port: url.port, path: url.path, method: req.method, headers, agent };
      const outgoing = (url.protocol === 'https:' ? https : http).request(options as unknown as http.RequestOptions);
      let response: http.IncomingMessage | null = null;
      // Whatever ends the exchange ends the response too, so a reader of the body sees the error.
      const fail = (error: Error) => (response ? response.destroy(error) : outgoing.destroy(error));
      const onAbort = () => fail(new ClientGoneError('client closed the request'));
      req.signal.addEventListener('abort', onAbort, { once: true });
      const done = () => req.signal.removeEventListener('abort', onAbort);
      // The pool's sockets time out after the provider's timeout without traffic; node reports it on the request.
      outgoing.on('timeout', () => fail(new UpstreamTimeoutError('the provider was silent too long')));
      outgoing.once('error', (error) => {
        done();
        reject(error);
      });
      outgoing.once('response', (incoming) => {
        response = incoming;
        incoming.once('close', done);
        resolve({ status: incoming.statusCode ?? 502, headers: incoming.headers, body: incoming });
      });
      if (req.body === undefined || typeof req.body === 'string' || Buffer.isBuffer(req.body)) outgoing.end(req.body);
      else pipeline(req.body, outgoing, () => undefined);
    });
  }

  /** Provider URLs repeat (a base URL and a few paths): parsed into what a request needs once each, in a bounded map. */
  private readonly parsed = new Map<string, ParsedUrl>();

  private parse(text: string): ParsedUrl {
    let url = this.parsed.get(text);
    if (!url) {
      if (this.parsed.size >= 1000) this.parsed.clear();
      const whole = new URL(text);
      const options = urlToHttpOptions(whole);
      url = {
        protocol: options.protocol!,
        hostname: options.hostname!,
        port: options.port,
        path: options.path!,
        host: whole.host,
        authorization: options.auth ? `Basic ${Buffer.from(options.auth).toString('base64')}` : null,
      };
      this.parsed.set(text, url);
    }
    return url;
  }

  async close(): Promise<void> {
    for (const agent of this.agents.values()) agent.destroy();
  }
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE']);

/** A failure of the connection itself (not a timeout, not an answer): worth one more try. */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: string })?.code;
  return code !== undefined && CONNECTION_CODES.has(code);
}

/** Maps a network failure to the caller's error, without the upstream URL or key (decisions.md section 6). */
export function upstreamFailure(error: unknown, signal?: CancelSignal): Error {
  if (signal?.aborted || error instanceof ClientGoneError) return new ClientGoneError('client closed the request');
  if (error instanceof UpstreamTimeoutError) return new GatewayException(GatewayErrorCode.UPSTREAM_TIMEOUT, 'The model provider did not answer in time');
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
