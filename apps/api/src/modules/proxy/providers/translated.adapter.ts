import { randomBytes } from 'node:crypto';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { FetchRefusedError, guardedFetch } from '../../../common/net/fetch-guard';
import { APP_CONFIG } from '../../../config/config.module';
import type { AppConfig } from '../../../config/config.schema';
import type { AnswerSink } from '../call/answer-sink';
import type { Call } from '../call/call';
import { GatewayErrorCode, GatewayException } from '../gateway.exception';
import { AnswerRelay, type Frame, sseSource } from '../relay/relay';
import { forwardedRequestHeaders } from '../upstream/forwarded-headers';
import { readText, UpstreamClient, type UpstreamResponse } from '../upstream/upstream-client';
import { meterFrame, meterUsageSoFar } from '../metering/metering';
import { filterBetas } from '../policy/anthropic-beta';
import { noteFeatureUse } from '../policy/feature-use';
import { ANTHROPIC_VERSION } from './anthropic/anthropic.types';
import type { IncomingHttpHeaders } from 'node:http';
import type { CatalogModel } from '../catalog/catalog.types';
import type { Cancel } from '../upstream/cancel';
import { anthropicTranslator } from './anthropic/anthropic.translator';
import { geminiTranslator } from './gemini/gemini.translator';
import type { ProviderAdapter } from './provider-adapter';
import { type ChatTranslator, TranslationError } from './translator.types';
import { mapUpstreamStatus } from './upstream-errors';

/** The largest JSON answer read from a provider. */
const MAX_JSON_ANSWER = 64 * 1024 * 1024;

/**
 * A provider with a wire format of its own (Anthropic's Messages, Gemini's generateContent), reached through a
 * translator (providers/<kind>/): the OpenAI-format request is translated on the way up, the answer (JSON or
 * stream) on the way back, and relayed like any other. Chat completions only.
 */
class TranslatedAdapter implements ProviderAdapter {
  private readonly logger = new Logger('Gateway');

  constructor(
    protected readonly translator: ChatTranslator,
    protected readonly upstream: UpstreamClient,
    protected readonly relay: AnswerRelay,
    private readonly config: AppConfig,
  ) {}

  async dispatch(call: Call, sink: AnswerSink): Promise<void> {
    if (call.route.action !== 'chat_completions')
      throw new GatewayException(
        GatewayErrorCode.UNSUPPORTED_METHOD,
        `The ${call.model.provider.type} provider serves chat completions only`,
      );
    const { translator } = this;
    const provider = call.model.provider;
    let spec;
    try {
      spec = await translator.buildRequest(call.json as never, {
        upstreamModel: call.model.upstreamModel,
        apiKey: provider.apiKey ?? '',
        fetchImage: async (url) => {
          const fetched = await guardedFetch(url, { allowedPorts: this.config.fetchAllowedPorts }).catch(
            (error: unknown) => {
              // One answer for every refusal and failure (no host, port or reason for a caller to probe with).
              this.logger.debug({
                msg: `image URL not fetched: ${error instanceof FetchRefusedError ? error.reason : 'unexpected error'}`,
                requestId: call.requestId,
              });
              throw new GatewayException(
                GatewayErrorCode.INVALID_REQUEST,
                'An image URL in messages could not be fetched',
                { param: 'messages' },
              );
            },
          );
          return { mimeType: fetched.contentType.split(';')[0], data: fetched.body.toString('base64') };
        },
      });
    } catch (error) {
      if (error instanceof TranslationError)
        throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, error.message, { param: error.param });
      throw error;
    }
    const upstream = await this.upstream.send({
      url: provider.baseUrl + spec.path,
      method: spec.method,
      headers: { ...forwardedRequestHeaders('json', call.requestHeaders), ...provider.headers, ...spec.headers },
      body: spec.body,
      signal: call.signal,
      timeoutMs: provider.timeoutMs,
    });
    await this.accept(call, upstream);
    const context = this.context(call);
    if (!call.stream) {
      const parsed = this.parseJson(await readText(upstream.body, MAX_JSON_ANSWER, call.signal));
      return this.relay.json(
        call,
        200,
        translator.parseResponse(parsed, context) as unknown as Record<string, unknown>,
        sink,
      );
    }
    const stream = translator.createStream({ ...context, includeUsage: true });
    let usageSeen = 0;
    /**
     * The provider's events as OpenAI chunks; at the end, what the translator still held, and [DONE]. Usage an event
     * carried (Anthropic's message_start, Gemini's usageMetadata on each chunk) is metered at once, counting the
     * frames that event became (docs/budgets.md: a call that ends early is billed what was reported so far).
     */
    const translate = (events: Frame[], end: boolean): Frame[] => {
      const frames: Frame[] = [];
      for (const event of events) {
        for (const chunk of stream.push(event)) frames.push({ data: JSON.stringify(chunk) });
        if (stream.error) throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, stream.error.message);
        if (stream.usageSeen !== usageSeen) {
          usageSeen = stream.usageSeen;
          meterUsageSoFar(call, stream.usageSoFar, frames.length);
        }
      }
      if (!end) return frames;
      for (const chunk of stream.finish()) frames.push({ data: JSON.stringify(chunk) });
      if (stream.error) throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, stream.error.message);
      frames.push({ data: '[DONE]' });
      return frames;
    };
    return this.relay.stream(call, sink, sseSource(upstream.body, call.signal, translate));
  }

  /** Throws the provider's error answer (in the gateway's terms); else the provider accepted the call. */
  protected async accept(call: Call, upstream: UpstreamResponse): Promise<void> {
    if (upstream.status >= 400) {
      const info = this.translator.parseError(upstream.status, await readText(upstream.body, undefined, call.signal));
      throw mapUpstreamStatus(info.status, info.message, info.code, call.model);
    }
    call.accepted = true;
  }

  protected context(call: Call) {
    return {
      publicModel: call.model.id,
      id: `chatcmpl-${randomBytes(12).toString('hex')}`,
      created: Math.floor(Date.now() / 1000),
      usageNote: (problem: string) =>
        this.logger.warn({ msg: `${call.model.id} usage: ${problem}`, requestId: call.requestId }),
    };
  }

  protected parseJson(text: string): Record<string, unknown> {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
    } catch {
      // answered below
    }
    throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider sent an unreadable answer');
  }
}

