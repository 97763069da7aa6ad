/** Past this many bytes of frames kept raw, they are folded into their text (bounded memory per stream). */
const RAW_LIMIT = 256 * 1024;

/**
 * What a stream relayed so far, for the bill of a call that ends without the provider's usage (the client left,
 * the provider failed mid-stream; docs/decisions.md#settlement): the text of the frames is read only then. Parsing
 * every frame as it passed cost about 5% of a stream's CPU, for a figure almost never needed; the frames are kept
 * as they were sent, and past 256 KB folded into their text.
 */
export class Delivered {
  /** Frames relayed (data lines; some carry no text, like a role chunk). */
  count = 0;
  private raw: string[] = [];
  private rawBytes = 0;
  private readonly texts: string[] = [];

  /** `responses`: the frames are Responses API events (text in `response.output_text.delta`), else chat/completions chunks. */
  constructor(private readonly responses: boolean) {}

  add(data: string): void {
    this.count += 1;
    this.raw.push(data);
    this.rawBytes += data.length;
    if (this.rawBytes > RAW_LIMIT) this.fold();
  }

  /** Output of a JSON answer that came without usage: its text, and what its message holds, as if relayed. */
  addText(text: string, message?: unknown): void {
    this.count += 1;
    if (text) this.texts.push(text);
    if (message !== undefined) outputText(message, this.texts);
  }

  /** The output delivered: the text of every delta (content, tool arguments, reasoning, refusals), in order. */
  text(): string {
    this.fold();
    return this.texts.join('');
  }

  private fold(): void {
    for (const data of this.raw) frameText(data, this.responses, this.texts);
    this.raw = [];
    this.rawBytes = 0;
  }
}

/**
 * What a frame delivered of the model's output: a chat chunk's delta (content, tool-call names and arguments,
 * reasoning, refusal, audio transcript), a completions chunk's text, or a Responses API event's `delta` (output
 * text, function-call arguments, reasoning and its summary, refusals, transcripts: every `*.delta` event carries
 * generated text). Ids, roles and types are not output.
 */
function frameText(data: string, responses: boolean, into: string[]): void {
  // A provider's chunk, read defensively: every field is checked before use.
  let parsed: unknown;
  try {
    parsed = JSON.parse(data);
  } catch {
    return;
  }
  if (!parsed || typeof parsed !== 'object') return;
  const chunk = parsed as Record<string, unknown>;
  if (responses) {
    if (typeof chunk.type === 'string' && chunk.type.endsWith('.delta') && typeof chunk.delta === 'string')
      into.push(chunk.delta);
    return;
  }
  if (!Array.isArray(chunk.choices)) return;
  for (const choice of chunk.choices as ({ text?: unknown; delta?: unknown } | null | undefined)[]) {
    if (typeof choice?.text === 'string') into.push(choice.text);
    outputText(choice?.delta, into);
  }
}

/** Keys whose string values are bookkeeping, not text the model generated. */
const NOT_OUTPUT = new Set([
  'role',
  'id',
  'type',
  'index',
  'tool_call_id',
  'call_id',
  'status',
  'finish_reason',
  'data',
  'expires_at',
]);

/**
 * The generated text in a chat message or delta: every string in it but bookkeeping ones (audio `data` is base64
 * of what the transcript already says). Walked with its own stack: a provider's nesting cannot overflow it.
 */
export function outputText(message: unknown, into: string[]): void {
  const stack: unknown[] = [message];
  while (stack.length) {
    const value = stack.pop();
    if (typeof value === 'string') into.push(value);
    else if (Array.isArray(value)) for (let i = value.length - 1; i >= 0; i -= 1) stack.push(value[i]);
    else if (value && typeof value === 'object')
      for (const [key, item] of Object.entries(value).reverse()) if (!NOT_OUTPUT.has(key)) stack.push(item);
  }
}

/**
 * Whether a frame may carry usage (a usage object, not OpenAI's `"usage":null` on every chunk): only those are
 * parsed on the way. A false positive (the pattern inside a string) only costs a parse.
 */
export const MAY_CARRY_USAGE = /"usage"\s*:\s*\{/;
