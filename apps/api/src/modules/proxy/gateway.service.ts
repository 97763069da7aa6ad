import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { Inject, Injectable, Logger, OnApplicationShutdown, OnModuleDestroy } from '@nestjs/common';
import { createProxyMiddleware, type RequestHandler as ProxyHandler } from 'http-proxy-middleware';
import { MODEL_METHODS, MODEL_TYPES, type ModelMethod } from '@switchyard/shared-dto';
import { AppException } from '../../common/errors/app.exception';
import { toAppException } from '../../common/errors/all-exceptions.filter';
import { sendError, writeJson } from '../../common/errors/error-render';
import { APP_CONFIG } from '../../config/config.module';
import type { AppConfig } from '../../config/config.schema';
import { BudgetService, Reservation } from '../usage/ledger/budget.service';
import { UsageRecorder } from '../usage/usage-recorder';
import type { UsageStatus } from '../usage/entities/usage-record.entity';
import { gatewayPrefixOf, GatewayRoute, matchGatewayRoute } from './allowlist';
import { affordableOutputTokens, estimateCall } from './budget-estimate';
import { CatalogService } from './catalog/catalog.service';
import type { CatalogModel } from './catalog/catalog.types';
import { applyOpenCors } from '../../common/http/open-cors';
import { FetchRefusedError, guardedFetch } from '../../common/net/fetch-guard';
import type { ContextRequest } from '../../common/http/request-context';
import { Lifecycle } from '../../common/lifecycle/lifecycle';
import { RateLimiterService } from '../../common/rate-limit/rate-limiter.service';
import type { Caller } from './credentials/caller';
import { CredentialRegistry } from './credentials/credential-registry';
import { GatewayErrorCode, GatewayException } from './gateway.exception';
import { costMicros, Metered, toUnits } from './pricing';
import { countTokens, DemoProvider, type DemoMethod } from './providers/demo/demo-provider';
import { SseParser } from './providers/sse';
import type { ChatTranslator } from './providers/translator.types';
import { sanitizeUpstreamMessage, TranslationError } from './providers/translator.types';
import { anthropicTranslator } from './providers/anthropic/anthropic.translator';
import { geminiTranslator } from './providers/gemini/gemini.translator';
import { discardBody, ParsedMultipart, readJsonBody, readMultipart } from './request-body';
import { Cancel, type CancelSignal } from './upstream/cancel';
import { spliceAnswer } from './answer-splice';
import { Delivered, MAY_CARRY_USAGE } from './delivered';
import { type ChunkVerdict, eachChunk } from './upstream/each-chunk';
import { forwardedRequestHeaders, PASSED_RESPONSE_HEADERS } from './upstream/forwarded-headers';
import { ClientGoneError, readText, UpstreamClient, upstreamFailure, UpstreamResponse } from './upstream/upstream-client';
import { VideoJobsRepository } from './video-jobs.repository';

export const COST_HEADER = 'x-switchyard-cost';
/** On an answer served by a fallback model: that model's id. */
export const MODEL_HEADER = 'x-switchyard-model';

/** The request as the front door hands it over: node's own, with the id and path it gave it. */
export type GatewayRequest = ContextRequest;
type Response = ServerResponse;

interface Frame {
  event?: string;
  data: string;
}

/**
 * Where a stream's frames come from: it calls `sink` with each upstream chunk's frames as they arrive, and waits
 * when the sink asks (the caller reads slower than the provider writes) or stops when the sink says so ([DONE]).
 */
type FrameSource = (sink: (frames: Frame[]) => ChunkVerdict) => Promise<void>;

/** Everything one gateway call knows; filled in as the call proceeds. */
interface Call {
  requestId: string;
  route: GatewayRoute;
  params: Record<string, string>;
  caller: Caller;
  model: CatalogModel;
  json: Record<string, unknown> | null;
  raw: Buffer | null;
  form: ParsedMultipart | null;
  stream: boolean;
  /** Whether the caller asked for the usage chunk (we always ask the upstream for it). */
  callerWantsUsage: boolean;
  signal: Cancel;
  metered: Metered;
  usageKnown: boolean;
  /** What a stream relayed (metered only if the call ends without the provider's usage). */
  delivered: Delivered;
  reservation: Reservation | null;
  /** The JSON was changed (output capped by the budget) and must be re-serialised. */
  bodyChanged: boolean;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};
const ASK_FOR_USAGE = Buffer.from('"stream_options":{"include_usage":true},');
/** How long a stream's headers wait for its first frame, to leave in the same write. */
const HEADERS_ALONE_MS = 50;
const TRANSLATORS: Record<string, ChatTranslator> = { anthropic: anthropicTranslator, gemini: geminiTranslator };
const EXPOSED_HEADERS = `x-request-id, ${COST_HEADER}, ${MODEL_HEADER}, x-switchyard-max-tokens-capped, retry-after`;
/** Upstream response headers worth passing on; everything else (cookies, server, rate-limit internals) stays. */
const PASSED_HEADERS: readonly string[] = PASSED_RESPONSE_HEADERS.relayed;

