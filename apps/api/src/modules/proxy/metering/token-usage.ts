/**
 * One call's token usage, normalised from every provider kind (docs/pricing.md, "Usage"). Each provider counts
 * cached input and reasoning its own way; these functions turn each wire format into explicit components, none
 * negative and none counting a token another one counts. Pure: a problem in the provider's counts (a part larger
 * than its whole) is clamped and told to `note`, for the caller to log.
 */

/** Explicit components of a call's tokens. */
export interface NormalisedUsage {
  /** Input neither read from nor written to a prompt cache (billed at the input price). */
  inputTokens: number;
  cacheReadTokens: number;
  /** Input written to the cache for five minutes. */
  cacheWriteTokens: number;
  /** Input written to the cache for one hour (Anthropic). */
  cacheWrite1hTokens: number;
  /** Output, reasoning included. */
  outputTokens: number;
  /** The reasoning (thinking) part of outputTokens, where the provider reports it. */
  reasoningTokens: number;
}

export type UsageNote = (problem: string) => void;
type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** A count: a finite number, at least 0, whole (a provider's 12.0 is 12); anything else is absent. */
const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.ceil(value)) : undefined;
const field = (object: unknown, key: string): unknown => (isObject(object) ? object[key] : undefined);

/**
 * Merges a usage object into the usage gathered so far, count by count, keeping the largest: every count these
 * providers send in a stream is cumulative (Anthropic's message_start and message_delta, Gemini's usageMetadata on
 * each chunk, OpenAI-compatible servers that report usage on several chunks), and some send a count in one event
 * only (a cache read in message_delta, thoughtsTokenCount before the last chunk). Nulls and arrays are skipped.
 * Merging the provider's own counts, not their components, is what keeps a count from being taken twice.
 */
export function mergeUsage(into: Json, from: unknown): Json {
  if (!isObject(from)) return into;
  for (const [key, value] of Object.entries(from)) {
    if (typeof value === 'number') {
      if (Number.isFinite(value) && !(typeof into[key] === 'number' && into[key] >= value)) into[key] = value;
    } else if (isObject(value)) into[key] = mergeUsage(isObject(into[key]) ? into[key] : {}, value);
  }
  return into;
}

/** `part` of `whole`, clamped to it (and the clamp told). */
function within(part: number, whole: number, what: string, note?: UsageNote): number {
  if (part <= whole) return part;
  note?.(`${what} (${part}) is larger than its whole (${whole}): counted as ${whole}`);
  return whole;
}

/**
 * OpenAI Chat Completions (and every OpenAI-compatible server), completions and embeddings: `prompt_tokens` includes
 * `prompt_tokens_details.cached_tokens` and `cache_write_tokens` (where an upstream reports it; of which
 * `cache_write_1h_tokens`, Switchyard's own, is written for an hour); `completion_tokens` includes
 * `completion_tokens_details.reasoning_tokens`. Null without a prompt count (no usage).
 */
export function fromOpenAiChat(usage: unknown, note?: UsageNote): NormalisedUsage | null {
  const prompt = count(field(usage, 'prompt_tokens'));
  if (prompt === undefined) return null;
  const details = field(usage, 'prompt_tokens_details');
  return openAiShape(
    prompt,
    count(field(details, 'cached_tokens')) ?? 0,
    count(field(details, 'cache_write_tokens')) ?? 0,
    count(field(details, 'cache_write_1h_tokens')) ?? 0,
    count(field(usage, 'completion_tokens')) ?? 0,
    count(field(field(usage, 'completion_tokens_details'), 'reasoning_tokens')) ?? 0,
    note,
  );
}

/**
 * OpenAI Responses (and transcriptions priced by tokens): `input_tokens` includes `input_tokens_details.cached_tokens`;
 * `output_tokens` includes `output_tokens_details.reasoning_tokens`.
 */
export function fromOpenAiResponses(usage: unknown, note?: UsageNote): NormalisedUsage | null {
  const input = count(field(usage, 'input_tokens'));
  if (input === undefined) return null;
  return openAiShape(
    input,
    count(field(field(usage, 'input_tokens_details'), 'cached_tokens')) ?? 0,
    0,
    0,
    count(field(usage, 'output_tokens')) ?? 0,
    count(field(field(usage, 'output_tokens_details'), 'reasoning_tokens')) ?? 0,
    note,
  );
}

