import type { CatalogModel } from './catalog/catalog.types';
import type { RouteMethod } from './allowlist';
import { costMicros } from './pricing';

export const DEFAULT_MAX_OUTPUT_TOKENS = 4096;
/** What an image in a prompt counts for in the worst case (OpenAI's high-detail tiles stay far below). */
const IMAGE_TOKENS = 2000;

export interface Estimate {
  /** The most the call can cost. */
  worstMicros: number;
  /** The least it needs: its input. Below this the call is refused. */
  minimumMicros: number;
  inputTokens: number;
  /** For token-priced generation: the output-token limit the worst case assumed, and the field that sets it. */
  output?: { tokens: number; field: 'max_tokens' | 'max_completion_tokens' | 'max_output_tokens' };
}

/**
 * An upper bound on a prompt's tokens: every token is at least one byte of text, so the UTF-8 size of the
 * text fields bounds the count (images count a fixed amount; data URLs are not text). Deliberately
 * pessimistic: a reservation may hold more than the call will cost, never less.
 */
export function inputTokensUpperBound(value: unknown, key = ''): number {
  if (typeof value === 'string') {
    if (value.startsWith('data:')) return IMAGE_TOKENS;
    if (key === 'model' || key === 'role' || key === 'type') return 0;
    return Buffer.byteLength(value, 'utf8');
  }
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + inputTokensUpperBound(item, key), 0);
  if (value && typeof value === 'object') {
    if (key === 'image_url' || (value as { type?: string }).type === 'input_image') return IMAGE_TOKENS;
    return Object.entries(value).reduce((sum, [k, v]) => sum + inputTokensUpperBound(v, k), 0);
  }
  return 0;
}

function requestedOutput(json: Record<string, unknown>, action: RouteMethod, model: CatalogModel): Estimate['output'] {
  const field = action === 'responses' ? 'max_output_tokens' : action === 'chat_completions' && json.max_completion_tokens !== undefined ? 'max_completion_tokens' : 'max_tokens';
  const asked = Number(json[field]);
  const limit = model.maxOutputTokens ?? DEFAULT_MAX_OUTPUT_TOKENS;
  const tokens = Number.isInteger(asked) && asked > 0 ? Math.min(asked, limit) : action === 'completions' && json.max_tokens === undefined ? 16 : limit;
  return { tokens, field };
}

/** The worst-case cost of a call, from its request and the model's pricing (decisions.md section 10). */
export function estimateCall(
  action: RouteMethod,
  model: CatalogModel,
  json: Record<string, unknown> | null,
  form: { fields: Map<string, string[]>; files: { size: number }[] } | null,
): Estimate {
  const pricing = model.pricing;
  const field = (name: string) => (json ? json[name] : form?.fields.get(name)?.[0]);
  switch (action) {
    case 'chat_completions':
    case 'completions':
    case 'responses': {
      const body = json ?? {};
      const inputTokens = inputTokensUpperBound([body.messages, body.prompt, body.input, body.instructions, body.tools]);
      const output = requestedOutput(body, action, model);
      const n = Math.max(1, Number(body.n) || 1);
      const minimumMicros = costMicros(pricing, { promptTokens: inputTokens, completionTokens: 1 });
      return { worstMicros: costMicros(pricing, { promptTokens: inputTokens, completionTokens: output!.tokens * n }), minimumMicros, inputTokens, output };
    }
    case 'embeddings': {
      const inputTokens = inputTokensUpperBound(field('input'));
      const micros = costMicros(pricing, { promptTokens: inputTokens });
      return { worstMicros: micros, minimumMicros: micros, inputTokens };
    }
    case 'image_generation':
    case 'image_edit':
    case 'image_variation': {
      const micros = costMicros(pricing, { images: Math.max(1, Number(field('n')) || 1) });
      return { worstMicros: micros, minimumMicros: micros, inputTokens: 0 };
    }
    case 'audio_speech': {
      const micros = costMicros(pricing, { characters: String(field('input') ?? '').length });
      return { worstMicros: micros, minimumMicros: micros, inputTokens: 0 };
    }
    case 'audio_transcription': {
      // The audio's length is unknown before decoding: bound it by its size (16 kbit/s is below any usable
      // speech codec), and its tokens likewise; the transcript by the default output limit.
      const bytes = form?.files.reduce((sum, file) => sum + file.size, 0) ?? 0;
      const worstMicros = costMicros(pricing, { seconds: Math.ceil(bytes / 2000), promptTokens: Math.ceil(bytes / 100), completionTokens: DEFAULT_MAX_OUTPUT_TOKENS });
      return { worstMicros, minimumMicros: Math.min(worstMicros, costMicros(pricing, { promptTokens: 1 })), inputTokens: 0 };
    }
    case 'video_generation':
    case 'video_remix': {
      const micros = costMicros(pricing, { seconds: Math.max(1, Number(field('seconds')) || 12) });
      return { worstMicros: micros, minimumMicros: micros, inputTokens: 0 };
    }
    default:
      return { worstMicros: 0, minimumMicros: 0, inputTokens: 0 };
  }
}

/** With only `amountMicros` held, how many output tokens the call may produce (0: not even one). */
export function affordableOutputTokens(model: CatalogModel, estimate: Estimate, amountMicros: number, n = 1): number {
  const perToken = model.pricing.outputPerMTok ?? 0;
  if (!estimate.output || perToken <= 0) return estimate.output?.tokens ?? 0;
  const inputMicros = costMicros(model.pricing, { promptTokens: estimate.inputTokens });
  return Math.min(estimate.output.tokens, Math.floor((amountMicros - inputMicros) / perToken / n));
}
