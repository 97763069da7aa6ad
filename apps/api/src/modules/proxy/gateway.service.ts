import { randomBytes, randomUUID } from 'node:crypto';
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
import { affordableOutputTokens, type Estimate, estimateCall, isPriced } from './budget-estimate';
import { CatalogService } from './catalog/catalog.service';
import type { CatalogModel } from './catalog/catalog.types';
import { applyOpenCors } from '../../common/http/open-cors';
import { FetchRefusedError, guardedFetch } from '../../common/net/fetch-guard';
import { type ContextRequest, newRequestId } from '../../common/http/request-context';
import { Lifecycle } from '../../common/lifecycle/lifecycle';
import { RateLimiterService } from '../../common/rate-limit/rate-limiter.service';
import type { Caller } from './credentials/caller';
import { CredentialRegistry } from './credentials/credential-registry';
import { GatewayErrorCode, GatewayException } from './gateway.exception';
import { costMicros, Metered, toUnits } from './pricing';
import { DemoProvider, type DemoMethod } from './providers/demo/demo-provider';
import { estimateTextTokens } from './prompt-size';
import { setTopLevelFields } from './json-fields';
import { SseParser } from './providers/sse';
import type { ChatTranslator } from './providers/translator.types';
import { sanitizeUpstreamMessage, TranslationError } from './providers/translator.types';
import { anthropicTranslator } from './providers/anthropic/anthropic.translator';
import { geminiTranslator } from './providers/gemini/gemini.translator';
import { discardBody, ParsedMultipart, readJsonBody, readMultipart } from './request-body';
import { Cancel, type CancelSignal } from './upstream/cancel';
import { spliceAnswer } from './answer-splice';
import { Delivered, MAY_CARRY_USAGE, outputText } from './delivered';
import { type ChunkVerdict, eachChunk } from './upstream/each-chunk';
import { forwardedRequestHeaders, PASSED_RESPONSE_HEADERS } from './upstream/forwarded-headers';
import { ClientGoneError, readText, UpstreamClient, upstreamFailure, UpstreamResponse } from './upstream/upstream-client';
import { VideoJobsRepository } from './video-jobs.repository';

