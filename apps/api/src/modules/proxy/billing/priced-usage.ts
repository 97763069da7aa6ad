import type { ModelPricing } from '@switchyard/shared-dto';
import type { Call } from '../call/call';
import { isBillable } from './budget-estimate';
import { costDetails, costMicros, type Metered } from './pricing';
import { estimateTextTokens } from './prompt-size';

/**
 * What a call whose usage is known is priced on: its usage, and its request (a call whose usage is known was
 * served; retrieving a video is not a billable call, its creation was).
 */
export function billedUsage(call: Call): Metered {
  if (!isBillable(call.route.action)) return call.metered;
  // A copy and one field, not `{ ...call.metered, requests: 1 }`: a spread that adds a key the object lacks takes
  // V8's slow path (about 0.7 µs, against 0.1; docs/benchmarks.md).
  const billed: Metered = Object.assign({}, call.metered);
  billed.requests = 1;
  return billed;
}

/**
 * What a call is charged for (docs/budgets.md, "What a call is charged"), however it ended; null when nothing:
 * - the provider's final usage (a JSON answer, a stream's usage chunk or last event): exactly that;
 * - a partial usage (Anthropic's message_start, Gemini's chunks, an OpenAI-compatible server's usage on each chunk,
 *   a Responses stream's first events) when the call ended before the final one: that usage plus the output relayed
 *   after it, and never less than the input estimate (with the same output);
 * - no usage, once the provider accepted the call: the input estimate plus everything relayed;
 * - a call the provider never accepted: nothing.
 * Pure over the call's state, so it gives the same answer each time it is asked.
 */
export function pricedUsage(call: Call): Metered | null {
  if (exactly(call)) return exact(call).usage;
  if (!(call.accepted && call.estimate)) return null;
  const input = call.estimate.inputEstimate;
  if (!call.usageKnown)
    return { ...input, outputTokens: (input.outputTokens ?? 0) + estimateTextTokens(call.delivered.text()) };
  const known = billedUsage(call);
  const output = (known.outputTokens ?? 0) + estimateTextTokens(call.delivered.textAfterUsage());
  const reported = { ...known, outputTokens: output };
  const floor = { ...input, outputTokens: output };
  return costMicros(call.model.pricing, floor) > costMicros(call.model.pricing, reported) ? floor : reported;
}

/** The call's cost in micro-units, from pricedUsage. */
export function pricedCost(call: Call): number {
  if (exactly(call)) return exact(call).cost;
  const metered = pricedUsage(call);
  return metered ? costMicros(call.model.pricing, metered) : 0;
}

/** The answer's `usage.cost_details` for the call's priced usage (its billed usage when it has none). */
export function pricedDetails(call: Call): Record<string, number> {
  if (exactly(call)) {
    const priced = exact(call);
    return (priced.details ??= costDetails(call.model.pricing, priced.usage));
  }
  return costDetails(call.model.pricing, pricedUsage(call) ?? billedUsage(call));
}

/** The call is priced on exactly the usage it reported (the first case of pricedUsage). */
const exactly = (call: Call): boolean => call.usageKnown && (call.usageFinal || !(call.accepted && call.estimate));

/**
 * A call's charge, its cost note and its usage record each ask for its price: once its usage is final, that is
 * computed once and kept with the call (a field, not a WeakMap: a WeakMap entry per call is work for every garbage
 * collection), for as long as neither the usage (usageVersion) nor the model's pricing (a fallback) change.
 */
interface Exact {
  version: number;
  pricing: ModelPricing;
  usage: Metered;
  cost: number;
  details?: Record<string, number>;
}
function exact(call: Call): Exact {
  const kept = call.priced as Exact | null;
  const pricing = call.model.pricing;
  if (kept && kept.version === call.usageVersion && kept.pricing === pricing) return kept;
  const usage = billedUsage(call);
  const priced: Exact = { version: call.usageVersion, pricing, usage, cost: costMicros(pricing, usage) };
  call.keepPriced(priced);
  return priced;
}
