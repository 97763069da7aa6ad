import type { RouteMethod } from '../allowlist';
import { type Estimate, worstTokenMicros } from '../billing/budget-estimate';
import { costMicros, roundUp } from '../billing/pricing';
import type { CatalogModel } from '../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../gateway.exception';
import { anthropicFields, anthropicPolicy } from './anthropic-policy';
import { chatPolicy, imagePolicy, responsesPolicy } from './openai-policy';
import { emptyVerdict, type Json, type PolicyVerdict } from './verdict';

export type { PolicyVerdict } from './verdict';

/**
 * The request-field policy (docs/gateway.md, "Nothing forwarded that the hold does not bound"), one place for every
 * route and provider kind, consulted by the pipeline before anything is reserved or forwarded: fields and tools
 * whose cost the gateway bounds and prices pass; provider-side fetching, tools and priced options are refused with
 * 400 invalid_request_error naming the field, unless the model's catalog entry enables the feature with a price
 * and a bound. Pure: it reads the request and the catalog entry, and returns what the reservation must add.
 *
 * `action` is the route the request came on, before a Messages request is translated for a model that is not on
 * an Anthropic provider.
 */
export function requestPolicy(
  action: RouteMethod,
  model: CatalogModel,
  json: Json | null,
  form: { field(name: string): string | undefined } | null,
): PolicyVerdict {
  const verdict = emptyVerdict();
  switch (action) {
    case 'messages':
      // A model on another provider gets the request translated: the translation refuses what it cannot carry
      // (documents, server tools) and drops the rest, but the fields refused here are refused for every model.
      if (json && model.provider.type === 'anthropic') anthropicPolicy(model, json, verdict);
      else if (json) anthropicFields(json);
      break;
    case 'chat_completions':
      if (json) chatPolicy(json);
      break;
    case 'responses':
      if (json) responsesPolicy(json, verdict);
      break;
    case 'image_generation':
    case 'image_edit':
    case 'image_variation':
      imagePolicy(model, action, (name) => (json ? json[name] : form?.field(name)), verdict);
      break;
    default:
      // Completions, embeddings, audio and video carry nothing the provider fetches or runs on the caller's behalf.
      break;
  }
  return verdict;
}

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

/**
 * The request with the fields the policy writes (an image variant's defaults): a JSON body re-serialised, a
 * multipart form's fields replaced. Nothing when there is nothing to write.
 */
export function withWrites<T extends { json: Json | null; raw: Buffer | null; form: WritableForm | null }>(
  input: T,
  verdict: PolicyVerdict,
): Partial<T> {
  const writes = Object.entries(verdict.writes);
  if (!writes.length) return {};
  if (input.form) for (const [name, value] of writes) input.form.fields.set(name, [value]);
  if (!input.json) return {};
  const json = { ...input.json, ...verdict.writes };
  return { json, raw: Buffer.from(JSON.stringify(json)) } as Partial<T>;
}

interface WritableForm {
  fields: Map<string, string[]>;
}