/** 503 while this instance drains: a load balancer retries the call on another one. */
const shuttingDown = () => new GatewayException(GatewayErrorCode.SHUTTING_DOWN, 'This instance is shutting down; retry', { headers: { 'Retry-After': '1' } });

/**
 * The /v1 gateway (and its /apikey/v1 and /oauth2/v1 aliases), served on node's own request and response ahead
 * of Express (front-door.ts), so the hot path pays for no framework machinery: allowlist → credential → catalog
 * → provider → relay (SSE chunk by chunk) → cost → usage record (batched). See docs/gateway.md.
 */

@Injectable()
export class GatewayService implements OnModuleDestroy, OnApplicationShutdown {
  private readonly upstream = new UpstreamClient();
  /** Calls in flight, each with the function that cuts it; drained at shutdown. */
  private readonly inFlight = new Map<Promise<void>, () => void>();
  private readonly demo = new DemoProvider();
  private readonly logger = new Logger('Gateway');
  private readonly binaryProxies = new Map<string, ProxyHandler>();

  constructor(
    private readonly catalog: CatalogService,
    private readonly credentials: CredentialRegistry,
    private readonly usage: UsageRecorder,
    private readonly videos: VideoJobsRepository,
    private readonly budget: BudgetService,
    private readonly lifecycle: Lifecycle,
    private readonly limiter: RateLimiterService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  async onApplicationShutdown(): Promise<void> {
    await this.upstream.close();
  }

  /**
   * Serves one /v1 call (or an alias's), straight from node's http server: the front door (front-door.ts)
   * sends only gateway paths here, past Express, with the request id and security headers already set.
   */
  serve(req: GatewayRequest, res: Response): void {
    // CORS is open on the resource APIs (interface.md section 1): bearer credentials, no cookies.
    if (applyOpenCors(req, res, 'GET, POST, OPTIONS', EXPOSED_HEADERS)) return;
    if (this.lifecycle.draining) {
      sendError(req, res, shuttingDown());
      return;
    }
    // One cancellation per call: the client leaving, or the shutdown's cut, aborts the upstream through it.
    const abort = new Cancel();
    const call = this.handle(req, res, abort).catch((error: unknown) => {
      if (!(error instanceof ClientGoneError)) sendError(req, res, toAppException(error, req, this.logger));
    });
    this.inFlight.set(call, () => {
      abort.abort(new ClientGoneError('the instance is shutting down'));
      // The client hears that the answer was cut (a stream simply ends; see handle()).
      if (!res.headersSent) sendError(req, res, shuttingDown());
      else res.end();
    });
    void call.finally(() => this.inFlight.delete(call));
  }

  /**
   * Graceful shutdown, before any module's beforeApplicationShutdown (where usage records and settlements are
   * flushed): new calls get 503; calls in flight run on for SHUTDOWN_GRACE_SECONDS, then are cut like a client
   * that left (the upstream is aborted and what was delivered is billed); then each has recorded and settled.
   */
  async onModuleDestroy(): Promise<void> {
    this.lifecycle.beginDrain();
    if (!this.inFlight.size) return;
    this.logger.log(`draining ${this.inFlight.size} calls in flight`);
    const all = () => Promise.allSettled([...this.inFlight.keys()]);
    let timer: NodeJS.Timeout | undefined;
    const graceOver = new Promise<'cut'>((resolve) => (timer = setTimeout(() => resolve('cut'), this.config.shutdownGraceSeconds * 1000)));
    if ((await Promise.race([all(), graceOver])) === 'cut') {
      this.logger.warn(`cutting ${this.inFlight.size} calls still running after ${this.config.shutdownGraceSeconds}s`);
      for (const cut of this.inFlight.values()) cut();
      await all();
    }
    clearTimeout(timer);
  }

  private async handle(req: GatewayRequest, res: Response, abort: Cancel): Promise<void> {
    const match = matchGatewayRoute(req.method ?? 'GET', req.path);
    if (!match) throw new GatewayException(GatewayErrorCode.ENDPOINT_NOT_ALLOWED, 'Endpoint not allowed');
    const caller = await this.credentials.authenticate(req, match.prefix);
    const rpm = caller.rateLimitRpm ?? this.config.gatewayRpm;
    if (rpm > 0) await this.limiter.consume({ bucket: 'gateway-rpm', subject: caller.rateLimitSubject, max: rpm, windowSeconds: 60 });
    if (match.route.action === 'list_models') return this.listModels(req, res);
    if (match.route.action === 'get_model') return this.getModel(match.params.id, res);

    const started = new Date();
    res.on('close', () => {
      if (!res.writableFinished) abort.abort(new ClientGoneError('client closed the request'));
    });
    let json: Record<string, unknown> | null = null;
    let raw: Buffer | null = null;
    let form: ParsedMultipart | null = null;
    let call: Call | null = null;
    let requestedModel = '';
    try {
      // The SDK sends POST /videos as multipart (it may carry an input_reference file); any JSON route may.
      const multipart = /^multipart\/form-data/i.test(req.headers['content-type'] ?? '');
      if (match.route.body === 'multipart' || (match.route.body === 'json' && multipart)) form = await readMultipart(req);
      else if (match.route.body === 'json') ({ json, raw } = await readJsonBody(req));
      const model = await this.resolveModel(match.route, match.params, caller, json, form, (id) => (requestedModel = id));
      const stream = json?.stream === true;
      if (json && 'stream' in json && typeof json.stream !== 'boolean')
        throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'stream must be true or false', { param: 'stream' });
      const streamOptions = json?.stream_options as { include_usage?: unknown } | undefined;
      call = {
        requestId: req.requestId ?? `req_${randomBytes(12).toString('hex')}`,
        route: match.route,
        params: match.params,
        caller,
        model,
        json,
        raw,
        form,
        stream,
        callerWantsUsage: streamOptions?.include_usage === true,
        signal: abort,
        metered: {},
        usageKnown: false,
        delivered: new Delivered(match.route.action === 'responses'),
        reservation: null,
        bodyChanged: false,
      };
      await this.reserve(call, res);
      await this.dispatch(call, req, res);
      this.finish(call, started, 'success', res.statusCode, null);
    } catch (error) {
      const gone = error instanceof ClientGoneError || abort.aborted;
      if (call) {
        const failure = gone ? null : toAppException(error, req);
        this.settleUnfinished(call);
        this.finish(call, started, gone ? 'client_closed' : failure!.status === 504 ? 'timeout' : failure!.status >= 500 ? 'upstream_error' : 'rejected', gone ? 499 : failure!.status, gone ? 'client_closed' : failure!.code.toLowerCase());
      } else if (requestedModel && !gone) {
        const failure = toAppException(error, req);
        this.usage.record({
          requestId: req.requestId ?? `req_${randomBytes(12).toString('hex')}`, userId: caller.userId, apiKeyId: caller.apiKeyId,
          oauthClientId: caller.oauthClientId, credentialName: caller.credentialName, method: match.route.action,
          model: requestedModel.slice(0, 200), provider: null, stream: json?.stream === true, status: 'rejected',
          httpStatus: failure.status, errorCode: failure.code.toLowerCase(), promptTokens: 0, completionTokens: 0,
          costMicros: 0, startedAt: started, endedAt: new Date(),
        });
      }
      if (gone) throw new ClientGoneError('client closed the request');
      if (res.headersSent) {
        // Mid-stream failure: tell the client in the stream (as OpenAI does) and end it.
        const failure = toAppException(error, req);
        res.end(`data: ${JSON.stringify({ error: { message: failure.message, type: 'server_error', code: failure.code.toLowerCase() } })}\n\n`);
        return;
      }
      throw error;
    } finally {
      if (form) await form.cleanup();
    }
  }