export const COST_HEADER = 'x-switchyard-cost';
/** On an answer served by a fallback model: that model's id. */
export const MODEL_HEADER = 'x-switchyard-model';
/** The call's own id: what its ledger entry and its record in the activity name. */
export const CALL_ID_HEADER = 'x-switchyard-call-id';

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
  /** The server's own id of the call (random): the key of its reservation, ledger debit and usage record. */
  callId: string;
  /** The caller's X-Request-Id (or one made for it): for correlation only, never a key. */
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
  /** The provider accepted the call (answered 2xx): from then on, at least the input estimate is charged. */
  accepted: boolean;
  /** What a stream relayed (metered only if the call ends without the provider's usage). */
  delivered: Delivered;
  /** The call's worst case and input estimate (null for calls that cost nothing). */
  estimate: Estimate | null;
  reservation: Reservation | null;
  /** The output bound the gateway writes into the request, field by field (docs/budgets.md). */
  outputBound: Record<string, number> | null;
  /** Whether the caller's body already had one of those fields (else the bound is only put in front of it). */
  outputBoundReplaces: boolean;
  /** What the call was charged, when it was settled before its answer went out (a charge above its hold). */
  chargedMicros: number | null;
}

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  connection: 'keep-alive',
  'x-accel-buffering': 'no',
};
const ASK_FOR_USAGE = Buffer.from('"stream_options":{"include_usage":true}');
/** The Responses API events that end a stream, each with the response's usage. */
const FINAL_RESPONSE_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);
/** How long a stream's headers wait for its first frame, to leave in the same write. */
const HEADERS_ALONE_MS = 50;
const TRANSLATORS: Record<string, ChatTranslator> = { anthropic: anthropicTranslator, gemini: geminiTranslator };
const EXPOSED_HEADERS = `x-request-id, ${CALL_ID_HEADER}, ${COST_HEADER}, ${MODEL_HEADER}, x-switchyard-max-tokens-capped, retry-after`;
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
        callId: randomUUID(),
        requestId: req.requestId ?? newRequestId(),
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
        accepted: false,
        delivered: new Delivered(match.route.action === 'responses'),
        estimate: null,
        reservation: null,
        outputBound: null,
        outputBoundReplaces: false,
        chargedMicros: null,
      };
      res.setHeader(CALL_ID_HEADER, call.callId);
      await this.reserve(call, res);
      await this.dispatch(call, req, res);
      this.finish(call, started, 'success', res.statusCode, null);
    } catch (error) {
      const gone = error instanceof ClientGoneError || abort.aborted;
      if (call) {
        const failure = gone ? null : toAppException(error, req);
        this.finish(call, started, gone ? 'client_closed' : failure!.status === 504 ? 'timeout' : failure!.status >= 500 ? 'upstream_error' : 'rejected', gone ? 499 : failure!.status, gone ? 'client_closed' : failure!.code.toLowerCase());
      } else if (requestedModel && !gone) {
        const failure = toAppException(error, req);
        this.usage.record({
          callId: randomUUID(), requestId: req.requestId ?? newRequestId(), userId: caller.userId, apiKeyId: caller.apiKeyId,
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
        this.logger.warn({ msg: `${call.model.id} failed (${(error as AppException).code}); falling back to ${next.model.id}`, requestId: call.requestId });
        call.model = next.model;
        // The fallback's own output bound: its estimate read the bound already written, so it is never above it.
        call.estimate = next.estimate;
        const output = next.estimate.output;
        if (output) this.applyOutputBound(call, output.fields, output.callerLimit, output.tokens);
        // Streamed chunks pass through untouched (their `model` is the provider's): the header names who served.
        res.setHeader(MODEL_HEADER, next.model.id);
      }
    }
  }

  /** The next fallback that serves the method and whose worst case fits in what the call holds. */
  private nextFallback(call: Call, remaining: string[]): { model: CatalogModel; estimate: Estimate } | null {
    const needed = call.route.action as ModelMethod;
    while (remaining.length) {
      const model = this.catalog.find(remaining.shift()!);
      if (!model || !model.methods.includes(needed)) continue;
      let estimate: Estimate;
      try {
        estimate = estimateCall(call.route.action, model, call.json, call.form);
      } catch {
        continue; // this model cannot bound the request (an unknown context length): skip it
      }
      if (estimate.worstMicros <= (call.reservation?.amountMicros ?? 0) && (estimate.worstMicros > 0 || !isPriced(call.route.action, model)))
        return { model, estimate };
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

  /**
   * The JSON sent upstream: the caller's own bytes, with the output bound the gateway reserved for and the request
   * for a stream's usage written into them (setTopLevelFields), or re-serialised when the model name must change or
   * the caller's own stream_options must be merged.
   */
  private openAiJsonBody(call: Call): string | Buffer | undefined {
    if (!call.json) return undefined;
    const streamsUsage = call.stream && (call.route.action === 'chat_completions' || call.route.action === 'completions');
    const askForUsage = streamsUsage && !call.callerWantsUsage;
    const renamed = call.json.model !== call.model.upstreamModel;
    if (!renamed && !(askForUsage && 'stream_options' in call.json)) {
      if (!askForUsage && !call.outputBound) return call.raw!;
      return setTopLevelFields(call.raw!, call.outputBound ?? {}, askForUsage ? ASK_FOR_USAGE : null, call.outputBoundReplaces);
    }
    // call.json already holds the output bound.
    const body: Record<string, unknown> = { ...call.json, model: call.model.upstreamModel };
    // Always ask for usage so streams can be billed exactly (docs/budgets.md).
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
    call.accepted = true;
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
    // Binary or text (speech audio, a transcript as text): streamed through, priced from the request (speech) or
    // estimated from it.
    this.meterRequest(call);
    const cost = await this.charge(call);
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
    const cost = await this.charge(call);
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
    call.accepted = true;
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
   * (chat, completions) or the final response event (responses), and the text actually delivered, for the bill
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
    // The frames of one upstream chunk go out in one write: as they came, never held for the next chunk. `start`
    // and `metered`: where a chunk resumes after its usage frame waited for a charge above the hold to be written.
    const relay = (frames: Frame[], start: number, out: string, metered?: string | null): ChunkVerdict => {
      for (let i = start; i < frames.length; i += 1) {
        const data = i === start && metered !== undefined ? metered : this.meterFrame(call, frames[i].data, responses);
        if (data instanceof Promise) return data.then((settled) => void relay(frames, i, out, settled));
        if (data === null) continue;
        out += `${frames[i].event ? `event: ${frames[i].event}\n` : ''}data: ${data}\n\n`;
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
    };
    await source((frames) => (ended ? 'stop' : relay(frames, 0, ''))).finally(() => clearTimeout(headersAlone));
    if (!ended) res.end();
  }

  /**
   * Meters one frame and returns what to relay of it (null: nothing): usage from the final usage chunk (chat,
   * completions) or the final response event (responses); the frame itself is kept for the bill when the client leaves
   * early (Delivered). Only a frame that may carry usage is parsed. The usage chunk gets `usage.cost` and is passed
   * on only if the caller asked for it.
   */
  private meterFrame(call: Call, data: string, responses: boolean): string | null | Promise<string | null> {
    if (data === '[DONE]' || !data.length) return data;
    call.delivered.add(data);
    if (!MAY_CARRY_USAGE.test(data)) return data;
    let chunk: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- a provider's chunk, read defensively
    try {
      chunk = JSON.parse(data);
    } catch {
      return data;
    }
    let usage: Record<string, unknown> | undefined;
    if (responses) {
      // The last event carries the usage: completed, or incomplete (the output bound was reached), or failed.
      usage = FINAL_RESPONSE_EVENTS.has(chunk.type) ? chunk.response?.usage : undefined;
      if (!usage) return data;
      this.setTokens(call, usage.input_tokens, usage.output_tokens);
    } else {
      usage = chunk.usage;
      if (!usage) return data;
      this.setTokens(call, usage.prompt_tokens, usage.completion_tokens);
      if (!call.callerWantsUsage && !chunk.choices?.length) return null;
    }
    const withCost = (cost: number) => {
      usage!.cost = toUnits(cost);
      return JSON.stringify(chunk);
    };
    const cost = this.charge(call);
    return typeof cost === 'number' ? withCost(cost) : cost.then(withCost);
  }

  // ---- metering ------------------------------------------------------------------------------------------

  /**
   * Usage as the provider reported it. Every usage object of these APIs counts the prompt: one without that count
   * is no usage, and the call is then estimated rather than taken as free.
   */
  private setTokens(call: Call, prompt: unknown, completion: unknown): void {
    if (typeof prompt !== 'number') return;
    call.metered.promptTokens = Math.max(0, Number(prompt) || 0);
    call.metered.completionTokens = Math.max(0, Number(completion) || 0);
    call.usageKnown = true;
  }

  private meterJson(call: Call, body: Record<string, any>): void { // eslint-disable-line @typescript-eslint/no-explicit-any -- a provider's answer, read defensively
    const usage = body.usage && typeof body.usage === 'object' ? body.usage : {};
    switch (call.route.action) {
      case 'chat_completions':
      case 'completions':
      case 'embeddings':
        this.setTokens(call, usage.prompt_tokens, usage.completion_tokens);
        // No usage in the answer: what it delivered is estimated like a stream's (finish()).
        if (!call.usageKnown && Array.isArray(body.choices))
          for (const choice of body.choices) call.delivered.addText(typeof choice?.text === 'string' ? choice.text : '', choice?.message);
        return;
      case 'responses':
        this.setTokens(call, usage.input_tokens, usage.output_tokens);
        if (!call.usageKnown && Array.isArray(body.output)) call.delivered.addText('', body.output);
        return;
      case 'image_generation':
      case 'image_edit':
      case 'image_variation':
        if (!Array.isArray(body.data)) return;
        call.metered.images = body.data.length;
        call.usageKnown = true;
        return;
      case 'audio_transcription':
        if (usage.type === 'duration' && typeof usage.seconds === 'number') {
          call.metered.seconds = Math.max(0, usage.seconds);
          call.usageKnown = true;
        } else this.setTokens(call, usage.input_tokens, usage.output_tokens);
        return;
      case 'video_generation':
      case 'video_remix':
        if (!(Number(body.seconds) > 0)) return;
        call.metered.seconds = Number(body.seconds);
        call.usageKnown = true;
        return;
      default:
        call.usageKnown = true;
    }
  }

  /** Costs known from the request alone (speech is priced by characters); other binary answers are estimated. */
  private meterRequest(call: Call): void {
    if (call.route.action !== 'audio_speech') return;
    call.metered.characters = String(call.json?.input ?? '').length;
    call.usageKnown = true;
  }

  /**
   * What the call costs (docs/budgets.md, "What a call is charged"): price × usage when the provider reported it,
   * prompt included whatever the completion count; without it, once the provider accepted the call, the input
   * estimate plus everything relayed (text, tool arguments, reasoning, refusals, transcripts), never more than was
   * held; nothing for a call the provider never accepted.
   */
  private costOf(call: Call): number {
    if (call.usageKnown) return costMicros(call.model.pricing, call.metered);
    if (!call.accepted || !call.estimate) return 0;
    const input = call.estimate.inputEstimate;
    call.metered = { ...input, completionTokens: (input.completionTokens ?? 0) + estimateTextTokens(call.delivered.text()) };
    return Math.min(costMicros(call.model.pricing, call.metered), call.reservation?.amountMicros ?? 0);
  }

  /**
   * The call's charge for its answer (usage.cost, x-switchyard-cost), once its usage is known. A cost within what
   * the call held is settled as the call ends (batched) and is exactly what it is debited; a cost above it (the
   * provider produced more than the bound it was sent) is settled now, from the account's free balance as far as
   * it goes, and the answer states what was actually debited.
   */
  private charge(call: Call): number | Promise<number> {
    const cost = this.costOf(call);
    const reservation = call.reservation;
    if (!reservation || cost <= reservation.amountMicros) return cost;
    call.reservation = null;
    this.logger.warn({ msg: `${call.model.id} cost ${cost} µ, above the ${reservation.amountMicros} µ held`, requestId: call.requestId });
    return this.budget.settleExact(reservation, cost, 'success').then((charged) => (call.chargedMicros = charged));
  }

  /**
   * Holds the call's worst case against the budget before anything is forwarded, and writes the output bound it
   * assumed into the request (docs/budgets.md). When the budget covers the input but not the whole output, the
   * bound is lowered to what it covers and the answer says so in x-switchyard-max-tokens-capped; when it cannot
   * cover even that, 403. A priced call whose worst case comes out 0 is refused: it would be served free.
   */
  private async reserve(call: Call, res: Response): Promise<void> {
    const estimate = estimateCall(call.route.action, call.model, call.json, call.form);
    if (estimate.worstMicros <= 0) {
      if (isPriced(call.route.action, call.model))
        throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'The request has no input to bill: send a non-empty input', { param: 'input' });
      return;
    }
    call.estimate = estimate;
    call.reservation = await this.budget.reserve({
      id: call.callId,
      requestId: call.requestId,
      userId: call.caller.userId,
      apiKeyId: call.caller.apiKeyId,
      oauthClientId: call.caller.oauthClientId,
      worstMicros: estimate.worstMicros,
      minimumMicros: estimate.minimumMicros,
      inputEstimateMicros: estimate.inputEstimateMicros,
    });
    const output = estimate.output;
    if (!output) return;
    let tokens = output.tokens;
    if (call.reservation.amountMicros < estimate.worstMicros) {
      tokens = affordableOutputTokens(call.model, estimate, call.reservation.amountMicros);
      if (tokens < Math.min(1, output.tokens) || !call.json) {
        const reservation = call.reservation;
        call.reservation = null;
        await this.budget.settle(reservation, 0, 'refused');
        throw this.budget.exhausted(reservation.amountMicros, 'Your remaining budget does not cover this call: add funds to continue');
      }
      res.setHeader('x-switchyard-max-tokens-capped', String(tokens));
    }
    this.applyOutputBound(call, output.fields, output.callerLimit, tokens);
  }

  /** Writes `tokens` as the output bound unless the caller's own is already within it. */
  private applyOutputBound(call: Call, fields: string[], callerLimit: number | null, tokens: number): void {
    if (!call.json || (callerLimit !== null && callerLimit <= tokens)) return;
    call.outputBoundReplaces ||= fields.some((field) => field in call.json!);
    call.outputBound = {};
    for (const field of fields) call.outputBound[field] = call.json[field] = tokens;
  }

  /** Settles the reservation exactly once and queues the usage record, on every ending. Never throws. */
  private finish(call: Call, started: Date, status: UsageStatus, httpStatus: number, errorCode: string | null): void {
    const cost = call.chargedMicros ?? this.costOf(call);
    const reservation = call.reservation;
    call.reservation = null;
    const reason =
      status === 'success' ? (call.usageKnown && call.metered.completionTokens === 0 && call.estimate?.output ? 'no_output' : 'success')
      : status === 'client_closed' ? 'client_gone'
      : status;
    const record = (costMicros: number) =>
      this.usage.record({
        callId: call.callId,
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
        promptTokens: call.metered.promptTokens ?? 0,
        completionTokens: call.metered.completionTokens ?? 0,
        costMicros,
        startedAt: started,
        endedAt: new Date(),
      });
    if (!reservation) return record(cost);
    if (cost > reservation.amountMicros) {
      // Usage above the hold, reported after the answer had gone (a failure once the usage was in): settled at
      // its exact cost, recorded with what was actually charged.
      void this.budget.settleExact(reservation, cost, reason).then(record, () => record(0));
      return;
    }
    // The record is queued first so it never waits on the database; settlement debits exactly `cost` (within the
    // hold) once. Not awaited: the answer is out, and settlements are batched (up to 20 ms); holding the call
    // open for it kept every call's objects alive past a garbage collection or two. A shutdown flushes the batch
    // after the drain.
    record(cost);
    void this.budget.settle(reservation, cost, reason).catch(() => undefined);
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
