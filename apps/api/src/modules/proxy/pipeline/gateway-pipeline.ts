import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import type { ModelMethod } from '@switchyard/shared-dto';
import { toAppException } from '../../../common/errors/all-exceptions.filter';
import type { AppException } from '../../../common/errors/app.exception';
import { refusedLimitOfError, type UsageStatus } from '../../usage';
import { anthropicError } from '../../../common/errors/error-render';
import { GATEWAY_ROUTES, type GatewayRoute, type RouteMethod } from '../allowlist';
import { type Estimate, estimateCall, isBillable, isPriced } from '../billing/budget-estimate';
import { CallBilling } from '../billing/call-billing';
import type { AnswerSink } from '../call/answer-sink';
import type { Call } from '../call/call';
import { CatalogService } from '../catalog/catalog.service';
import type { CatalogModel } from '../catalog/catalog.types';
import type { Caller } from '../credentials/caller';
import { GatewayErrorCode, GatewayException } from '../gateway.exception';
import { MessagesAnswer } from '../messages/messages-answer';
import { checkMessagesRequest, toChatRequest } from '../messages/messages-request';
import { Delivered } from '../metering/delivered';
import { noFeatureUse } from '../policy/feature-use';
import { boundEstimate, type PolicyVerdict, pricedModel, requestPolicy, withWrites } from '../policy/request-policy';
import { ProviderAdapters } from '../providers/provider-adapters';
import { worthFallingBack } from '../providers/upstream-errors';
import type { ParsedMultipart } from '../request-body';
import type { Cancel } from '../upstream/cancel';
import { ClientGoneError } from '../upstream/upstream-client';
import { VideoJobsRepository } from '../video-jobs.repository';

/** On an answer served by a fallback model: that model's id. */
export const MODEL_HEADER = 'x-switchyard-model';
/** The call's own id: what its ledger entry and its record in the activity name. */
export const CALL_ID_HEADER = 'x-switchyard-call-id';

const CHAT_ROUTE = GATEWAY_ROUTES.find((route) => route.action === 'chat_completions')!;

/** The catalog method a route's model must list: Anthropic's Messages are served by chat models. */
export function modelMethodOf(action: RouteMethod): ModelMethod {
  return action === 'messages' || action === 'count_tokens' ? 'chat_completions' : (action as ModelMethod);
}

/** A call as it enters the pipeline: authenticated, its body read. */
export interface CallInput {
  route: GatewayRoute;
  params: Record<string, string>;
  caller: Caller;
  requestId: string;
  requestHeaders: IncomingHttpHeaders;
  json: Record<string, unknown> | null;
  raw: Buffer | null;
  form: ParsedMultipart | null;
  signal: Cancel;
  /** For error lines: the path the call came on ('/v1/…' for calls made in-process). */
  path: string;
}

/**
 * The gateway's steps for one call (docs/architecture.md, "The call pipeline"): model → reservation and output bound
 * (billing) → provider, through its adapter, with the model's fallbacks → relay and metering → charge, settlement
 * and usage record, exactly once on every ending. Over HTTP the answer goes to node's response (GatewayService);
 * in-process (Spaces) to a CollectedAnswer.
 */
