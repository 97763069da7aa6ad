import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { createProxyMiddleware, type RequestHandler as ProxyHandler } from 'http-proxy-middleware';
import type { AnswerSink } from '../../call/answer-sink';
import type { Call } from '../../call/call';
import type { RouteMethod } from '../../catalog/actions';
import { GatewayErrorCode, GatewayException } from '../../errors/gateway.exception';
import { discardBody } from '../../call/request-body';
import { AnswerRelay, COST_HEADER } from '../../relay/relay';
import { forwardedRequestHeaders, PASSED_RESPONSE_HEADERS } from '../../upstream/forwarded-headers';
import { UpstreamClient, upstreamFailure } from '../../upstream/upstream-client';
import type { ProviderAdapter } from '../provider-adapter';
import { ProviderAdapters } from '../provider-adapters';
import { openAiJsonBody } from '../openai-body';

/**
 * Any server that speaks OpenAI's API (OpenAI itself, vLLM, Ollama, Together, …): the caller's request goes on
 * nearly as it came (the model name, the output bound, the usage request; docs/gateway.md), the answer comes back
 * through the relay; binary downloads pass through untouched.
 */
@Injectable()
export class OpenAiAdapter implements ProviderAdapter, OnModuleInit {
  readonly kind = 'openai' as const;
  private readonly binaryProxies = new Map<string, ProxyHandler>();

  constructor(
    private readonly upstream: UpstreamClient,
    private readonly relay: AnswerRelay,
    private readonly adapters: ProviderAdapters,
  ) {}

  onModuleInit(): void {
    this.adapters.register(this);
  }

  async dispatch(call: Call, sink: AnswerSink, req: IncomingMessage | null): Promise<void> {
    if (call.route.action === 'video_content') {
      if (!req)
        throw new GatewayException(GatewayErrorCode.UNSUPPORTED_METHOD, 'Video downloads are served over HTTP only');
      return this.proxyBinary(call, req, sink);
    }
    const provider = call.model.provider;
    // The provider's headers over the caller's forwarded ones, written into that new object rather than spread
    // into another (a spread that adds keys takes V8's slow path: docs/benchmarks.md).
    const headers = Object.assign(
      forwardedRequestHeaders(call.form ? 'multipart' : 'json', call.requestHeaders),
      provider.headers,
    );
    headers.accept = call.stream ? 'text/event-stream' : 'application/json, */*';
    if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`;
    let body: string | Buffer | Readable | undefined = openAiJsonBody(call);
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (call.form) {
      // Encoded as it is sent: the files stream from disk, never whole in memory.
      const encoded = new globalThis.Response(await call.form.toFormData({ model: call.model.upstreamModel }));
      headers['content-type'] = encoded.headers.get('content-type')!;
      body = Readable.fromWeb(encoded.body!);
    }
    const upstream = await this.upstream.send({
      url: provider.baseUrl + upstreamPath(call),
      method: call.route.method,
      headers,
      body,
      signal: call.signal,
      timeoutMs: provider.timeoutMs,
    });
    await this.relay.openAiFormat(call, upstream, sink);
  }

  /**
   * Binary downloads from an OpenAI-compatible provider pass through untouched (http-proxy-middleware). http-proxy
   * sends the request's own headers upstream, so they are replaced first by the allowlisted ones
   * (upstream/forwarded-headers.ts) and the provider's; a body (a GET may carry one) is read and dropped, so
   * nothing the caller sent is piped on.
   */
  private async proxyBinary(call: Call, req: IncomingMessage, res: AnswerSink): Promise<void> {
    const provider = call.model.provider;
    await discardBody(req);
    let proxy = this.binaryProxies.get(provider.id + provider.baseUrl);
    if (!proxy) {
      proxy = createProxyMiddleware<IncomingMessage & { upstreamPath?: string }>({
        target: provider.baseUrl!,
        changeOrigin: true,
        pathRewrite: (_path, proxied) => proxied.upstreamPath ?? '/',
        proxyTimeout: provider.timeoutMs,
        on: {
          proxyRes: (proxyRes) => {
            const passed: readonly string[] = PASSED_RESPONSE_HEADERS.binary;
            for (const name of Object.keys(proxyRes.headers)) if (!passed.includes(name)) delete proxyRes.headers[name];
          },
        },
      });
      this.binaryProxies.set(provider.id + provider.baseUrl, proxy);
    }
    // The caller's credential never goes upstream (nor any header off the allowlist); the provider's key never comes back.
    req.headers = {
      ...forwardedRequestHeaders('binary', req.headers),
      ...provider.headers,
      ...(provider.apiKey ? { authorization: `Bearer ${provider.apiKey}` } : {}),
    };
    (req as IncomingMessage & { upstreamPath?: string }).upstreamPath = upstreamPath(call);
    res.setHeader(COST_HEADER, '0');
    return new Promise<void>((resolve, reject) => {
      res.on('finish', () =>
        res.statusCode >= 500
          ? reject(new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider failed'))
          : resolve(),
      );
      res.on('close', () => resolve());
      // The middleware hands its failures to this callback; the promise it returns carries no outcome.
      void proxy(req, res as never, (error?: unknown) =>
        reject(
          error
            ? upstreamFailure(error)
            : new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider failed'),
        ),
      );
    });
  }
}

/** The provider's path of each call (OpenAI's API, which every OpenAI-compatible server follows), with its id. */
const UPSTREAM_PATHS: Partial<Record<RouteMethod, string>> = {
  chat_completions: '/chat/completions',
  completions: '/completions',
  responses: '/responses',
  embeddings: '/embeddings',
  image_generation: '/images/generations',
  image_edit: '/images/edits',
  image_variation: '/images/variations',
  audio_speech: '/audio/speech',
  audio_transcription: '/audio/transcriptions',
  video_generation: '/videos',
  video_retrieve: '/videos/{id}',
  video_content: '/videos/{id}/content',
  video_remix: '/videos/{id}/remix',
};

function upstreamPath(call: Call): string {
  const path = UPSTREAM_PATHS[call.route.action];
  if (!path) throw new GatewayException(GatewayErrorCode.UNSUPPORTED_METHOD, `${call.route.action} is not forwarded`);
  return path.replace('{id}', encodeURIComponent(call.params.id ?? ''));
}
