import { randomUUID } from 'node:crypto';
import { Injectable, Logger } from '@nestjs/common';
import { markedUp, markupSplit, providerPart, ReservationService, UsageRecorder, type UsageStatus } from '../../usage';
import type { AnswerSink } from '../call/answer-sink';
import type { CostNote } from '../call/answer-writer';
import type { Call } from '../call/call';
import type { GatewayRoute } from '../call/route';
import type { Caller } from '../credentials/caller';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import { boundEstimate } from './bounded-estimate';
import { affordableOutputTokens, estimateCall, isBillable, isPriced } from './budget-estimate';
import { featureCostMicros } from './feature-cost';
import { promptTokensOf, toUnits } from './pricing';
import { pricedCost, pricedDetails, pricedUsage } from './priced-usage';

/** Tells the caller the budget lowered the call's output bound (docs/budgets.md). */
export const CAPPED_HEADER = 'x-switchyard-max-tokens-capped';

/**
 * A call's money (docs/budgets.md): what it reserves before it is forwarded (and the output bound it writes into the
 * request), what it is charged once its usage is known, and its settlement and usage record, exactly once.
 */
@Injectable()
export class CallBilling {
  private readonly logger = new Logger('Gateway');

  constructor(
    private readonly reservations: ReservationService,
    private readonly usage: UsageRecorder,
  ) {}

  /**
   * Holds the call's worst case against the budget before anything is forwarded, and writes the output bound it
   * assumed into the request. When the budget covers the input but not the whole output, the bound is lowered to
   * what it covers and the answer says so in x-switchyard-max-tokens-capped; when it cannot cover even that, 403.
   * A priced call whose worst case comes out 0 is refused: it would be served free; so is a call of a model that
   * has no price for it and is not marked free (docs/pricing.md): a missing price never means free by accident.
   */
  async reserve(call: Call, sink: AnswerSink): Promise<void> {
    refuseUnpriced(call.route.action, call.model);
    const estimate = boundEstimate(
      estimateCall(call.route.action, call.model, call.json, call.form, call.outputFields),
      call.model,
      call.policy,
    );
    if (estimate.worstMicros <= 0) {
      if (isPriced(call.route.action, call.model))
        throw new GatewayException(
          GatewayErrorCode.INVALID_REQUEST,
          'The request has no input to bill: send a non-empty input',
          { param: 'input' },
        );
      return;
    }
    call.estimated(estimate);
    // Through an app with a markup, the user pays cost × (1 + markup): the hold, the minimum and the input estimate
    // are marked up, so the account and every cap see what the user would pay (docs/earnings.md).
    const markup = markupOf(call);
    const worstMicros = markedUp(estimate.worstMicros, markup);
    const reservation = await this.reservations.reserve({
      id: call.callId,
      requestId: call.requestId,
      userId: call.caller.userId,
      apiKeyId: call.caller.apiKeyId,
      oauthClientId: call.caller.oauthClientId,
      worstMicros,
      minimumMicros: markedUp(estimate.minimumMicros, markup),
      inputEstimateMicros: markedUp(estimate.inputEstimateMicros, markup),
      markupPercent: markup,
    });
    call.hold(reservation);
    const output = estimate.output;
    if (!output) return;
    let tokens = output.tokens;
    if (reservation.amountMicros < worstMicros) {
      tokens = affordableOutputTokens(call.model, estimate, providerPart(reservation.amountMicros, markup));
      // The rest of the request must fit the lowered bound too (a Messages call's thinking budget), or it is refused.
      const fits = !call.fitOutput || !call.json || call.fitOutput(call.json, tokens);
      // fitOutput may have written into the request (a thinking budget): what was worked out from it is stale.
      call.requestChanged();
      if (tokens < Math.min(1, output.tokens) || !call.json || !fits) {
        call.release();
        await this.reservations.settle(reservation, 0, 'refused');
        throw this.reservations.exhausted(
          reservation.balanceMicros ?? reservation.amountMicros,
          'Your remaining budget does not cover this call: add funds to continue',
        );
      }
      sink.setHeader(CAPPED_HEADER, String(tokens));
    }
    this.applyOutputBound(call, output.fields, output.callerLimit, tokens);
  }

