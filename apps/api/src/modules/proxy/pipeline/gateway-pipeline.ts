import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Injectable, Logger } from '@nestjs/common';
import { toAppException } from '../../../common/errors/all-exceptions.filter';
import type { AppException } from '../../../common/errors/app.exception';
import { refusedLimitOfError, type UsageStatus } from '../../usage';
import { pricedModel } from '../billing/bounded-estimate';
import { CallBilling } from '../billing/call-billing';
import type { AnswerSink } from '../call/answer-sink';
import { Call } from '../call/call';
import { catalogMethodOf } from '../catalog/actions';
import { CatalogService } from '../catalog/catalog.service';
import type { CatalogModel, Deployment } from '../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import type { Face, FaceContext, FaceInput } from '../faces/face';
import { ProviderAdapters } from '../providers/provider-adapters';
import { tryCandidates } from '../routing/attempt-loop';
import { NO_PREFERENCES, type ProviderPreferences, readPreferences } from '../routing/preferences';
import { CallAttempts } from '../routing/retry-policy';
import { RoutingService } from '../routing/routing.service';
import type { Cancel } from '../upstream/cancel';
import { ClientGoneError } from '../upstream/upstream-client';
import type { Json } from '../wire/frame';
import { CallRoutes, type Planned, type Route, takesPreferences, withoutPreferences } from './call-routes';

/** On an answer served by a fallback model: that model's id. */
export const MODEL_HEADER = 'x-switchyard-model';
/** On every answer from a provider: the catalog's id of the provider (the deployment) that served it. */
export const PROVIDER_HEADER = 'x-switchyard-provider';
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
  private readonly routes: CallRoutes;

  constructor(
    private readonly catalog: CatalogService,
    private readonly billing: CallBilling,
    private readonly adapters: ProviderAdapters,
    private readonly routing: RoutingService,
  ) {
    this.routes = new CallRoutes(routing, adapters);
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
      const preferences = this.preferencesOf(input, model);
      const request = input.face.prepare(input, model, this.context);
      call = new Call(input, startedAt, pricedModel(model, request.policy), request);
      sink.setHeader(CALL_ID_HEADER, call.callId);
      // No fallback model when the caller allows none (provider.allow_fallbacks false).
      const fallbacks = preferences.allowFallbacks ? [...model.fallbacks] : [];
      const first = this.firstPlan(call, model, preferences, fallbacks);
      await this.billing.reserve(call, sink);
      await this.dispatch(call, sink, req, first, preferences, fallbacks, model.id);
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
   * Sends the call over its model's deployments, then its fallback models', each planned by the router
   * (docs/routing.md): one attempt per deployment at most, the next only while nothing reached the caller, on a
   * provider's failure, within the call's retry budget. A deployment or fallback is skipped when it could cost more
   * than the reservation holds or cannot take the call; the answer names the model and the provider that served it.
   */
  private async dispatch(
    call: Call,
    sink: AnswerSink,
    req: IncomingMessage | null,
    first: { planned: Planned; reservedAt: Deployment },
    preferences: ProviderPreferences,
    fallbacks: string[],
    requested: string,
  ): Promise<void> {
    const attempts = new CallAttempts();
    let planned: Planned | null = first.planned;
    let on: Deployment = first.reservedAt;
    let failure: unknown = null;
    while (planned) {
      const model: CatalogModel = planned.model;
      const fitting = this.routes.fitting(call, planned, on);
      const routes = new Map(fitting.map(({ candidate, route }) => [candidate.deployment.key, route]));
      const result = await tryCandidates(
        fitting.map(({ candidate }) => candidate),
        attempts,
        {
          begin: (candidate) => this.routing.begin(candidate),
          send: async (candidate, routed) => {
            if (candidate.deployment !== on) {
              this.switchRoute(call, routes.get(candidate.deployment.key)!, true);
              on = candidate.deployment;
            }
            // Streamed chunks pass through untouched (their `model` is the provider's): the headers name who served.
            if (model.id !== requested) sink.setHeader(MODEL_HEADER, model.id);
            sink.setHeader(PROVIDER_HEADER, candidate.deployment.provider.id);
            call.attempting(() => this.routing.firstByte(routed));
            try {
              await this.adapters.of(call.model.provider.type).dispatch(call, sink, req);
            } finally {
              call.attempting(null);
            }
          },
          end: (routed, error) => {
            const { inputTokens = 0, outputTokens = 0 } = call.metered;
            return this.routing.end(routed, error, { tokens: inputTokens + outputTokens, outputTokens });
          },
          state: () => ({
            firstByteSent: sink.headersSent || call.delivered.count > 0,
            aborted: call.signal.aborted,
          }),
        },
      );
      if (result.answered) return;
      failure = result.error ?? failure ?? this.routing.unavailable(model, planned.balanced);
      if (!result.retry) break;
      planned = this.nextPlanned(call, fallbacks, preferences);
      if (planned)
        this.logger.warn({
          msg: `${model.id} failed (${(failure as AppException).code}); falling back to ${planned.model.id}`,
          requestId: call.requestId,
        });
    }
    throw failure;
  }

  /**
   * The call's first plan, before anything is reserved: its model's candidates (or, when the breakers leave it none,
   * the first fallback's that has some; else the model's `unavailable` error), the call switched to the deployment
   * it is reserved at (the dearest it may use).
   */
  private firstPlan(
    call: Call,
    model: CatalogModel,
    preferences: ProviderPreferences,
    fallbacks: string[],
  ): { planned: Planned; reservedAt: Deployment } {
    const own = this.routes.plan(call, model, preferences, true)!;
    const planned = own.candidates.length ? own : this.nextPlanned(call, fallbacks, preferences);
    if (!planned) throw this.routing.unavailable(model, own.balanced);
    const route = this.routes.reservedAt(call, planned);
    if (route.model !== model) this.switchRoute(call, route, false);
    return { planned, reservedAt: route.deployment };
  }

  /** The next fallback model that serves the method and has a deployment the call can go to now. */
  private nextPlanned(call: Call, remaining: string[], preferences: ProviderPreferences): Planned | null {
    while (remaining.length) {
      const listed = this.catalog.find(remaining.shift()!);
      const planned = listed && this.routes.plan(call, listed, preferences);
      if (planned?.candidates.length) return planned;
    }
    return null;
  }

  /** The call goes to another deployment (or model): its prices, policy and estimate, and its output bound. */
  private switchRoute(call: Call, route: Route, bound: boolean): void {
    call.switchTo(route.model, route.policy, route.estimate);
    // Its estimate read the bound already written, so it is never above it.
    const output = route.estimate.output;
    if (bound && output) this.billing.applyOutputBound(call, output.fields, output.callerLimit, output.tokens);
  }

  /**
   * The caller's `provider` preferences (docs/routing.md, "Caller preferences"), read on the routes that take them
   * and then removed from the request: they are the gateway's, never the provider's. A 400 names the field.
   */
  private preferencesOf(input: CallInput, model: CatalogModel): ProviderPreferences {
    if (!takesPreferences(input.face.definition.name, input.route.action)) return NO_PREFERENCES;
    const preferences = readPreferences(input.json?.provider, model, this.catalog.current.providers.keys());
    withoutPreferences(input);
    return preferences;
  }
}

/** How a failed call ended, for its usage record and money trace. */
function endingOf(failure: AppException): UsageStatus {
  return failure.status === 504 ? 'timeout' : failure.status >= 500 ? 'upstream_error' : 'rejected';
}
