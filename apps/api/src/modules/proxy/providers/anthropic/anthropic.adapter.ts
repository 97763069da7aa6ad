import type { IncomingHttpHeaders } from 'node:http';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { APP_CONFIG } from '../../../../config/config.module';
import type { AppConfig } from '../../../../config/config.schema';
import type { AnswerSink } from '../../call/answer-sink';
import type { Call } from '../../call/call';
import type { CatalogModel } from '../../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../../errors/gateway.exception';
import { mapUpstreamStatus } from '../../errors/upstream-errors';
import { meterFrame, meterJson, setUsage } from '../../metering/metering';
import { AnswerRelay, sseSource } from '../../relay/relay';
import type { Cancel } from '../../upstream/cancel';
import { readText, UpstreamClient } from '../../upstream/upstream-client';
import { ANTHROPIC_MESSAGES } from '../../wire/formats';
import { Frame, type Json } from '../../wire/frame';
import { ProviderAdapters } from '../provider-adapters';
import { MAX_JSON_ANSWER, TranslatedAdapter } from '../translated.adapter';
import { filterBetas } from './anthropic-beta';
import { noteFeatureUse } from './anthropic-features';
import { anthropicTranslator } from './anthropic.translator';
import { ANTHROPIC_VERSION } from './anthropic.types';

/**
 * Anthropic's Messages API: chat completions translated (anthropic.translator.ts); a Messages call (the Anthropic
 * face's, docs/anthropic.md) taken natively, the caller's body as it came but for the model's name and the output
 * bound (thinking blocks and their signatures untouched), the answer relayed as the provider wrote it and metered
 * here (the translator reads each event: what was relayed, and the usage as it arrives).
 */
@Injectable()
export class AnthropicAdapter extends TranslatedAdapter {
  readonly kind = 'anthropic' as const;
  readonly formats = [ANTHROPIC_MESSAGES];
  private readonly betaLogger = new Logger('Gateway');

  constructor(
    upstream: UpstreamClient,
    relay: AnswerRelay,
    @Inject(APP_CONFIG) config: AppConfig,
    adapters: ProviderAdapters,
  ) {
    super(anthropicTranslator, upstream, relay, config, adapters);
  }

  override async dispatch(call: Call, sink: AnswerSink): Promise<void> {
    if (call.format !== ANTHROPIC_MESSAGES) return super.dispatch(call, sink);
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
      const body = this.parseJson(await readText(upstream.body, MAX_JSON_ANSWER, call.signal));
      noteFeatureUse(call, body);
      meterJson(call, this.translator.parseResponse(body, context) as unknown as Json);
      body.model = call.model.id;
      return this.relay.json(call, 200, body, sink);
    }
    // Every event passes as it came (the model's name aside); the translator reads it for the meter: what was
    // relayed, and the usage as it arrives (message_start's input and cache counts, then message_delta's).
    const meter = this.translator.createStream({ ...context, includeUsage: true });
    let usageSeen = 0;
    const metered = (frames: Frame[]): Frame[] => {
      for (const frame of frames) {
        const chunks = meter.push(frame);
        noteFeatureUse(call, frame.data);
        // The provider's error event is already in the caller's format: it is relayed as it came, and the call then
        // fails (below) with the answer already ended.
        if (meter.error) continue;
        const data = frame.data;
        if (data.includes('"thinking_delta"')) call.delivered.addText(thinkingOf(frame));
        for (const chunk of chunks) meterFrame(call, Frame.of(chunk), false);
        if (meter.usageSeen !== usageSeen) {
          usageSeen = meter.usageSeen;
          setUsage(call, meter.usageSoFar, 'chat', false);
          call.delivered.markUsage();
        }
        // message_delta carries the final usage: the call is charged when it ends (CallBilling.finish), and a charge
        // above the hold is settled exactly then; nothing in the stream waits for it.
        if (data.includes('"message_delta"'))
          for (const chunk of meter.finish()) meterFrame(call, Frame.of(chunk), false);
        if (data.includes('"message_start"')) renamed(frame, call);
      }
      return frames;
    };
    await this.relay.stream(call, sink, sseSource(upstream.body, call.signal, metered));
    const failed = meter.error;
    if (failed) throw mapUpstreamStatus(failed.status, failed.message, failed.code, call.model);
  }

  /** Betas off the documented list are never forwarded (anthropic-beta.ts): a debug line says which. */
  private droppedBetas(dropped: string[], requestId: string | null): void {
    this.betaLogger.debug({ msg: `anthropic-beta not forwarded: ${dropped.join(', ')}`, requestId });
  }

  /** The provider's own count of a Messages request's input tokens (its /messages/count_tokens): free. */
  async countTokens(
    model: CatalogModel,
    _format: string,
    json: Json,
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
 * caller's anthropic-beta values that are on the documented list (anthropic-beta.ts).
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

/** A thinking_delta's text, for the bill of a stream that ends without usage (the translator parsed it already). */
function thinkingOf(frame: Frame): string {
  const delta = frame.json()?.delta as { thinking?: unknown } | undefined;
  return typeof delta?.thinking === 'string' ? delta.thinking : '';
}

/** message_start names the model: the catalog's id, not the provider's. */
function renamed(frame: Frame, call: Call): void {
  const event = frame.json();
  const message = event?.message as { model?: unknown } | undefined;
  if (!event || !message || typeof message.model !== 'string') return;
  message.model = call.model.id;
  frame.replace(event);
}
