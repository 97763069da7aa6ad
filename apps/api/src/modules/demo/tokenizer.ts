/**
 * The demo provider's tokenizer. It is not a BPE tokenizer (that would need a vocabulary file); it is a small,
 * deterministic rule that lands in the same range as OpenAI's tokenizers for English text, so usage numbers
 * look real and budgets behave sensibly:
 *
 *   a token is optional leading whitespace followed by either a run of 1 to 8 word characters (letters, marks,
 *   digits, underscore) or one single other non-space character (punctuation, symbol, emoji).
 *
 * So "Hello, world!" is 4 tokens ("Hello", ",", " world", "!") and a 20-letter word is 3 tokens (8 + 8 + 4).
 * Leading whitespace belongs to the next token, as in GPT tokenizers, so the pieces concatenate back to the
 * exact text: that is what lets streaming and `max_tokens` truncation cut text on token boundaries.
 */
const TOKEN = /\s*(?:[\p{L}\p{M}\p{N}_]{1,8}|[^\s\p{L}\p{M}\p{N}_])/gu;

/** Number of tokens in `text` under the rule above. Whitespace-only text is 0 tokens. */
export function countTokens(text: string): number {
  if (!text) return 0;
  let count = 0;
  const re = new RegExp(TOKEN.source, TOKEN.flags);
  while (re.exec(text) !== null) count++;
  return count;
}

/**
 * Splits `text` into its tokens, keeping every character: joining the result gives `text` back (trailing
 * whitespace rides on the last token). Whitespace-only text gives an empty array.
 */
export function splitTokens(text: string): string[] {
  const pieces = text.match(new RegExp(TOKEN.source, TOKEN.flags)) ?? [];
  if (pieces.length === 0) return [];
  const covered = pieces.reduce((length, piece) => length + piece.length, 0);
  if (covered < text.length) pieces[pieces.length - 1] += text.slice(covered);
  return pieces;
}

/** The first `maxTokens` tokens of `text`, and whether anything was cut. */
export function truncateToTokens(text: string, maxTokens: number): { text: string; truncated: boolean } {
  const pieces = splitTokens(text);
  if (pieces.length <= maxTokens) return { text, truncated: false };
  return { text: pieces.slice(0, maxTokens).join(''), truncated: true };
}

/** Groups tokens into stream chunks of `size` tokens (the demo streams ~3 tokens per chunk, as models do). */
export function chunkTokens(text: string, size: number): string[] {
  const pieces = splitTokens(text);
  const chunks: string[] = [];
  for (let i = 0; i < pieces.length; i += size) chunks.push(pieces.slice(i, i + size).join(''));
  return chunks;
}
