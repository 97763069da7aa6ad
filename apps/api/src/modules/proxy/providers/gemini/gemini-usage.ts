import { count, field, isObject, type NormalisedUsage, type UsageNote, within } from '../../call/usage';

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
