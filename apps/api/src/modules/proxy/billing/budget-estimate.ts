import type { ModelPricing } from '@switchyard/shared-dto';
import type { CatalogModel } from '../catalog/catalog.types';
import type { RouteMethod } from '../catalog/actions';
import { isBillable, isPriced } from '../catalog/priced';
import { GatewayErrorCode, GatewayException } from '../errors/gateway.exception';
import type { Estimate, OutputBound, OutputField } from '../call/estimate';
import { costMicros, type Metered, roundUp, tokenPrices, worstInputPrice } from './pricing';
import { measurePrompt, TOOLS_OVERHEAD_TOKENS, type PromptSize } from './prompt-size';

export { isBillable, isPriced };

export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/** OpenAI's default max_tokens for the legacy completions endpoint. */
const COMPLETIONS_DEFAULT_MAX_TOKENS = 16;
/** The most choices one request may ask for (OpenAI's own limit for `n`). */
const MAX_CHOICES = 128;

export type { Estimate, OutputBound, OutputField } from '../call/estimate';

const invalid = (message: string, param: string) =>
  new GatewayException(GatewayErrorCode.INVALID_REQUEST, message, { param });

/** A positive whole number, or absent (undefined or null); anything else is the caller's error. */
function optionalCount(
  json: Record<string, unknown>,
  field: string,
  min: number,
  max = Number.MAX_SAFE_INTEGER,
): number | null {
  const value = json[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw invalid(
      `${field} must be a whole number from ${min}${max < Number.MAX_SAFE_INTEGER ? ` to ${max}` : ''}`,
      field,
    );
  return value;
}

/**
 * The output bound: the model's output limit (catalog `maxOutputTokens`, else 4,096), or the caller's own when it is
 * lower. The gateway sends it upstream (writeOutputBound) whenever the caller's own is absent or higher, so the
 * provider can never produce more than was reserved.
 */
function outputBound(
  json: Record<string, unknown>,
  action: RouteMethod,
  model: CatalogModel,
  fixed?: OutputField[],
): OutputBound {
  const limit = model.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  let fields: OutputField[];
  // A format that fixes its output fields (Anthropic's Messages: max_tokens, required, bounds thinking too).
  if (fixed) fields = fixed;
  else if (action === 'responses') fields = ['max_output_tokens'];
  else if (action === 'completions') fields = ['max_tokens'];
  else {
    fields = (['max_tokens', 'max_completion_tokens'] as const).filter(
      (field) => json[field] !== undefined && json[field] !== null,
    );
    if (!fields.length) fields = [model.maxTokensParam ?? 'max_tokens'];
  }
  // completions allows 0 (with echo: the prompt's logprobs only); Responses wants at least 16, as OpenAI does.
  const asked = fields.map((field) => optionalCount(json, field, action === 'completions' ? 0 : 1));
  const given = asked.every((value) => value !== null) ? Math.max(...asked) : null;
  const fallback = action === 'completions' && given === null ? COMPLETIONS_DEFAULT_MAX_TOKENS : limit;
  const tokens = given === null ? Math.min(fallback, limit) : Math.min(given, limit);
  const n = optionalCount(json, 'n', 1, MAX_CHOICES) ?? 1;
  const bestOf = action === 'completions' ? (optionalCount(json, 'best_of', 1, MAX_CHOICES) ?? 1) : 1;
  return {
    tokens,
    choices: Math.max(n, bestOf),
    fields,
    callerLimit: given !== null && given <= tokens ? given : null,
  };
}

/** Parts of a Responses request that bring in input the request does not carry. */
function responsesUnbounded(json: Record<string, unknown>): string | null {
  if (json.background === true)
    throw invalid(
      'background responses are not supported through the gateway: its budget needs the usage when the call ends',
      'background',
    );
  if (typeof json.previous_response_id === 'string' && json.previous_response_id) return 'previous_response_id';
  if (json.conversation !== undefined && json.conversation !== null) return 'conversation';
  if (json.prompt !== undefined && json.prompt !== null) return 'a stored prompt';
  return null;
}

/**
 * The prompt's size; a part the gateway cannot size is priced at the model's context length (the most the
 * provider will take in), or refused when the catalog does not give one. The estimate counts it at that bound too:
 * a call that ends before the provider reported its usage is billed what was reserved for the part (a 300 KB PDF
 * is not 21 tokens).
 */
function boundedPrompt(size: PromptSize, model: CatalogModel): PromptSize {
  if (!size.unbounded) return size;
  if (!model.contextLength)
    throw invalid(
      `The gateway cannot bound the input of a request with ${size.unbounded} for ${model.id}, whose context length is unknown: send the content itself`,
      'input',
    );
  const bound = Math.max(size.bound, model.contextLength);
  return { bound, estimate: Math.min(bound, size.estimate + model.contextLength), unbounded: null };
}

/** The worst-case cost of a call, from its request and the model's pricing (docs/budgets.md). */
export function estimateCall(
  action: RouteMethod,
  model: CatalogModel,
  json: Record<string, unknown> | null,
  form: { fields: Map<string, string[]>; files: { size: number }[] } | null,
  outputFields?: OutputField[],
): Estimate {
  const pricing = model.pricing;
  const field = (name: string) => (json ? json[name] : form?.fields.get(name)?.[0]);
  const fixed = (metered: Metered): Estimate => {
    const served = { ...metered, requests: 1 };
    const micros = costMicros(pricing, served);
    return {
      worstMicros: micros,
      minimumMicros: micros,
      inputTokens: 0,
      inputWorstMicros: 0,
      inputEstimate: served,
      inputEstimateMicros: micros,
    };
  };
  switch (action) {
    case 'chat_completions':
    case 'completions':
    case 'responses': {
      const body = json ?? {};
      const tools = Array.isArray(body.tools) && body.tools.length ? body.tools : null;
      const parts = [
        body.messages,
        body.system,
        body.prompt,
        body.input,
        body.instructions,
        tools,
        body.functions,
        body.response_format,
        body.text,
        body.prediction,
      ];
      if (action === 'responses') parts.splice(2, 1);
      const measured = measurePrompt(parts);
      if (action === 'responses') measured.unbounded ??= responsesUnbounded(body);
      const size = boundedPrompt(measured, model);
      const overhead = tools || body.functions ? TOOLS_OVERHEAD_TOKENS : 0;
      const inputTokens = size.bound + overhead;
      const output = outputBound(body, action, model, outputFields);
      const inputEstimate = { inputTokens: Math.min(inputTokens, size.estimate + overhead), requests: 1 };
      return {
        worstMicros: worstTokenMicros(pricing, inputTokens, output.tokens * output.choices),
        minimumMicros: worstTokenMicros(pricing, inputTokens, Math.min(1, output.tokens)),
        inputTokens,
        inputWorstMicros: worstTokenMicros(pricing, inputTokens, 0),
        inputEstimate,
        inputEstimateMicros: costMicros(pricing, inputEstimate),
        output,
      };
    }
    case 'embeddings': {
      const size = boundedPrompt(measurePrompt([field('input')]), model);
      const micros = worstTokenMicros(pricing, size.bound, 0);
      const inputEstimate = { inputTokens: Math.min(size.bound, size.estimate), requests: 1 };
      return {
        worstMicros: micros,
        minimumMicros: micros,
        inputTokens: size.bound,
        inputWorstMicros: micros,
        inputEstimate,
        inputEstimateMicros: costMicros(pricing, inputEstimate),
      };
    }
    case 'image_generation':
    case 'image_edit':
    case 'image_variation': {
      const n = field('n');
      const count = n === undefined || n === null || n === '' ? 1 : Number(n);
      if (!Number.isInteger(count) || count < 1 || count > 10)
        throw invalid('n must be a whole number from 1 to 10', 'n');
      return fixed({ images: count });
    }
    case 'audio_speech':
      return fixed({ characters: String(field('input') ?? '').length });
    case 'audio_transcription': {
      // The audio's length is unknown before decoding: bound it by its size (16 kbit/s is below any usable
      // speech codec), and its tokens likewise; the transcript by the default output limit. The estimate takes
      // a typical 128 kbit/s.
      const bytes = form?.files.reduce((sum, file) => sum + file.size, 0) ?? 0;
      const worstMicros = roundUp(
        worstTokenMicros(pricing, Math.ceil(bytes / 100), DEFAULT_MAX_OUTPUT_TOKENS) +
          costMicros(pricing, { seconds: Math.ceil(bytes / 2000) }),
      );
      const inputEstimate = { seconds: Math.ceil(bytes / 16_000), inputTokens: Math.ceil(bytes / 800), requests: 1 };
      return {
        worstMicros,
        minimumMicros: Math.min(worstMicros, worstTokenMicros(pricing, 1, 0)),
        inputTokens: 0,
        inputWorstMicros: 0,
        inputEstimate,
        inputEstimateMicros: costMicros(pricing, inputEstimate),
      };
    }
    case 'video_generation':
    case 'video_remix': {
      const given = field('seconds');
      const seconds = given === undefined || given === null || given === '' ? 12 : Number(given);
      if (!(seconds > 0) || seconds > 600) throw invalid('seconds must be a number from 1 to 600', 'seconds');
      return fixed({ seconds: Math.ceil(seconds) });
    }
    default:
      return {
        worstMicros: 0,
        minimumMicros: 0,
        inputTokens: 0,
        inputWorstMicros: 0,
        inputEstimate: {},
        inputEstimateMicros: 0,
      };
  }
}

/**
 * The most a call of `inputTokens` input and `outputTokens` output can cost (docs/budgets.md): every input token at
 * the highest input-side price that could apply to it (a cache write costs more than plain input: Anthropic's 1.25×
 * and 2×), in the long-context tier when the input bound is above its threshold, output at that tier's price, and
 * the price of the request. Rounded up to the micro-unit.
 */
export function worstTokenMicros(pricing: ModelPricing, inputTokens: number, outputTokens: number): number {
  const prices = tokenPrices(pricing, inputTokens);
  return roundUp(
    inputTokens * worstInputPrice(prices) + outputTokens * prices.output + (pricing.perRequest ?? 0) * 1e6,
  );
}

/** With only `amountMicros` held, how many output tokens per choice the call may produce (0: not even one). */
export function affordableOutputTokens(model: CatalogModel, estimate: Estimate, amountMicros: number): number {
  const output = estimate.output;
  const perToken = tokenPrices(model.pricing, estimate.inputTokens).output;
  if (!output || perToken <= 0) return output?.tokens ?? 0;
  return Math.min(output.tokens, Math.floor((amountMicros - estimate.inputWorstMicros) / perToken / output.choices));
}
