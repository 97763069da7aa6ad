// Server-Sent Events as a chat stream sends them (the WHATWG event stream format, only what chat uses): events
// are separated by a blank line; each `data:` line adds a line to the event's data; lines starting with ':'
// are comments. Line ends may be LF, CRLF or CR.

export class SseDecoder {
  private buffer = '';
  private data: string[] = [];

  /** Feeds decoded text; answers the data of every event completed by it. */
  push(text: string): string[] {
    this.buffer += text;
    const events: string[] = [];
    let match: RegExpExecArray | null;
    const lineEnd = /\r\n|\r(?!$)|\n/g;
    let start = 0;
    while ((match = lineEnd.exec(this.buffer)) !== null) {
      this.line(this.buffer.slice(start, match.index), events);
      start = match.index + match[0].length;
    }
    this.buffer = this.buffer.slice(start);
    return events;
  }

  /** The end of the stream: a last event without its blank line still counts. */
  end(): string[] {
    const events: string[] = [];
    if (this.buffer !== '') this.line(this.buffer.replace(/\r$/, ''), events);
    this.buffer = '';
    this.line('', events);
    return events;
  }

  private line(line: string, events: string[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push(this.data.join('\n'));
      this.data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    if (field !== 'data') return;
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    this.data.push(value);
  }
}

export interface ChatUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
  /** Switchyard adds the call's cost to the usage chunk (currency units). */
  cost: number | null;
}

export interface ChatStreamState {
  content: string;
  finishReason: string | null;
  usage: ChatUsage | null;
  done: boolean;
}

export const EMPTY_CHAT_STREAM: ChatStreamState = { content: '', finishReason: null, usage: null, done: false };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const num = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0);

/** An error sent inside the stream (some providers do), in the words it came with. */
export class StreamError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'StreamError';
  }
}

/** Folds one event's data into the state: text of the first choice, its finish reason, the usage chunk. */
export function applyChatEvent(state: ChatStreamState, data: string): ChatStreamState {
  if (data.trim() === '[DONE]') return { ...state, done: true };
  let chunk: unknown;
  try {
    chunk = JSON.parse(data);
  } catch {
    return state;
  }
  if (!isRecord(chunk)) return state;
  if (isRecord(chunk.error)) {
    const message = typeof chunk.error.message === 'string' ? chunk.error.message : 'The model stopped with an error.';
    throw new StreamError(message, typeof chunk.error.code === 'string' ? chunk.error.code : null);
  }
  let next = state;
  const choice: unknown = Array.isArray(chunk.choices)
    ? (chunk.choices as unknown[]).find((item) => isRecord(item) && (item.index ?? 0) === 0)
    : undefined;
  if (isRecord(choice)) {
    const delta = isRecord(choice.delta) ? choice.delta : {};
    if (typeof delta.content === 'string' && delta.content !== '')
      next = { ...next, content: next.content + delta.content };
    if (typeof choice.finish_reason === 'string') next = { ...next, finishReason: choice.finish_reason };
  }
  if (isRecord(chunk.usage)) {
    const usage = chunk.usage;
    next = {
      ...next,
      usage: {
        promptTokens: num(usage.prompt_tokens),
        completionTokens: num(usage.completion_tokens),
        totalTokens: num(usage.total_tokens),
        cost: typeof usage.cost === 'number' ? usage.cost : null,
      },
    };
  }
  return next;
}
