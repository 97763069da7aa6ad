import type { CatalogModel } from '../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import type { PolicyVerdict } from '../policy/verdict';
import { type Estimate, worstTokenMicros } from './budget-estimate';
import { costMicros, roundUp } from './pricing';

/**
 * The call's estimate with what the policy found: input the request does not carry bounds the input at the
 * model's context length (the most the provider takes in; refused when the catalog gives none), a client tool's
 * definition adds its tokens, and an enabled search adds perSearch × max_uses to the worst case (and to what the
 * input side needs, so a budget that lowers the output bound leaves room for every search).
 */
export function boundEstimate(estimate: Estimate, model: CatalogModel, verdict: PolicyVerdict | null): Estimate {
  if (!verdict || !estimate.output) return estimate;
  let inputTokens = estimate.inputTokens + verdict.extraInputTokens;
  let inputEstimate = estimate.inputEstimate;
  if (verdict.inputAtContextLength) {
    if (!model.contextLength)
      throw new GatewayException(
        GatewayErrorCode.INVALID_REQUEST,
        `The gateway cannot bound the input of a request with ${verdict.inputAtContextLength} for ${model.id}, whose context length is unknown: send the content itself`,
        { param: 'messages' },
      );
    inputTokens = Math.max(inputTokens, model.contextLength);
    // The provider's own input: billed at this bound when a call ends without its usage, as the hold assumed.
    inputEstimate = { ...inputEstimate, inputTokens };
  }
  const searchMicros = verdict.webSearch ? roundUp(verdict.webSearch.maxUses * verdict.webSearch.perSearch * 1e6) : 0;
  if (inputTokens === estimate.inputTokens && !searchMicros) return estimate;
  const { pricing } = model;
  const output = estimate.output;
  return {
    ...estimate,
    inputTokens,
    worstMicros: worstTokenMicros(pricing, inputTokens, output.tokens * output.choices) + searchMicros,
    minimumMicros: worstTokenMicros(pricing, inputTokens, Math.min(1, output.tokens)) + searchMicros,
    inputWorstMicros: worstTokenMicros(pricing, inputTokens, 0) + searchMicros,
    inputEstimate,
    inputEstimateMicros:
      inputEstimate === estimate.inputEstimate ? estimate.inputEstimateMicros : costMicros(pricing, inputEstimate),
  };
}

/** The model as the call is priced: an image variant's own price in place of the flat one. */
export function pricedModel(model: CatalogModel, verdict: PolicyVerdict): CatalogModel {
  if (verdict.imagePrice === null) return model;
  return { ...model, pricing: { ...model.pricing, perImage: verdict.imagePrice } };
}