function openAiShape(
  prompt: number,
  cached: number,
  writes: number,
  writes1h: number,
  completion: number,
  reasoning: number,
  note?: UsageNote,
): NormalisedUsage {
  const cacheRead = within(cached, prompt, 'cached_tokens', note);
  const written = within(writes, prompt - cacheRead, 'cache_write_tokens', note);
  const written1h = within(writes1h, written, 'cache_write_1h_tokens', note);
  return {
    inputTokens: prompt - cacheRead - written,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: written - written1h,
    cacheWrite1hTokens: written1h,
    outputTokens: completion,
    reasoningTokens: within(reasoning, completion, 'reasoning_tokens', note),
  };
}

/**
 * Anthropic Messages: `input_tokens` excludes `cache_read_input_tokens` and `cache_creation_input_tokens`, which are
 * each their own; the writes split into `cache_creation.ephemeral_5m_input_tokens` and `ephemeral_1h_input_tokens`
 * (null or absent on older answers: every write is then a five-minute one). `output_tokens` includes any thinking,
 * which Anthropic does not report apart (reasoning stays 0). Null without an input count.
 */
export function fromAnthropic(usage: unknown, note?: UsageNote): NormalisedUsage | null {
  const input = count(field(usage, 'input_tokens'));
  if (input === undefined) return null;
  const creation = count(field(usage, 'cache_creation_input_tokens')) ?? 0;
  const split = field(usage, 'cache_creation');
  const fiveMinutes = count(field(split, 'ephemeral_5m_input_tokens')) ?? 0;
  const oneHour = count(field(split, 'ephemeral_1h_input_tokens')) ?? 0;
  // The split should add up to the total; what the total has beyond it is a five-minute write (the default), and a
  // split larger than the total is taken as it is: a write is never lost, nor counted twice.
  if (isObject(split) && fiveMinutes + oneHour !== creation && creation > 0)
    note?.(`cache_creation_input_tokens (${creation}) differs from its split (${fiveMinutes} + ${oneHour})`);
  return {
    inputTokens: input,
    cacheReadTokens: count(field(usage, 'cache_read_input_tokens')) ?? 0,
    cacheWriteTokens: Math.max(fiveMinutes, creation - oneHour),
    cacheWrite1hTokens: oneHour,
    outputTokens: count(field(usage, 'output_tokens')) ?? 0,
    reasoningTokens: 0,
  };
}

/**
 * Gemini generateContent `usageMetadata`: `promptTokenCount` includes `cachedContentTokenCount`;
 * `toolUsePromptTokenCount` is input on top of it; `thoughtsTokenCount` is output on top of `candidatesTokenCount`
 * (and may be missing: no thinking). Gemini writes no cache during a call (an explicit cache is made and billed
 * apart). Null without a prompt count (no usage: a prompt is never empty).
 */
export function fromGemini(metadata: unknown, note?: UsageNote): NormalisedUsage | null {
  const prompt = count(field(metadata, 'promptTokenCount'));
  if (!isObject(metadata) || prompt === undefined) return null;
  const cached = within(count(metadata.cachedContentTokenCount) ?? 0, prompt, 'cachedContentTokenCount', note);
  const thoughts = count(metadata.thoughtsTokenCount) ?? 0;
  return {
    inputTokens: prompt - cached + (count(metadata.toolUsePromptTokenCount) ?? 0),
    cacheReadTokens: cached,
    cacheWriteTokens: 0,
    cacheWrite1hTokens: 0,
    outputTokens: (count(metadata.candidatesTokenCount) ?? 0) + thoughts,
    reasoningTokens: thoughts,
  };
}

/**
 * A normalised usage in OpenAI's Chat Completions shape (what translated providers answer), without loss:
 * `prompt_tokens` every input token, `prompt_tokens_details.cached_tokens` the cache reads, `cache_write_tokens` the
 * cache writes (of which `cache_write_1h_tokens` for an hour), `completion_tokens` the output with
 * `completion_tokens_details.reasoning_tokens`. fromOpenAiChat reads it back to the same components.
 */
export function toOpenAiUsage(usage: NormalisedUsage) {
  const prompt = usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.cacheWrite1hTokens;
  const writes = usage.cacheWriteTokens + usage.cacheWrite1hTokens;
  return {
    prompt_tokens: prompt,
    completion_tokens: usage.outputTokens,
    total_tokens: prompt + usage.outputTokens,
    prompt_tokens_details: {
      cached_tokens: usage.cacheReadTokens,
      ...(writes ? { cache_write_tokens: writes } : {}),
      ...(usage.cacheWrite1hTokens ? { cache_write_1h_tokens: usage.cacheWrite1hTokens } : {}),
    },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}