  private async resolveModel(
    route: GatewayRoute,
    params: Record<string, string>,
    caller: Caller,
    json: Record<string, unknown> | null,
    form: ParsedMultipart | null,
    note: (id: string) => void,
  ): Promise<CatalogModel> {
    let modelId: unknown;
    if (route.action === 'video_retrieve' || route.action === 'video_content' || route.action === 'video_remix') {
      modelId = await this.videos.modelOf(params.id, caller.userId);
      if (!modelId) throw new GatewayException(GatewayErrorCode.VIDEO_NOT_FOUND, `No video ${params.id}`, { param: 'video_id' });
    } else {
      modelId = json ? json.model : form?.field('model');
      if (typeof modelId !== 'string' || !modelId)
        throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'model is required: list them with GET /v1/models', { param: 'model' });
    }
    note(modelId as string);
    const model = this.catalog.find(modelId as string);
    if (!model) throw new GatewayException(GatewayErrorCode.MODEL_NOT_FOUND, `The model ${String(modelId).slice(0, 200)} does not exist`, { param: 'model' });
    const needed: ModelMethod = route.action === 'video_retrieve' || route.action === 'video_content' || route.action === 'video_remix' ? 'video_generation' : (route.action as ModelMethod);
    if (!model.methods.includes(needed))
      throw new GatewayException(GatewayErrorCode.UNSUPPORTED_METHOD, `The model ${model.id} does not support ${needed}; it supports ${model.methods.join(', ')}`, { param: 'model' });
    return model;
  }

  // ---- GET /models ------------------------------------------------------------------------------------------

  private listModels(req: GatewayRequest, res: Response): void {
    const query = new URLSearchParams(req.url!.slice(req.path.length + 1));
    const single = (name: string): string | undefined => {
      const values = query.getAll(name);
      if (!values.length) return undefined;
      const value = values[0];
      if (values.length > 1) throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, `${name} must be given once`, { param: name });
      return value;
    };
    const type = single('type');
    const method = single('method');
    const detailed = single('detailed');
    if (type && !(MODEL_TYPES as readonly string[]).includes(type))
      throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, `type must be one of ${MODEL_TYPES.join(', ')}`, { param: 'type' });
    if (method && !(MODEL_METHODS as readonly string[]).includes(method))
      throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, `method must be one of ${MODEL_METHODS.join(', ')}`, { param: 'method' });
    if (detailed !== undefined && detailed !== 'true' && detailed !== 'false')
      throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'detailed must be true or false', { param: 'detailed' });
    const models = this.catalog.list({ type, method, capability: single('capability') });
    if (detailed === 'false') writeJson(res, 200, models.map((model) => model.id));
    else writeJson(res, 200, { object: 'list', data: models.map((model) => this.catalog.toEntry(model)) });
  }

  private getModel(id: string, res: Response): void {
    const model = this.catalog.find(id);
    if (!model) throw new GatewayException(GatewayErrorCode.MODEL_NOT_FOUND, `The model ${id} does not exist`, { param: 'model' });
    writeJson(res, 200, this.catalog.toEntry(model));
  }

  // ---- dispatch to a provider -----------------------------------------------------------------------------

  /**
   * Sends the call to its model's provider, then to the model's fallbacks in order while a provider fails before
   * anything reached the caller (docs/gateway.md, Fallback models). A fallback is skipped when it lacks the
   * method or could cost more than the reservation holds; the answer names the model that served it.
   */
  private async dispatch(call: Call, req: GatewayRequest, res: Response): Promise<void> {
    const fallbacks = [...call.model.fallbacks];
    for (;;) {
      try {
        return await this.dispatchOnce(call, req, res);
      } catch (error) {
        if (!fallbacks.length || res.headersSent || call.delivered.count || call.signal.aborted || !worthFallingBack(error)) throw error;
        const next = this.nextFallback(call, fallbacks);
        if (!next) throw error;
        this.logger.warn({ msg: `${call.model.id} failed (${(error as AppException).code}); falling back to ${next.id}`, requestId: call.requestId });
        call.model = next;
        // Streamed chunks pass through untouched (their `model` is the provider's): the header names who served.
        res.setHeader(MODEL_HEADER, next.id);
      }
    }
  }

  private nextFallback(call: Call, remaining: string[]): CatalogModel | null {
    const needed = call.route.action as ModelMethod;
    while (remaining.length) {
      const model = this.catalog.find(remaining.shift()!);
      if (!model || !model.methods.includes(needed)) continue;
      const worst = estimateCall(call.route.action, model, call.json, call.form).worstMicros;
      if (worst <= (call.reservation?.amountMicros ?? 0)) return model;
    }
    return null;
  }

  private async dispatchOnce(call: Call, req: GatewayRequest, res: Response): Promise<void> {
    const provider = call.model.provider;
    const translator = TRANSLATORS[provider.type];
    if (translator) return this.viaTranslator(call, translator, req, res);
    if (provider.type === 'openai' && call.route.action === 'video_content') return this.proxyBinary(call, req, res);
    const upstream = provider.type === 'demo' ? await this.viaDemo(call) : await this.viaOpenAi(call, req);
    await this.relayOpenAiFormat(call, upstream, res);
  }

  /** The JSON sent upstream: the caller's bytes untouched unless the model name or usage request must change. */
  private openAiJsonBody(call: Call): string | Buffer | undefined {
    if (!call.json) return undefined;
    const streamsUsage = call.stream && (call.route.action === 'chat_completions' || call.route.action === 'completions');
    const renamed = call.json.model !== call.model.upstreamModel;
    if (!renamed && !call.bodyChanged && (!streamsUsage || call.callerWantsUsage)) return call.raw!;
    // The common stream (no stream_options at all): the option is put in front of the caller's own bytes.
    if (!renamed && !call.bodyChanged && !('stream_options' in call.json)) {
      const open = call.raw!.indexOf(0x7b); // the object's `{` (model is in it, so it is not empty)
      return Buffer.concat([call.raw!.subarray(0, open + 1), ASK_FOR_USAGE, call.raw!.subarray(open + 1)]);
    }
    const body: Record<string, unknown> = { ...call.json, model: call.model.upstreamModel };
    // Always ask for usage so streams can be billed exactly (decisions.md section 10).
    if (streamsUsage) body.stream_options = { ...(call.json.stream_options as object), include_usage: true };
    return JSON.stringify(body);
  }

  private upstreamPath(call: Call): string {
    return call.route.template.replace('{id}', encodeURIComponent(call.params.id ?? ''));
  }

  private async viaOpenAi(call: Call, req: GatewayRequest): Promise<UpstreamResponse> {
    const provider = call.model.provider;
    const headers: Record<string, string> = {
      ...forwardedRequestHeaders(call.form ? 'multipart' : 'json', req.headers),
      ...provider.headers,
      accept: call.stream ? 'text/event-stream' : 'application/json, */*',
    };
    if (provider.apiKey) headers.authorization = `Bearer ${provider.apiKey}`;
    let body: string | Buffer | Readable | undefined = this.openAiJsonBody(call);
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (call.form) {
      // Encoded as it is sent: the files stream from disk, never whole in memory.
      const encoded = new globalThis.Response(await call.form.toFormData({ model: call.model.upstreamModel }));
      headers['content-type'] = encoded.headers.get('content-type')!;
      body = Readable.fromWeb(encoded.body! as import('node:stream/web').ReadableStream);
    }
    return this.upstream.send({
      url: provider.baseUrl + this.upstreamPath(call),
      method: call.route.method,
      headers,
      body,
      signal: call.signal,
      timeoutMs: provider.timeoutMs,
    });
  }

  private async viaDemo(call: Call): Promise<UpstreamResponse> {
    const body = this.openAiJsonBody(call);
    const response = await this.demo.handle(
      {
        method: call.route.action as DemoMethod,
        publicModel: call.model.id,
        json: body === undefined ? this.formAsJson(call) : body === call.raw ? call.json : JSON.parse(body.toString()),
        form: call.form && call.route.body === 'multipart' ? await call.form.toFormData() : undefined,
        videoId: call.params.id,
        userKey: call.caller.userId,
      },
      call.signal.abortSignal,
    );
    return {
      status: response.status,
      headers: Object.fromEntries(response.headers),
      body: (response.body ?? (async function* () {})()) as AsyncIterable<Uint8Array>,
    };
  }

  /** A JSON route that arrived as multipart (POST /videos from the SDK): its plain fields as JSON. */
  private formAsJson(call: Call): Record<string, unknown> | undefined {
    if (!call.form || call.route.body !== 'json') return undefined;
    return Object.fromEntries([...call.form.fields].map(([name, values]) => [name, values[0]]));
  }

  /**
   * Binary downloads from an OpenAI-compatible provider pass through untouched (http-proxy-middleware). http-proxy
   * sends the request's own headers upstream, so they are replaced first by the allowlisted ones
   * (upstream/forwarded-headers.ts) and the provider's; a body (a GET may carry one) is read and dropped, so
   * nothing the caller sent is piped on.
   */
  private async proxyBinary(call: Call, req: GatewayRequest, res: Response): Promise<void> {
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
    (req as GatewayRequest & { upstreamPath?: string }).upstreamPath = this.upstreamPath(call);
    res.setHeader(COST_HEADER, '0');
    return new Promise<void>((resolve, reject) => {
      res.on('finish', () => (res.statusCode >= 500 ? reject(new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider failed')) : resolve()));
      res.on('close', () => resolve());
      proxy!(req, res, (error?: unknown) => reject(error ? upstreamFailure(error) : new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider failed')));
    });
  }

  // ---- answers in OpenAI's wire format (openai and demo providers) ----------------------------------------

  private async relayOpenAiFormat(call: Call, upstream: UpstreamResponse, res: Response): Promise<void> {
    const contentType = String(upstream.headers['content-type'] ?? '');
    if (upstream.status >= 400) throw this.upstreamError(call, upstream.status, await readText(upstream.body, undefined, call.signal));
    if (contentType.includes('text/event-stream')) return this.relayStream(call, res, sseSource(upstream.body, call.signal, (events) => events));
    if (contentType.includes('json')) {
      const text = await readText(upstream.body, 64 * 1024 * 1024, call.signal);
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(text) as Record<string, unknown>;
      } catch {
        throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider sent an unreadable answer');
      }
      return this.sendJson(call, upstream.status, body, res, text);
    }
    // Binary (speech audio, video content): streamed through, priced from the request.
    this.meterRequest(call);
    const cost = costMicros(call.model.pricing, call.metered);
    res.statusCode = upstream.status;
    for (const name of PASSED_HEADERS) {
      const value = upstream.headers[name];
      if (value !== undefined && name !== 'content-length') res.setHeader(name, String(value));
    }
    res.setHeader(COST_HEADER, String(toUnits(cost)));
    for await (const chunk of upstream.body) {
      if (!res.write(chunk)) await waitForDrain(res, call.signal);
    }
    res.end();
  }

  /** `original`: the upstream's own text of `body`, written into rather than re-serialised when it allows (answer-splice.ts). */
  private async sendJson(call: Call, status: number, body: Record<string, unknown>, res: Response, original?: string): Promise<void> {
    this.meterJson(call, body);
    const cost = costMicros(call.model.pricing, call.metered);
    if ((call.route.action === 'video_generation' || call.route.action === 'video_remix') && typeof body.id === 'string')
      await this.videos.insert(body.id, call.caller.userId, call.model.id);
    let text = original === undefined ? null : spliceAnswer(original, body, call.model.id, toUnits(cost));
    if (text === null) {
      if (typeof body.model === 'string') body.model = call.model.id;
      const usage = body.usage as Record<string, unknown> | undefined;
      if (usage && typeof usage === 'object') usage.cost = toUnits(cost);
      text = JSON.stringify(body);
    }
    res.writeHead(status, { [COST_HEADER]: String(toUnits(cost)), 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  }

  // ---- answers translated from other wire formats (anthropic, gemini) --------------------------------------

  private async viaTranslator(call: Call, translator: ChatTranslator, req: GatewayRequest, res: Response): Promise<void> {
    if (call.route.action !== 'chat_completions')
      throw new GatewayException(GatewayErrorCode.UNSUPPORTED_METHOD, `The ${call.model.provider.type} provider serves chat completions only`);
    const provider = call.model.provider;
    let spec;
    try {
      spec = await translator.buildRequest(call.json as never, {
        upstreamModel: call.model.upstreamModel,
        apiKey: provider.apiKey ?? '',
        fetchImage: async (url) => {
          const fetched = await guardedFetch(url, { allowedPorts: this.config.fetchAllowedPorts }).catch((error: unknown) => {
            // One answer for every refusal and failure (no host, port or reason for a caller to probe with).
            this.logger.debug({ msg: `image URL not fetched: ${error instanceof FetchRefusedError ? error.reason : 'unexpected error'}`, requestId: call.requestId });
            throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'An image URL in messages could not be fetched', { param: 'messages' });
          });
          return { mimeType: fetched.contentType.split(';')[0], data: fetched.body.toString('base64') };
        },
      });
    } catch (error) {
      if (error instanceof TranslationError) throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, error.message, { param: error.param });
      throw error;
    }
    const upstream = await this.upstream.send({
      url: provider.baseUrl + spec.path,
      method: spec.method,
      headers: { ...forwardedRequestHeaders('json', req.headers), ...provider.headers, ...spec.headers },
      body: spec.body,
      signal: call.signal,
      timeoutMs: provider.timeoutMs,
    });
    if (upstream.status >= 400) {
      const info = translator.parseError(upstream.status, await readText(upstream.body, undefined, call.signal));
      throw this.mapUpstreamStatus(info.status, info.message, info.code, call);
    }
    const context = { publicModel: call.model.id, id: `chatcmpl-${randomBytes(12).toString('hex')}`, created: Math.floor(Date.now() / 1000) };
    if (!call.stream) {
      const text = await readText(upstream.body, 64 * 1024 * 1024, call.signal);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider sent an unreadable answer');
      }
      return this.sendJson(call, 200, translator.parseResponse(parsed, context) as unknown as Record<string, unknown>, res);
    }
    const stream = translator.createStream({ ...context, includeUsage: true });
    /** The provider's events as OpenAI chunks; at the end, what the translator still held, and [DONE]. */
    const translate = (events: Frame[], end: boolean): Frame[] => {
      const frames: Frame[] = [];
      for (const event of events) {
        for (const chunk of stream.push(event)) frames.push({ data: JSON.stringify(chunk) });
        if (stream.error) throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, stream.error.message);
      }
      if (!end) return frames;
      for (const chunk of stream.finish()) frames.push({ data: JSON.stringify(chunk) });
      if (stream.error) throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, stream.error.message);
      frames.push({ data: '[DONE]' });
      return frames;
    };
    return this.relayStream(call, res, sseSource(upstream.body, call.signal, translate));
  }

  // ---- streaming -----------------------------------------------------------------------------------------

  /**
   * Relays SSE frames as they arrive (never buffered), metering on the way: usage from the final usage chunk
   * (chat, completions) or `response.completed` (responses), and the text actually delivered, for the bill
   * when the client leaves early. The usage chunk gets `usage.cost` and is passed on only if the caller asked.
   */
  private async relayStream(call: Call, res: Response, source: FrameSource): Promise<void> {
    res.writeHead(200, SSE_HEADERS);
    // The headers leave with the first frame (one write, not two), or on their own if the provider has sent none
    // within HEADERS_ALONE_MS (a model slow to start): the caller always sees the answer begin at once.
    let headersAlone: NodeJS.Timeout | undefined = setTimeout(() => {
      headersAlone = undefined;
      if (!res.writableEnded) res.flushHeaders();
    }, HEADERS_ALONE_MS);
    const responses = call.route.action === 'responses';
    let ended = false;
    // The frames of one upstream chunk go out in one write: as they came, never held for the next chunk.
    await source((frames) => {
      if (ended) return 'stop';
      let out = '';
      for (const frame of frames) {
        const data = this.meterFrame(call, frame.data, responses);
        if (data === null) continue;
        out += `${frame.event ? `event: ${frame.event}\n` : ''}data: ${data}\n\n`;
        // [DONE] is the last frame: end the answer now rather than when the upstream closes its end, so a client
        // that hangs up right after it (the SDKs do) is not taken for one that left early. Whatever the upstream
        // still sends is read and dropped, so its connection can go back to the pool.
        if (data === '[DONE]') {
          ended = true;
          res.end(out);
          return 'stop';
        }
      }
      if (!out) return;
      if (headersAlone) headersAlone = void clearTimeout(headersAlone);
      if (!res.write(out)) return waitForDrain(res, call.signal);
    }).finally(() => clearTimeout(headersAlone));
    if (!ended) res.end();
  }

  /**
   * Meters one frame and returns what to relay of it (null: nothing): usage from the final usage chunk (chat,
   * completions) or `response.completed` (responses); the frame itself is kept for the bill when the client leaves
   * early (Delivered). Only a frame that may carry usage is parsed. The usage chunk gets `usage.cost` and is passed
   * on only if the caller asked for it.
   */
  private meterFrame(call: Call, data: string, responses: boolean): string | null {
    if (data === '[DONE]' || !data.length) return data;
    call.delivered.add(data);
    if (!MAY_CARRY_USAGE.test(data)) return data;
    let chunk: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    try {
      chunk = JSON.parse(data);
    } catch {
      return data;
    }
    if (responses) {
      const usage = chunk.type === 'response.completed' ? chunk.response?.usage : undefined;
      if (!usage) return data;
      this.setTokens(call, usage.input_tokens, usage.output_tokens);
      usage.cost = toUnits(costMicros(call.model.pricing, call.metered));
      return JSON.stringify(chunk);
    }
    if (!chunk.usage) return data;
    this.setTokens(call, chunk.usage.prompt_tokens, chunk.usage.completion_tokens);
    if (!call.callerWantsUsage && !chunk.choices?.length) return null;
    chunk.usage.cost = toUnits(costMicros(call.model.pricing, call.metered));
    return JSON.stringify(chunk);
  }

  // ---- metering ------------------------------------------------------------------------------------------

  private setTokens(call: Call, prompt: unknown, completion: unknown): void {
    call.metered.promptTokens = Number(prompt) || 0;
    call.metered.completionTokens = Number(completion) || 0;
    call.usageKnown = true;
  }

  private meterJson(call: Call, body: Record<string, any>): void { // eslint-disable-line @typescript-eslint/no-explicit-any
    const usage = body.usage ?? {};
    switch (call.route.action) {
      case 'chat_completions':
      case 'completions':
      case 'embeddings':
        return this.setTokens(call, usage.prompt_tokens, usage.completion_tokens ?? 0);
      case 'responses':
        return this.setTokens(call, usage.input_tokens, usage.output_tokens);
      case 'image_generation':
      case 'image_edit':
      case 'image_variation':
        call.metered.images = Array.isArray(body.data) ? body.data.length : 0;
        call.usageKnown = true;
        return;
      case 'audio_transcription':
        if (usage.type === 'duration') call.metered.seconds = Number(usage.seconds) || 0;
        else this.setTokens(call, usage.input_tokens, usage.output_tokens);
        call.usageKnown = true;
        return;
      case 'video_generation':
      case 'video_remix':
        call.metered.seconds = Number(body.seconds) || 0;
        call.usageKnown = true;
        return;
      default:
        call.usageKnown = true;
    }
  }

  /** Costs known from the request alone (speech is priced by characters). */
  private meterRequest(call: Call): void {
    if (call.route.action === 'audio_speech') call.metered.characters = String(call.json?.input ?? '').length;
    call.usageKnown = true;
  }

  /**
   * A call that ended without the provider's usage (client gone, failure mid-stream) is billed by decisions.md
   * section 10: the estimated input plus the tokens actually delivered; nothing when nothing was delivered.
   */
  private settleUnfinished(call: Call): void {
    if (call.usageKnown) return;
    const delivered = call.delivered.text();
    if (!delivered) {
      call.metered = {};
      return;
    }
    call.metered = { promptTokens: estimateInputTokens(call.json), completionTokens: countTokens(delivered) };
  }

  /**
   * Holds the call's worst case against the budget before anything is forwarded (decisions.md section 10).
   * When the budget covers the input but not the whole output, the output-token limit is lowered to what it
   * covers and the answer says so in x-switchyard-max-tokens-capped; when it cannot cover even that, 403.
   */
  private async reserve(call: Call, res: Response): Promise<void> {
    const estimate = estimateCall(call.route.action, call.model, call.json, call.form);
    if (estimate.worstMicros <= 0) return;
    call.reservation = await this.budget.reserve({
      requestId: call.requestId,
      userId: call.caller.userId,
      apiKeyId: call.caller.apiKeyId,
      oauthClientId: call.caller.oauthClientId,
      worstMicros: estimate.worstMicros,
      minimumMicros: estimate.minimumMicros,
      inputEstimateMicros: costMicros(call.model.pricing, { promptTokens: estimate.inputTokens }),
    });
    if (call.reservation.amountMicros >= estimate.worstMicros) return;
    const n = Math.max(1, Number(call.json?.n) || 1);
    const tokens = estimate.output ? affordableOutputTokens(call.model, estimate, call.reservation.amountMicros, n) : 0;
    if (!estimate.output || tokens < 1 || !call.json) {
      const reservation = call.reservation;
      call.reservation = null;
      await this.budget.settle(reservation, 0, 'refused');
      throw this.budget.exhausted(reservation.amountMicros, 'Your remaining budget does not cover this call: add funds to continue');
    }
    call.json[estimate.output.field] = tokens;
    call.bodyChanged = true;
    res.setHeader('x-switchyard-max-tokens-capped', String(tokens));
  }

  /** Settles the reservation exactly once and queues the usage record, on every ending. Never throws. */
  private finish(call: Call, started: Date, status: UsageStatus, httpStatus: number, errorCode: string | null): void {
    const failedEmpty = status !== 'success' && status !== 'client_closed' && !call.delivered.count && !call.usageKnown;
    const generates = call.route.action === 'chat_completions' || call.route.action === 'completions' || call.route.action === 'responses';
    // Nothing is charged for a failed or empty call (decisions.md section 8).
    const empty = generates && call.usageKnown && !call.metered.completionTokens;
    const metered = failedEmpty ? {} : call.metered;
    const charged = status === 'success' || status === 'client_closed' || call.delivered.count ? costMicros(call.model.pricing, metered) : 0;
    const cost = empty ? 0 : charged;
    const reason = status === 'success' ? (empty ? 'no_output' : 'success') : status === 'client_closed' ? 'client_gone' : status;
    // Settlement debits min(cost, held) exactly once; the record is queued first so it never waits on the database.
    const reservation = call.reservation;
    call.reservation = null;
    const billed = reservation ? Math.min(cost, reservation.amountMicros) : cost;
    this.usage.record({
      requestId: call.requestId,
      userId: call.caller.userId,
      apiKeyId: call.caller.apiKeyId,
      oauthClientId: call.caller.oauthClientId,
      credentialName: call.caller.credentialName,
      method: call.route.action,
      model: call.model.id,
      provider: call.model.provider.id,
      stream: call.stream,
      status,
      httpStatus,
      errorCode,
      promptTokens: metered.promptTokens ?? 0,
      completionTokens: metered.completionTokens ?? 0,
      costMicros: billed,
      startedAt: started,
      endedAt: new Date(),
    });
    // Not awaited: the answer is out, and settlements are batched (up to 20 ms); holding the call open for it kept
    // every call's objects alive past a garbage collection or two. A shutdown flushes the batch after the drain.
    if (reservation) void this.budget.settle(reservation, cost, reason).catch(() => undefined);
  }

  // ---- upstream errors -----------------------------------------------------------------------------------

  private upstreamError(call: Call, status: number, text: string): AppException {
    let message = '';
    let code: string | null = null;
    try {
      const parsed = JSON.parse(text) as { error?: { message?: unknown; code?: unknown; type?: unknown } | string };
      if (typeof parsed.error === 'object' && parsed.error) {
        message = typeof parsed.error.message === 'string' ? parsed.error.message : '';
        code = typeof parsed.error.code === 'string' ? parsed.error.code : typeof parsed.error.type === 'string' ? parsed.error.type : null;
      } else if (typeof parsed.error === 'string') message = parsed.error;
    } catch {
      // not JSON: keep the generic message
    }
    return this.mapUpstreamStatus(status, message, code, call);
  }

  /** Never passes on the provider's URL or key, nor blames the caller for the gateway's own credentials. */
  private mapUpstreamStatus(status: number, message: string, code: string | null, call: Call): AppException {
    const clean = sanitize(message, call.model.provider.apiKey);
    if (status === 401 || status === 403)
      return new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider refused the gateway’s credentials; tell the operator of this Switchyard');
    if (status === 429) return new GatewayException(GatewayErrorCode.UPSTREAM_RATE_LIMITED, clean || 'The model provider is rate limiting; retry later');
    if (status >= 400 && status < 500) {
      const safeCode = code && /^[a-z0-9_.-]{1,64}$/i.test(code) ? code.toUpperCase() : 'INVALID_REQUEST';
      return new AppException(safeCode, status === 404 && call.model.provider.type !== 'demo' ? 400 : status, clean || 'The model provider rejected the request');
    }
    return new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, `The model provider failed (status ${status})`);
  }
}

