/**
 * A call's usage in the gateway's own terms (docs/pricing.md, "Usage"): each provider counts cached input and
 * reasoning its own way, and each parses its wire format into these explicit components, none negative and none
 * counting a token another one counts (metering/token-usage.ts for OpenAI's format, providers/<kind>/ for the
 * others). The helpers below are what those parsers share. Pure: a problem in the provider's counts (a part larger
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
export type Json = Record<string, unknown>;

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** A count: a finite number, at least 0, whole (a provider's 12.0 is 12); anything else is absent. */
export const count = (value: unknown): number | undefined =>
  typeof value === 'number' && Number.isFinite(value) ? Math.max(0, Math.ceil(value)) : undefined;
export const field = (object: unknown, key: string): unknown => (isObject(object) ? object[key] : undefined);

/** `part` of `whole`, clamped to it (and the clamp told). */
export function within(part: number, whole: number, what: string, note?: UsageNote): number {
  if (part <= whole) return part;
  note?.(`${what} (${part}) is larger than its whole (${whole}): counted as ${whole}`);
  return whole;
}

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

/**
 * What a call is priced on (docs/pricing.md). Token counts are the normalised usage's components
 * (above): none counts a token another one counts.
 */
export interface Metered {
  /** Input tokens neither read from nor written to a prompt cache. */
  inputTokens?: number;
  cacheReadTokens?: number;
  /** Input written to the cache for five minutes. */
  cacheWriteTokens?: number;
  /** Input written to the cache for one hour. */
  cacheWrite1hTokens?: number;
  /** Output tokens, reasoning included. */
  outputTokens?: number;
  /** The reasoning part of outputTokens (priced as output; kept for the record). */
  reasoningTokens?: number;
  images?: number;
  seconds?: number;
  characters?: number;
  /** Calls served (1 for a served call): perRequest each. */
  requests?: number;
}
