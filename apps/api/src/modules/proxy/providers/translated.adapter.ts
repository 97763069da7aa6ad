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
import { readText, UpstreamClient } from '../upstream/upstream-client';
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
    private readonly translator: ChatTranslator,
    private readonly upstream: UpstreamClient,
    private readonly relay: AnswerRelay,
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
    if (upstream.status >= 400) {
      const info = translator.parseError(upstream.status, await readText(upstream.body, undefined, call.signal));
      throw mapUpstreamStatus(info.status, info.message, info.code, call.model);
    }
    call.accepted = true;
    const context = {
      publicModel: call.model.id,
      id: `chatcmpl-${randomBytes(12).toString('hex')}`,
      created: Math.floor(Date.now() / 1000),
      usageNote: (problem: string) =>
        this.logger.warn({ msg: `${call.model.id} usage: ${problem}`, requestId: call.requestId }),
    };
    if (!call.stream) {
      const text = await readText(upstream.body, MAX_JSON_ANSWER, call.signal);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new GatewayException(GatewayErrorCode.UPSTREAM_ERROR, 'The model provider sent an unreadable answer');
      }
      return this.relay.json(
        call,
        200,
        translator.parseResponse(parsed, context) as unknown as Record<string, unknown>,
        sink,
      );
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
    return this.relay.stream(call, sink, sseSource(upstream.body, call.signal, translate));
  }
}

/** Anthropic's Messages API (providers/anthropic). */
@Injectable()
export class AnthropicAdapter extends TranslatedAdapter {
  constructor(upstream: UpstreamClient, relay: AnswerRelay, @Inject(APP_CONFIG) config: AppConfig) {
    super(anthropicTranslator, upstream, relay, config);
  }
}

/** Gemini's generateContent API (providers/gemini). */
@Injectable()
export class GeminiAdapter extends TranslatedAdapter {
  constructor(upstream: UpstreamClient, relay: AnswerRelay, @Inject(APP_CONFIG) config: AppConfig) {
    super(geminiTranslator, upstream, relay, config);
  }
}
