/** Past this many bytes of frames kept raw, they are folded into their text (bounded memory per stream). */
const RAW_LIMIT = 256 * 1024;

/**
 * What a stream relayed so far, for the bill of a call that ends without the provider's usage (the client left,
 * the provider failed mid-stream; decisions.md section 10): the text of the frames is read only then. Parsing
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

  /** The text delivered: every content delta, in order. */
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

/** The text a frame carried: a chat or completions chunk's choices, or a Responses API text delta. */
function frameText(data: string, responses: boolean, into: string[]): void {
  let chunk: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    chunk = JSON.parse(data);
  } catch {
    return;
  }
  if (!chunk || typeof chunk !== 'object') return;
  if (responses) {
    if (chunk.type === 'response.output_text.delta' && typeof chunk.delta === 'string') into.push(chunk.delta);
    return;
  }
  if (!Array.isArray(chunk.choices)) return;
  for (const choice of chunk.choices) {
    const text = choice?.delta?.content ?? choice?.text;
    if (typeof text === 'string') into.push(text);
  }
}

/**
 * Whether a frame may carry usage (a usage object, not OpenAI's `"usage":null` on every chunk): only those are
 * parsed on the way. A false positive (the pattern inside a string) only costs a parse.
 */
export const MAY_CARRY_USAGE = /"usage"\s*:\s*\{/;