/**
 * Anthropic's Messages API (providers/anthropic): chat completions translated; Anthropic's own Messages calls
 * (docs/anthropic.md) sent natively, the caller's body as it came but for the model's name and the output bound
 * (thinking blocks and their signatures untouched), the answer relayed as the provider wrote it and metered through
 * the translator (its usage read in OpenAI's format, cache reads and writes included).
 */
@Injectable()
export class AnthropicAdapter extends TranslatedAdapter {
  private readonly betaLogger = new Logger('Gateway');

  constructor(upstream: UpstreamClient, relay: AnswerRelay, @Inject(APP_CONFIG) config: AppConfig) {
    super(anthropicTranslator, upstream, relay, config);
  }

  override async dispatch(call: Call, sink: AnswerSink): Promise<void> {
    if (call.route.action !== 'messages') return super.dispatch(call, sink);
    const upstream = await this.upstream.send({
      url: call.model.provider.baseUrl + '/messages',
      method: 'POST',
      headers: anthropicHeaders(call.model, call.requestHeaders, call.stream, (dropped) =>
        this.droppedBetas(dropped, call.requestId),
      ),
      // call.json holds the output bound the call reserved for (and a thinking budget kept below it).
      body: JSON.stringify({ ...call.json, model: call.model.upstreamModel }),
      signal: call.signal,
      timeoutMs: call.model.provider.timeoutMs,
    });
    await this.accept(call, upstream);
    const context = this.context(call);
    if (!call.stream) {
      const text = await readText(upstream.body, MAX_JSON_ANSWER, call.signal);
      const body = this.parseJson(text);
      noteFeatureUse(call, body);
      const metered = this.translator.parseResponse(body, context) as unknown as Record<string, unknown>;
      body.model = call.model.id;
      return this.relay.json(call, 200, body, sink, undefined, metered);
    }
    // Every event passes as it came (the model's name aside); the translator reads it for the meter: what was
    // relayed, and the usage as it arrives (message_start's input and cache counts, then message_delta's).
    const meter = this.translator.createStream({ ...context, includeUsage: true });
    let usageSeen = 0;
    const frameOf = (data: string): string => {
      const chunks = meter.push({ data });
      noteFeatureUse(call, data);
      // The provider's error event is already in the caller's format: it is relayed as it came, and the call then
      // fails (below) with the answer already ended.
      if (meter.error) return data;
      if (data.includes('"thinking_delta"')) call.delivered.addText(thinkingOf(data));
      for (const chunk of chunks) meterFrame(call, JSON.stringify(chunk), false);
      if (meter.usageSeen !== usageSeen) {
        usageSeen = meter.usageSeen;
        meterUsageSoFar(call, meter.usageSoFar, 0);
      }
      // message_delta carries the final usage: the call is charged when it ends (CallBilling.finish), and a charge
      // above the hold is settled exactly then; nothing in the stream waits for it.
      if (data.includes('"message_delta"'))
        for (const chunk of meter.finish()) meterFrame(call, JSON.stringify(chunk), false);
      return data.includes('"message_start"') ? renamed(data, call) : data;
    };
    await this.relay.stream(
      call,
      sink,
      sseSource(upstream.body, call.signal, (events) => events),
      frameOf,
    );
    const failed = meter.error;
    if (failed) throw mapUpstreamStatus(failed.status, failed.message, failed.code, call.model);
  }

