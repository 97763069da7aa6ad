import { Agent, errors, request } from 'undici';
import type { Readable } from 'node:stream';
import { GatewayErrorCode, GatewayException } from '../gateway.exception';

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: AsyncIterable<Uint8Array> & { destroy?: (error?: Error) => void };
}

export interface UpstreamRequest {
  url: string;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string | Buffer | Readable;
  signal: AbortSignal;
  timeoutMs: number;
}

/** Thrown when the caller went away: not an upstream failure, and never billed as one. */
export class ClientGoneError extends Error {}

/**
 * Keep-alive connection pools to the providers (one undici Agent, a pool per origin). Connecting is bounded
 * (10 s); headers must arrive within the provider's timeout; a stream may stay silent that long between chunks.
 */
export class UpstreamClient {
  private readonly agent = new Agent({
    keepAliveTimeout: 30_000,
    keepAliveMaxTimeout: 600_000,
    connections: 256,
    pipelining: 1,
    connect: { timeout: 10_000 },
  });

  /**
   * One request. A connection that fails before any answer came (refused, reset, a kept-alive socket the
   * provider had closed) is tried once more on a fresh one, when the body can be sent again (JSON; a streamed
   * multipart body cannot). Nothing has reached the caller at that point, so the retry is invisible to them.
   */
  async send(req: UpstreamRequest): Promise<UpstreamResponse> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const response = await request(req.url, {
          method: req.method,
          headers: req.headers,
          body: req.body as never,
          signal: req.signal,
          dispatcher: this.agent,
          headersTimeout: req.timeoutMs,
          bodyTimeout: req.timeoutMs,
        });
        return { status: response.statusCode, headers: response.headers, body: response.body as unknown as Readable & AsyncIterable<Uint8Array> };
      } catch (error) {
        const replayable = req.body === undefined || typeof req.body === 'string' || Buffer.isBuffer(req.body);
        if (attempt < 2 && replayable && !req.signal.aborted && isConnectionFailure(error)) continue;
        throw upstreamFailure(error, req.signal);
      }
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);

/** A failure of the connection itself (not a timeout, not an answer): worth one more try. */
function isConnectionFailure(error: unknown): boolean {
  const code = (error as { code?: string })?.code ?? (error as { cause?: { code?: string } })?.cause?.code;
  return error instanceof errors.SocketError || (code !== undefined && CONNECTION_CODES.has(code));
}

/** Maps a network failure to the caller's error, without the upstream URL or key (decisions.md section 6). */
export function upstreamFailure(error: unknown, signal?: AbortSignal): Error {
  if (signal?.aborted) return new ClientGoneError('client closed the request');
  if (error instanceof errors.HeadersTimeoutError || error instanceof errors.BodyTimeoutError || error instanceof errors.ConnectTimeoutError)
    return new GatewayException(GatewayErrorCode.UPSTREAM_TIMEOUT, 'The model provider did not answer in time');
  return new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider could not be reached');
}

export async function readText(body: AsyncIterable<Uint8Array>, limit = 256 * 1024): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += chunk.length;
    if (size > limit) break;
    chunks.push(Buffer.from(chunk));
  }
  return Buffer.concat(chunks).toString('utf8');
}
