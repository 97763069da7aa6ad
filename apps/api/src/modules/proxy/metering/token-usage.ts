/**
 * The usage of OpenAI's wire format, the gateway's own (every provider answers in it, natively or translated), as
 * the normalised components of call/usage.ts. Pure: a problem in the provider's counts (a part larger than its
 * whole) is clamped and told to `note`, for the caller to log.
 */

import { count, field, type NormalisedUsage, type UsageNote, within } from '../call/usage';

export { mergeUsage, type NormalisedUsage, type UsageNote } from '../call/usage';

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