/** A provider's own failure — unreachable, timed out, 5xx, rate limited — not the caller's request. */
function worthFallingBack(error: unknown): boolean {
  if (!(error instanceof AppException)) return false;
  return error.code === GatewayErrorCode.UPSTREAM_ERROR || error.code === GatewayErrorCode.UPSTREAM_TIMEOUT || error.code === GatewayErrorCode.UPSTREAM_RATE_LIMITED;
}

/** The translators' cleaning (URLs, keys in query strings), plus key-like tokens and the provider's own key. */
function sanitize(message: string, apiKey: string | null): string {
  let clean = sanitizeUpstreamMessage(message).replace(/\b(sk|rk|pk|sy|key)[-_][A-Za-z0-9_*-]{6,}/g, '[redacted]');
  if (apiKey && apiKey.length >= 6) clean = clean.split(apiKey).join('[redacted]');
  return clean;
}

function estimateInputTokens(json: Record<string, unknown> | null): number {
  if (!json) return 0;
  const texts: string[] = [];
  const walk = (value: unknown, key = ''): void => {
    if (typeof value === 'string') {
      if (key !== 'model' && key !== 'role' && key !== 'type' && !value.startsWith('data:')) texts.push(value);
    } else if (Array.isArray(value)) value.forEach((item) => walk(item, key));
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) walk(v, k);
  };
  walk(json.messages ?? json.input ?? json.prompt);
  if (typeof json.instructions === 'string') texts.push(json.instructions);
  return countTokens(texts.join('\n'));
}

/**
 * The frames of an upstream SSE body, chunk by chunk: each chunk's events through `toFrames`, and at the body's end
 * what the parser still held (`end` true). A read failure becomes the caller's error (upstreamFailure).
 */
function sseSource(body: UpstreamResponse['body'], signal: CancelSignal, toFrames: (events: Frame[], end: boolean) => Frame[]): FrameSource {
  const parser = new SseParser();
  return async (sink) => {
    const read = await eachChunk(body, (chunk) => sink(toFrames(parser.push(chunk), false)), (error) => upstreamFailure(error, signal));
    if (read === 'ended') await sink(toFrames(parser.flush(), true));
  };
}

function waitForDrain(res: Response, signal: CancelSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ClientGoneError('client closed the request'));
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      if (signal.aborted) reject(new ClientGoneError('client closed the request'));
      else resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}