  /** Writes `tokens` as the output bound unless the caller's own is already within it. */
  applyOutputBound(call: Call, fields: string[], callerLimit: number | null, tokens: number): void {
    if (!call.json || (callerLimit !== null && callerLimit <= tokens)) return;
    call.boundOutput(fields, tokens);
  }

  /**
   * A charge as an answer states it: micro-units, currency units, and the cost formula's terms (the provider's
   * price). Through an app with a markup, also `provider_cost` and `markup`: how what the user paid splits
   * (markupSplit), in currency units, adding up to `usage.cost`.
   */
  costNote(call: Call, micros: number): CostNote {
    // A copy: the priced details are the call's own, computed once (priced-usage.ts).
    const details = { ...pricedDetails(call) };
    const markup = markupOf(call);
    if (markup > 0) {
      const split = markupSplit(micros, markup);
      details.provider_cost = toUnits(split.providerMicros);
      details.markup = toUnits(split.markupMicros);
    }
    return { micros, units: toUnits(micros), details };
  }

  /**
   * What the call costs (docs/budgets.md, "What a call is charged"; priced-usage.ts): price × the provider's final
   * usage; on an early ending, the usage reported so far plus what was relayed after it, never less than the input
   * estimate; without usage, once the provider accepted the call, the input estimate plus everything relayed;
   * nothing for a call the provider never accepted. A cost above the hold is settled by settleExact, within the
   * account's free balance and every cap (the rest is the operator's loss, recorded).
   */
  costOf(call: Call): number {
    // Provider-side features the policy priced (searches) come on top of the tokens (policy/feature-use.ts); an
    // app's markup on top of both (docs/earnings.md).
    return markedUp(pricedCost(call) + featureCostMicros(call), markupOf(call));
  }

  /**
   * The call's charge for its answer (usage.cost, x-switchyard-cost), once its usage is known. A cost within what
   * the call held is settled as the call ends (batched) and is exactly what it is debited; a cost above it (the
   * provider produced more than the bound it was sent) is settled now, from the account's free balance as far as
   * it goes and within the key's limits and the app's caps, and the answer states what was actually debited. Asked
   * again (a second final usage frame), it answers what was charged.
   */
  charge(call: Call): number | Promise<number> {
    if (call.chargedMicros !== null) return call.chargedMicros;
    const cost = this.costOf(call);
    const reservation = call.reservation;
    if (!reservation) return cost;
    if (cost <= reservation.amountMicros) {
      if (!reservation.tight) return cost;
      // The account or a cap is nearly spent: the hold goes before the answer ends, so the caller's next call, on
      // any instance, sees this one's charge rather than its hold (docs/budgets.md, "Settlement").
      call.release();
      call.charged(cost);
      return settledWithin(this.reservations.settleNow(reservation, cost, settlementReason(call, 'success')), cost);
    }
    call.release();
    this.logger.warn({
      msg: `${call.model.id} cost ${cost} µ, above the ${reservation.amountMicros} µ held`,
      requestId: call.requestId,
    });
    return this.reservations.settleExact(reservation, cost, 'success').then((charged) => call.charged(charged));
  }

  /** Settles the reservation exactly once and queues the usage record, on every ending. Never throws. */
  finish(
    call: Call,
    status: UsageStatus,
    httpStatus: number,
    errorCode: string | null,
    refusedLimit: string | null = null,
  ): void {
    const cost = call.chargedMicros ?? this.costOf(call);
    const metered = pricedUsage(call) ?? call.metered;
    const reservation = call.release();
    const reason = settlementReason(call, status);
    const record = (charged: number) =>
      this.usage.record({
        callId: call.callId,
        requestId: call.requestId,
        userId: call.caller.userId,
        apiKeyId: call.caller.apiKeyId,
        oauthClientId: call.caller.oauthClientId,
        credentialName: call.caller.credentialName,
        method: call.calledAs,
        model: call.model.id,
        provider: call.model.provider.id,
        upstreamModel: call.model.upstreamModel,
        stream: call.stream,
        status,
        httpStatus,
        errorCode,
        refusedLimit,
        promptTokens: promptTokensOf(metered),
        completionTokens: metered.outputTokens ?? 0,
        cacheReadTokens: metered.cacheReadTokens ?? 0,
        cacheWriteTokens: metered.cacheWriteTokens ?? 0,
        cacheWrite1hTokens: metered.cacheWrite1hTokens ?? 0,
        reasoningTokens: metered.reasoningTokens ?? 0,
        costMicros: charged,
        startedAt: call.startedAt,
        endedAt: new Date(),
        firstByteAt: call.firstByteAt,
      });
    if (!reservation) return record(cost);
    if (cost > reservation.amountMicros) {
      // Usage above the hold, reported after the answer had gone (a failure once the usage was in): settled at
      // its exact cost, recorded with what was actually charged.
      void this.reservations.settleExact(reservation, cost, reason).then(record, () => record(0));
      return;
    }
    // The record is queued first so it never waits on the database; settlement debits exactly `cost` (within the
    // hold) once. Not awaited: the answer is out, and settlements are batched (up to 20 ms); holding the call
    // open for it kept every call's objects alive past a garbage collection or two. A shutdown flushes the batch
    // after the drain.
    record(cost);
    void this.reservations.settle(reservation, cost, reason).catch(() => undefined);
  }

