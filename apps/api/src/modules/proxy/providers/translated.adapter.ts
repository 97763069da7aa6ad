import { randomBytes } from 'node:crypto';
import { Logger, OnModuleInit } from '@nestjs/common';
import { FetchRefusedError, guardedFetch } from '../../../common/net/fetch-guard';
import type { AppConfig } from '../../../config/config.schema';
import type { AnswerSink } from '../call/answer-sink';
import type { Call } from '../call/call';
import type { ProviderType } from '../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import { mapUpstreamStatus } from '../errors/upstream-errors';
import { meterFrame, meterJson, setUsage } from '../metering/metering';
import { AnswerRelay, sseSource } from '../relay/relay';
import { forwardedRequestHeaders } from '../upstream/forwarded-headers';
import { readText, UpstreamClient, type UpstreamResponse } from '../upstream/upstream-client';
import { Frame, type Json } from '../wire/frame';
import type { ProviderAdapter } from './provider-adapter';
import type { ProviderAdapters } from './provider-adapters';
import { type ChatTranslator, TranslationError } from './translator.types';

/** The largest JSON answer read from a provider. */
export const MAX_JSON_ANSWER = 64 * 1024 * 1024;

/**
 * A provider with a wire format of its own (Anthropic's Messages, Gemini's generateContent), reached through a
 * translator (providers/<kind>/): the OpenAI-format request is translated on the way up, the answer (JSON or
 * stream) on the way back into OpenAI's format, metered as it comes, and relayed like any other. Chat completions
 * only. Each kind's adapter extends it and registers itself.
 */
export abstract class TranslatedAdapter implements ProviderAdapter, OnModuleInit {
  abstract readonly kind: ProviderType;
  private readonly logger = new Logger('Gateway');

  constructor(
    protected readonly translator: ChatTranslator,
    protected readonly upstream: UpstreamClient,
    protected readonly relay: AnswerRelay,
    private readonly config: AppConfig,
    private readonly adapters: ProviderAdapters,
  ) {}

  onModuleInit(): void {
    this.adapters.register(this);
  }

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
      const completion = translator.parseResponse(parsed, context) as unknown as Json;
      meterJson(call, completion);
      return this.relay.json(call, 200, completion, sink);
    }
    const stream = translator.createStream({ ...context, includeUsage: true });
    let usageSeen = 0;
    /**
     * The provider's events as OpenAI chunks, each metered as it is made; at the end, what the translator still held,
     * and [DONE]. Usage an event carried (Anthropic's message_start, Gemini's usageMetadata on each chunk) is metered
     * at once, after the frames that event became (docs/budgets.md: a call that ends early is billed what was
     * reported so far).
     */
    const translate = (events: Frame[], end: boolean): Frame[] => {
      const frames: Frame[] = [];
      const add = (chunk: object) => {
        const frame = Frame.of(chunk);
        meterFrame(call, frame, false);
        frames.push(frame);
      };
      for (const event of events) {
        for (const chunk of stream.push(event)) add(chunk);
        if (stream.error) throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, stream.error.message);
        if (stream.usageSeen !== usageSeen) {
          usageSeen = stream.usageSeen;
          setUsage(call, stream.usageSoFar, 'chat', false);
          call.delivered.markUsage();
        }
      }
      if (!end) return frames;
      for (const chunk of stream.finish()) add(chunk);
      if (stream.error) throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, stream.error.message);
      const done = new Frame('[DONE]');
      meterFrame(call, done, false);
      frames.push(done);
      return frames;
    };
    return this.relay.stream(call, sink, sseSource(upstream.body, call.signal, translate));
  }

  /** Throws the provider's error answer (in the gateway's terms); else the provider accepted the call. */
  protected async accept(call: Call, upstream: UpstreamResponse): Promise<void> {
    if (upstream.status >= 400) {
      const info = this.translator.parseError(upstream.status, await readText(upstream.body, undefined, call.signal));
      throw mapUpstreamStatus(info.status, info.message, info.code, call.model, upstream.headers);
    }
    call.accept();
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

  protected parseJson(text: string): Json {
    try {
      const parsed: unknown = JSON.parse(text);
      if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Json;
    } catch {
      // answered below
    }
    throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider sent an unreadable answer');
  }
}
