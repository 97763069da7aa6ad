import { Frame } from '../wire/frame';

/** Past this many bytes of frames kept raw, they are folded into their text (bounded memory per stream). */
const RAW_LIMIT = 256 * 1024;

/** Text pieces of a JSON answer or a thinking delta, kept in order among the frames. */
interface Pieces {
  pieces: string[];
}

/**
 * What a stream relayed so far, for the bill of a call that ends without the provider's final usage (the client
 * left, the provider failed mid-stream; docs/decisions.md#settlement): the text of the frames is read only then.
 * Parsing every frame as it passed cost about 5% of a stream's CPU, for a figure almost never needed; the frames
 * are kept as they were sent, and past 256 KB folded into their text. It also remembers where the last usage the
 * provider reported so far stood among the frames (markUsage), so that what was relayed after it can be added to
 * it (textAfterUsage).
 */
export class Delivered {
  /** Frames relayed (data lines; some carry no text, like a role chunk), and text pieces added. */
  count = 0;
  /** The last `raw.length` items added, not yet read: frames (their data, or a parsed one), or pieces of text. */
  private raw: (string | Frame | Pieces)[] = [];
  private rawBytes = 0;
  private readonly texts: string[] = [];
  /** The item (its number among `count`) from which output is after the last usage report, and its place in texts once read. */
  private usageFrom = -1;
  private usageText = -1;

  /** `responses`: the frames are Responses API events (text in `response.output_text.delta`), else chat/completions chunks. */
  constructor(private readonly responses: boolean) {}

  /** A frame relayed: its data text, or the frame itself when its JSON is already parsed (read without a parse). */
  add(frame: string | Frame): void {
    this.count += 1;
    this.raw.push(frame);
    this.rawBytes += typeof frame === 'string' ? frame.length : frame.data.length;
    if (this.rawBytes > RAW_LIMIT) this.fold();
  }

  /** Output of a JSON answer that came without usage, or a thinking delta: its text, and what its message holds. */
  addText(text: string, message?: unknown): void {
    const pieces: string[] = [];
    if (text) pieces.push(text);
    if (message !== undefined) outputText(message, pieces);
    this.count += 1;
    this.raw.push({ pieces });
    for (const piece of pieces) this.rawBytes += piece.length;
    if (this.rawBytes > RAW_LIMIT) this.fold();
  }

  /**
   * The provider reported usage covering what was relayed so far and the next `pending` items (the frames of the
   * event that carried it, not yet relayed): what comes after them is output the usage does not count yet.
   */
  markUsage(pending = 0): void {
    this.usageFrom = this.count + pending;
    this.usageText = -1;
  }

  /** The output delivered: the text of every delta (content, tool arguments, reasoning, refusals), in order. */
  text(): string {
    this.fold();
    return this.texts.join('');
  }

  /** The output delivered after the last usage report (all of it when none came). */
  textAfterUsage(): string {
    this.fold();
    if (this.usageFrom < 0) return this.texts.join('');
    if (this.usageText < 0) return ''; // nothing relayed since
    return this.texts.slice(this.usageText).join('');
  }

  private fold(): void {
    const first = this.count - this.raw.length;
    for (let i = 0; i < this.raw.length; i += 1) {
      if (first + i === this.usageFrom) this.usageText = this.texts.length;
      const item = this.raw[i];
      if (typeof item === 'string') frameText(parse(item), this.responses, this.texts);
      else if (item instanceof Frame) frameText(item.json(), this.responses, this.texts);
      else for (const piece of item.pieces) this.texts.push(piece);
    }
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
function frameText(parsed: unknown, responses: boolean, into: string[]): void {
  // A provider's chunk, read defensively: every field is checked before use.
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

function parse(data: string): unknown {
  try {
    return JSON.parse(data);
  } catch {
    return undefined;
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
