import { count, field, isObject, type NormalisedUsage, type UsageNote } from '../../call/usage';

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
