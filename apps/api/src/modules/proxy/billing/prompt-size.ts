/**
 * The gateway's own measure of a prompt, for budgets (docs/budgets.md, "What a call reserves"): one walk over the
 * prompt-bearing fields of a request gives
 * - `bound`: tokens the provider can count at most. Every token is at least one byte of text (byte-level BPE and
 *   SentencePiece alike), so the UTF-8 size of the text bounds its tokens; keys count too (a tool's parameter names
 *   are rendered into the prompt), every number counts one (token-id inputs), every object a few (the chat
 *   template's tokens around a message or part), images and audio a fixed or size-based amount instead of their
 *   bytes;
 * - `estimate`: what the prompt probably counts (a quarter of its text's bytes, a typical image), billed when a
 *   call ends without the provider's usage;
 * - `unbounded`: a part whose size the gateway cannot know from the request (a file, a stored prompt, an earlier
 *   response or conversation), named for the caller's error or priced at the model's context length.
 * The walk keeps its own stack: a prompt nested ten thousand levels deep is measured, not a stack overflow.
 */
export interface PromptSize {
  bound: number;
  estimate: number;
  unbounded: string | null;
}

/** An image in the worst case: OpenAI's largest high-detail images (tiles or patches) stay below it, Claude's and Gemini's far below. */
export const IMAGE_BOUND_TOKENS = 3000;
const IMAGE_ESTIMATE_TOKENS = 1000;
/** The chat template's tokens around each message or content part (OpenAI counts 3 to 4 per message). */
const PER_OBJECT_TOKENS = 4;
/** Audio in a prompt (wav or mp3, 8 kbit/s at the least): a token per 50 base64 characters bounds ~10 tokens a second. */
const AUDIO_B64_CHARS_PER_TOKEN = 50;
const AUDIO_ESTIMATE_DIVISOR = 4;
/** Providers add a system prompt of their own when tools are given (Anthropic's is ~350 tokens). */
export const TOOLS_OVERHEAD_TOKENS = 1000;
const BYTES_PER_TOKEN_ESTIMATE = 4;

export function measurePrompt(values: unknown[]): PromptSize {
  const size: PromptSize = { bound: 0, estimate: 0, unbounded: null };
  const stack: unknown[] = [...values];
  while (stack.length) {
    const value = stack.pop();
    if (typeof value === 'string') addText(size, value);
    else if (typeof value === 'number') {
      size.bound += 1;
      size.estimate += 1;
    } else if (Array.isArray(value)) {
      for (const item of value) stack.push(item);
    } else if (value && typeof value === 'object') {
      const part = value as Record<string, unknown>;
      size.bound += PER_OBJECT_TOKENS;
      size.estimate += PER_OBJECT_TOKENS;
      const type = typeof part.type === 'string' ? part.type : '';
      if (type === 'image_url' || type === 'input_image' || type === 'image') addImage(size);
      else if (type === 'file' || type === 'input_file') size.unbounded ??= 'a file part';
      else if (type === 'input_audio' && part.input_audio && typeof part.input_audio === 'object')
        addAudio(size, (part.input_audio as { data?: unknown }).data);
      else
        for (const key in part) {
          size.bound += key.length;
          if (key === 'image_url') addImage(size);
          else stack.push(part[key]);
        }
    }
  }
  return size;
}

function addText(size: PromptSize, text: string): void {
  if (text.startsWith('data:')) {
    if (text.startsWith('data:image/')) addImage(size);
    else if (text.startsWith('data:audio/')) addAudio(size, text);
    else size.unbounded ??= 'a file given as a data URL';
    return;
  }
  const bytes = Buffer.byteLength(text, 'utf8');
  size.bound += bytes;
  size.estimate += Math.ceil(bytes / BYTES_PER_TOKEN_ESTIMATE);
}

function addImage(size: PromptSize): void {
  size.bound += IMAGE_BOUND_TOKENS;
  size.estimate += IMAGE_ESTIMATE_TOKENS;
}

function addAudio(size: PromptSize, data: unknown): void {
  const tokens = Math.ceil((typeof data === 'string' ? data.length : 0) / AUDIO_B64_CHARS_PER_TOKEN) + 1;
  size.bound += tokens;
  size.estimate += Math.ceil(tokens / AUDIO_ESTIMATE_DIVISOR);
}

/** The gateway's estimate of the tokens in a text the provider wrote (relayed output, when usage never came). */
export function estimateTextTokens(text: string): number {
  return text ? Math.ceil(Buffer.byteLength(text, 'utf8') / BYTES_PER_TOKEN_ESTIMATE) : 0;
}