@Injectable()
export class GatewayPipeline {
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly catalog: CatalogService,
    private readonly billing: CallBilling,
    private readonly adapters: ProviderAdapters,
    private readonly videos: VideoJobsRepository,
  ) {}

  /**
   * Runs the call, writing its answer to `sink`. Throws what the caller must hear before any answer began (the
   * error is rendered by the caller of run), or ClientGoneError; a failure once a stream began ends the stream
   * with an error event. `req`: the HTTP request, for adapters that pipe it on (binary downloads).
   */
  async run(input: CallInput, sink: AnswerSink, req: IncomingMessage | null): Promise<void> {
    const startedAt = new Date();
    const calledAs = input.route.action;
    const errored = { path: input.path, requestId: input.requestId };
    let call: Call | null = null;
    let requestedModel = '';
    try {
      const model = await this.resolveModel(input, (id) => (requestedModel = id));
      const { json } = input;
      if (json && 'stream' in json && typeof json.stream !== 'boolean')
        throw new GatewayException(GatewayErrorCode.INVALID_REQUEST, 'stream must be true or false', {
          param: 'stream',
        });
      // Nothing is reserved or forwarded that the request policy refuses (policy/request-policy.ts).
      const policy = requestPolicy(input.route.action, model, input.json, input.form);
      if (calledAs === 'messages') ({ input, sink } = messagesCall(input, model, sink));
      input = { ...input, ...withWrites(input, policy) };
      call = newCall(input, pricedModel(model, policy), startedAt, calledAs, policy);
      sink.setHeader(CALL_ID_HEADER, call.callId);
      await this.billing.reserve(call, sink);
      await this.dispatch(call, sink, req);
      this.billing.finish(call, 'success', sink.statusCode, null);
    } catch (error) {
      const gone = error instanceof ClientGoneError || input.signal.aborted;
      if (call) {
        const failure = gone ? null : toAppException(error, errored);
        this.billing.finish(
          call,
          gone ? 'client_closed' : endingOf(failure!),
          gone ? 499 : failure!.status,
          gone ? 'client_closed' : failure!.code.toLowerCase(),
          failure && refusedLimitOfError(failure),
        );
      } else if (requestedModel && !gone) {
        this.billing.recordRefused(
          input.caller,
          input.route,
          input.requestId,
          requestedModel,
          input.json?.stream === true,
          toAppException(error, errored),
          startedAt,
        );
      }
      if (gone) throw new ClientGoneError('client closed the request');
      if (sink.headersSent) {
        // Mid-stream failure: tell the client in the stream (as OpenAI and Anthropic do) and end it, unless the
        // provider's own error event, in the caller's format, already ended it (a native Messages stream).
        if (sink.writableEnded) return;
        const failure = toAppException(error, errored);
        sink.end(
          calledAs === 'messages'
            ? `event: error\ndata: ${JSON.stringify(anthropicError(failure.status, failure.message))}\n\n`
            : `data: ${JSON.stringify({ error: { message: failure.message, type: 'server_error', code: failure.code.toLowerCase() } })}\n\n`,
        );
        return;
      }
      throw error;
    }
  }

  private async resolveModel(input: CallInput, note: (id: string) => void): Promise<CatalogModel> {
    const { route, params, caller, json, form } = input;
    const video =
      route.action === 'video_retrieve' || route.action === 'video_content' || route.action === 'video_remix';
    let modelId: unknown;
    if (video) {
      modelId = await this.videos.modelOf(params.id, caller.userId);
      if (!modelId)
        throw new GatewayException(GatewayErrorCode.VIDEO_NOT_FOUND, `No video ${params.id}`, { param: 'video_id' });
    } else {
      modelId = json ? json.model : form?.field('model');
      if (typeof modelId !== 'string' || !modelId)
        throw new GatewayException(
          GatewayErrorCode.INVALID_REQUEST,
          'model is required: list them with GET /v1/models',
          { param: 'model' },
        );
    }
    note(modelId as string);
    const model = this.catalog.find(modelId as string);
    if (!model)
      throw new GatewayException(
        GatewayErrorCode.MODEL_NOT_FOUND,
        `The model ${String(modelId).slice(0, 200)} does not exist`,
        { param: 'model' },
      );
    const needed: ModelMethod = video ? 'video_generation' : modelMethodOf(route.action);
    if (!model.methods.includes(needed))
      throw new GatewayException(
        GatewayErrorCode.UNSUPPORTED_METHOD,
        `The model ${model.id} does not support ${needed}; it supports ${model.methods.join(', ')}`,
        { param: 'model' },
      );
    return model;
  }

  /**
   * Sends the call to its model's provider, then to the model's fallbacks in order while a provider fails before
   * anything reached the caller (docs/gateway.md, Fallback models). A fallback is skipped when it lacks the
   * method or could cost more than the reservation holds; the answer names the model that served it.
   */
  private async dispatch(call: Call, sink: AnswerSink, req: IncomingMessage | null): Promise<void> {
    const fallbacks = [...call.model.fallbacks];
    for (;;) {
      try {
        return await this.adapters.of(call.model.provider.type).dispatch(call, sink, req);
      } catch (error) {
        if (
          !fallbacks.length ||
          sink.headersSent ||
          call.delivered.count ||
          call.signal.aborted ||
          !worthFallingBack(error)
        )
          throw error;
        const next = this.nextFallback(call, fallbacks);
        if (!next) throw error;
        this.logger.warn({
          msg: `${call.model.id} failed (${(error as AppException).code}); falling back to ${next.model.id}`,
          requestId: call.requestId,
        });
        call.model = next.model;
        call.policy = next.policy;
        // The fallback's own output bound: its estimate read the bound already written, so it is never above it.
        call.estimate = next.estimate;
        const output = next.estimate.output;
        if (output) this.billing.applyOutputBound(call, output.fields, output.callerLimit, output.tokens);
        // Streamed chunks pass through untouched (their `model` is the provider's): the header names who served.
        sink.setHeader(MODEL_HEADER, next.model.id);
      }
    }
  }

  /** The next fallback that serves the method and whose worst case fits in what the call holds. */
  private nextFallback(
    call: Call,
    remaining: string[],
  ): { model: CatalogModel; estimate: Estimate; policy: PolicyVerdict } | null {
    const needed = modelMethodOf(call.route.action);
    while (remaining.length) {
      const listed = this.catalog.find(remaining.shift()!);
      if (!listed || !listed.methods.includes(needed)) continue;
      // A Messages call sent natively stays with Anthropic's format: its fallbacks are Anthropic models.
      if (call.route.action === 'messages' && listed.provider.type !== 'anthropic') continue;
      let estimate: Estimate;
      let policy: PolicyVerdict;
      let model: CatalogModel;
      try {
        // The fallback's own policy: a feature its catalog entry does not enable (or price) skips it.
        policy = requestPolicy(call.route.action, listed, call.json, call.form);
        model = pricedModel(listed, policy);
        estimate = boundEstimate(estimateCall(call.route.action, model, call.json, call.form), model, policy);
      } catch {
        continue; // this model cannot bound the request (an unknown context length) or refuses it: skip it
      }
      // A model that would be refused on its own (no price, not free) is no fallback either.
      if (!model.free && isBillable(call.route.action) && !isPriced(call.route.action, model)) continue;
      if (
        estimate.worstMicros <= (call.reservation?.amountMicros ?? 0) &&
        (estimate.worstMicros > 0 || !isPriced(call.route.action, model))
      )
        return { model, estimate, policy };
    }
    return null;
  }
}