  /** Betas off the documented list are never forwarded (policy/anthropic-beta.ts): a debug line says which. */
  private droppedBetas(dropped: string[], requestId: string | null): void {
    this.betaLogger.debug({ msg: `anthropic-beta not forwarded: ${dropped.join(', ')}`, requestId });
  }

  /** The provider's own count of a Messages request's input tokens (its /messages/count_tokens): free. */
  async countTokens(
    model: CatalogModel,
    json: Record<string, unknown>,
    requestHeaders: IncomingHttpHeaders,
    signal: Cancel,
  ): Promise<number> {
    const { stream: _stream, max_tokens: _max, ...body } = json;
    const upstream = await this.upstream.send({
      url: model.provider.baseUrl + '/messages/count_tokens',
      method: 'POST',
      headers: anthropicHeaders(model, requestHeaders, false, (dropped) => this.droppedBetas(dropped, null)),
      body: JSON.stringify({ ...body, model: model.upstreamModel }),
      signal,
      timeoutMs: model.provider.timeoutMs,
    });
    if (upstream.status >= 400) {
      const info = this.translator.parseError(upstream.status, await readText(upstream.body, undefined, signal));
      throw mapUpstreamStatus(info.status, info.message, info.code, model);
    }
    const count = this.parseJson(await readText(upstream.body, MAX_JSON_ANSWER, signal)).input_tokens;
    if (typeof count !== 'number' || !Number.isFinite(count) || count < 0)
      throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider sent an unreadable answer');
    return count;
  }
}

/**
 * The headers of a native Messages call: the provider's key, the caller's anthropic-version, and those of the
 * caller's anthropic-beta values that are on the documented list (policy/anthropic-beta.ts).
 */
function anthropicHeaders(
  model: CatalogModel,
  requestHeaders: IncomingHttpHeaders,
  stream: boolean,
  dropped: (values: string[]) => void,
) {
  const provider = model.provider;
  const asked = (name: string) => {
    const value = requestHeaders[name];
    return typeof value === 'string' && value.length <= 256 ? value : undefined;
  };
  const betas = filterBetas(requestHeaders['anthropic-beta'], model);
  if (betas.dropped.length) dropped(betas.dropped);
  const beta = betas.passed;
  return {
    ...provider.headers,
    'x-api-key': provider.apiKey ?? '',
    'anthropic-version': asked('anthropic-version') ?? ANTHROPIC_VERSION,
    ...(beta ? { 'anthropic-beta': beta } : {}),
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
  };
}

/** A thinking_delta's text, for the bill of a stream that ends without usage. */
function thinkingOf(data: string): string {
  try {
    const event = JSON.parse(data) as { delta?: { thinking?: unknown } };
    return typeof event.delta?.thinking === 'string' ? event.delta.thinking : '';
  } catch {
    return '';
  }
}

/** message_start names the model: the catalog's id, not the provider's. */
function renamed(data: string, call: Call): string {
  try {
    const event = JSON.parse(data) as { message?: { model?: unknown } };
    if (!event.message || typeof event.message.model !== 'string') return data;
    event.message.model = call.model.id;
    return JSON.stringify(event);
  } catch {
    return data;
  }
}

/** Gemini's generateContent API (providers/gemini). */
@Injectable()
export class GeminiAdapter extends TranslatedAdapter {
  constructor(upstream: UpstreamClient, relay: AnswerRelay, @Inject(APP_CONFIG) config: AppConfig) {
    super(geminiTranslator, upstream, relay, config);
  }
}
