import type { Call } from '../call/call';
import { isBillable } from './budget-estimate';
import { costMicros, type Metered } from './pricing';
import { estimateTextTokens } from './prompt-size';

/**
 * What a call whose usage is known is priced on: its usage, and its request (a call whose usage is known was
 * served; retrieving a video is not a billable call, its creation was).
 */
export function billedUsage(call: Call): Metered {
  return isBillable(call.route.action) ? { ...call.metered, requests: 1 } : call.metered;
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
  const accepted = call.accepted && call.estimate;
  if (call.usageKnown && (call.usageFinal || !accepted)) return billedUsage(call);
  if (!accepted) return null;
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
  const metered = pricedUsage(call);
  return metered ? costMicros(call.model.pricing, metered) : 0;
}
