import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { toAppException } from '../../../common/errors/all-exceptions.filter';
import type { AppException } from '../../../common/errors/app.exception';
import { refusedLimitOfError, type UsageStatus } from '../../usage';
import { boundEstimate, pricedModel } from '../billing/bounded-estimate';
import { type Estimate, estimateCall, isBillable, isPriced } from '../billing/budget-estimate';
import { CallBilling } from '../billing/call-billing';
import type { AnswerSink } from '../call/answer-sink';
import { Call, OPENAI_FORMAT } from '../call/call';
import { catalogMethodOf } from '../catalog/actions';
import { CatalogService } from '../catalog/catalog.service';
import type { CatalogModel } from '../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import { worthFallingBack } from '../errors/upstream-errors';
import type { Face, FaceContext, FaceInput } from '../faces/face';
import type { PolicyVerdict } from '../policy/verdict';
import { ProviderAdapters } from '../providers/provider-adapters';
import type { Cancel } from '../upstream/cancel';
import { ClientGoneError } from '../upstream/upstream-client';
import type { Json } from '../wire/frame';

/** On an answer served by a fallback model: that model's id. */
export const MODEL_HEADER = 'x-switchyard-model';
/** The call's own id: what its ledger entry and its record in the activity name. */
export const CALL_ID_HEADER = 'x-switchyard-call-id';

/** A call as it enters the pipeline: authenticated, its body read, and the face it came through. */
export interface CallInput extends FaceInput {
  face: Face;
}

/**
 * The gateway's steps for one call (docs/architecture.md, "The call pipeline"): model → the face's request (its
 * checks and request policy, its translation) → reservation and output bound (billing) → provider, through its
 * adapter, with the model's fallbacks → relay, metering and the face's writer → charge, settlement and usage record,
 * exactly once on every ending. Over HTTP the answer goes to node's response (GatewayService); in-process (Spaces)
 * to a CollectedAnswer.
 */
@Injectable()
export class GatewayPipeline {
  private readonly logger = new Logger('Gateway');
  /** What faces may ask of the providers. */
  readonly context: FaceContext;

  constructor(
    private readonly catalog: CatalogService,
    private readonly billing: CallBilling,
    private readonly adapters: ProviderAdapters,
  ) {
    this.context = {
      takes: (model, format) => adapters.takes(model, format),
      countTokens: (model, format, json: Json, headers: IncomingHttpHeaders, signal: Cancel) =>
        adapters.countTokens(model, format, json, headers, signal),
    };
  }

  /**
   * Runs the call, writing its answer to `sink`. Throws what the caller must hear before any answer began (the
   * error is rendered by the caller of run, in the face's shape), or ClientGoneError; a failure once a stream began
   * ends the stream with the face's error event. `req`: the HTTP request, for adapters that pipe it on (binary
   * downloads).
   */
  async run(input: CallInput, sink: AnswerSink, req: IncomingMessage | null): Promise<void> {
    const startedAt = new Date();
    const errored = { path: input.path, requestId: input.requestId };
    let call: Call | null = null;
    let requestedModel = '';
    try {
      const asked = input.face.modelId(input);
      requestedModel = typeof asked === 'string' ? asked : await asked;
      const model = this.resolveModel(requestedModel, input);
      const request = input.face.prepare(input, model, this.context);
      call = new Call(input, startedAt, pricedModel(model, request.policy), request);
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
        // Mid-stream failure: tell the client in the stream, in its face's format (as OpenAI and Anthropic do), and
        // end it, unless the provider's own error event, in the caller's format, already ended it (a native stream).
        if (sink.writableEnded) return;
        sink.end(call ? call.writer.streamError(call, toAppException(error, errored)) : '');
        return;
      }
      throw error;
    }
  }

  /** The model the call names: it must exist and list the route's catalog method. */
  private resolveModel(id: string, input: FaceInput): CatalogModel {
    const model = this.catalog.find(id);
    if (!model)
      throw new GatewayException(GatewayErrorCode.MODEL_NOT_FOUND, `The model ${id.slice(0, 200)} does not exist`, {
        param: 'model',
      });
    const needed = catalogMethodOf(input.route.action);
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
        // The fallback's own output bound: its estimate read the bound already written, so it is never above it.
        call.switchTo(next.model, next.policy, next.estimate);
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
    const needed = catalogMethodOf(call.route.action);
    while (remaining.length) {
      const listed = this.catalog.find(remaining.shift()!);
      if (!listed || !listed.methods.includes(needed)) continue;
      // A call sent in a provider's own format stays in it: its fallbacks are models whose provider takes it too.
      if (call.format !== OPENAI_FORMAT && !this.adapters.takes(listed, call.format)) continue;
      let estimate: Estimate;
      let policy: PolicyVerdict;
      let model: CatalogModel;
      try {
        // The fallback's own policy: a feature its catalog entry does not enable (or price) skips it.
        policy = call.policyFor(listed);
        model = pricedModel(listed, policy);
        estimate = boundEstimate(
          estimateCall(call.route.action, model, call.json, call.form, call.outputFields),
          model,
          policy,
        );
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

/** How a failed call ended, for its usage record and money trace. */
function endingOf(failure: AppException): UsageStatus {
  return failure.status === 504 ? 'timeout' : failure.status >= 500 ? 'upstream_error' : 'rejected';
}