  /**
   * Whether a credential could make a call at all (a free token count asks): the same reservation a call makes, of
   * the smallest amount (one micro-unit), released at once, as a refused call's is (no usage record follows, and
   * reconciliation expects none). Refused (403, as a call would be) when the balance, the key's spend limit or the
   * app's cap has nothing left.
   */
  async couldCall(caller: Caller, requestId: string): Promise<void> {
    const reservation = await this.reservations.reserve({
      id: randomUUID(),
      requestId,
      userId: caller.userId,
      apiKeyId: caller.apiKeyId,
      oauthClientId: caller.oauthClientId,
      worstMicros: 1,
      minimumMicros: 1,
      inputEstimateMicros: 0,
    });
    void this.reservations.settle(reservation, 0, 'refused').catch(() => undefined);
  }

  /** The usage record of a call refused before it had a model (an unknown model, a method the model lacks). */
  recordRefused(
    caller: Caller,
    route: GatewayRoute,
    requestId: string,
    model: string,
    stream: boolean,
    failure: { status: number; code: string },
    startedAt: Date,
  ): void {
    this.usage.record({
      callId: randomUUID(),
      requestId,
      userId: caller.userId,
      apiKeyId: caller.apiKeyId,
      oauthClientId: caller.oauthClientId,
      credentialName: caller.credentialName,
      method: route.name ?? route.action,
      model: model.slice(0, 200),
      provider: null,
      stream,
      status: 'rejected',
      httpStatus: failure.status,
      errorCode: failure.code.toLowerCase(),
      promptTokens: 0,
      completionTokens: 0,
      costMicros: 0,
      startedAt,
      endedAt: new Date(),
    });
  }
}

/**
 * The markup the call is priced at: the rate its credential carried when the call began (the grant's: what the
 * user agreed to, or the app's lower rate), fixed for the whole call.
 */
export function markupOf(call: Call): number {
  return call.caller.oauthClientId ? (call.caller.markupPercent ?? 0) : 0;
}

/** The reason a call's settlement names in its money trace (docs/budgets.md, "What a call is charged"). */
function settlementReason(call: Call, status: UsageStatus): string {
  if (status === 'client_closed') return 'client_gone';
  if (status !== 'success') return status;
  return call.usageKnown && call.metered.outputTokens === 0 && call.estimate?.output ? 'no_output' : 'success';
}

/** How long an answer waits for its call's settlement to be written before it goes out anyway (the charge is known). */
const SETTLE_WAIT_MS = 2000;

/** `charged` once the settlement is written, or after SETTLE_WAIT_MS (the database slow or away: it is retried). */
function settledWithin(settled: Promise<number>, charged: number): Promise<number> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(charged), SETTLE_WAIT_MS);
    timer.unref();
    void settled.finally(() => {
      clearTimeout(timer);
      resolve(charged);
    });
  });
}

/** Refuses a billable call of a model with no price for it, unless the model is marked free (docs/pricing.md). */
export function refuseUnpriced(action: GatewayRoute['action'], model: Call['model']): void {
  if (model.free || !isBillable(action) || isPriced(action, model)) return;
  throw new GatewayException(
    GatewayErrorCode.MODEL_NOT_PRICED,
    `The model ${model.id} has no price for ${action}: the gateway serves it once an operator gives it one (or marks it free)`,
    { param: 'model' },
  );
}