/**
 * A Messages call (Anthropic's format; docs/anthropic.md), checked; for a model not on an Anthropic provider,
 * translated into a chat completion, its answer translated back on the way out (messages/messages-answer.ts).
 */
function messagesCall(input: CallInput, model: CatalogModel, sink: AnswerSink): { input: CallInput; sink: AnswerSink } {
  const json = input.json ?? {};
  checkMessagesRequest(json);
  if (model.provider.type === 'anthropic') return { input, sink };
  const chat = toChatRequest(json, model, (fields) =>
    translationLog.debug({ msg: `not translated for ${model.id}: ${fields.join(', ')}`, requestId: input.requestId }),
  );
  return {
    input: { ...input, route: CHAT_ROUTE, json: chat, raw: Buffer.from(JSON.stringify(chat)) },
    sink: new MessagesAnswer(sink, model.id, json.stream === true),
  };
}

/** The fields a Messages request loses in translation, named at debug level. */
const translationLog = new Logger('Gateway');

function newCall(
  input: CallInput,
  model: CatalogModel,
  startedAt: Date,
  calledAs: RouteMethod,
  policy: PolicyVerdict,
): Call {
  const streamOptions = input.json?.stream_options as { include_usage?: unknown } | undefined;
  return {
    calledAs,
    callId: randomUUID(),
    requestId: input.requestId,
    route: input.route,
    params: input.params,
    caller: input.caller,
    model,
    requestHeaders: input.requestHeaders,
    json: input.json,
    raw: input.raw,
    form: input.form,
    stream: input.json?.stream === true,
    // A translated Messages call's usage chunk becomes its message_delta's usage.
    callerWantsUsage: streamOptions?.include_usage === true || calledAs === 'messages',
    signal: input.signal,
    startedAt,
    metered: {},
    reportedUsage: {},
    usageKnown: false,
    usageFinal: false,
    accepted: false,
    delivered: new Delivered(input.route.action === 'responses'),
    estimate: null,
    reservation: null,
    outputBound: null,
    outputBoundReplaces: false,
    chargedMicros: null,
    firstByteAt: null,
    policy,
    featureUse: noFeatureUse(),
  };
}

/** How a failed call ended, for its usage record and money trace. */
function endingOf(failure: AppException): UsageStatus {
  return failure.status === 504 ? 'timeout' : failure.status >= 500 ? 'upstream_error' : 'rejected';
}
