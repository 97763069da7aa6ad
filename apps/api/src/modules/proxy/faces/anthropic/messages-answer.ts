import { randomBytes } from 'node:crypto';
import { fromOpenAiChat, type NormalisedUsage } from '../../metering/token-usage';
import { Frame, type Json } from '../../wire/frame';

/**
 * The answer of a Messages call served by a model that speaks OpenAI's Chat Completions (OpenAI-compatible, Gemini
 * and demo providers, whose adapters answer in that format), translated back into Anthropic's format: a JSON answer
 * becomes a Message; a stream's chunks become Anthropic's events as they arrive (message_start, ping,
 * content_block_start / delta / stop, message_delta with the stop reason and usage, message_stop). Each chunk is
 * read from its frame's JSON, parsed once for every part that reads it (the metering included).
 */

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** OpenAI's finish_reason as Anthropic's stop_reason. */
export function stopReason(finish: unknown): string {
  switch (finish) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'refusal';
    default:
      return 'end_turn';
  }
}

/** Anthropic's usage object of a normalised usage (input_tokens excludes the cache reads and writes). */
export function anthropicUsage(usage: NormalisedUsage | null): Json {
  if (!usage) return { input_tokens: 0, output_tokens: 0 };
  const writes = usage.cacheWriteTokens + usage.cacheWrite1hTokens;
  return {
    input_tokens: usage.inputTokens,
    cache_creation_input_tokens: writes,
    cache_read_input_tokens: usage.cacheReadTokens,
    output_tokens: usage.outputTokens,
  };
}

const newMessageId = () => `msg_${randomBytes(12).toString('hex')}`;

/** A tool call's arguments as the tool_use block's input (an object; text that is no JSON object is kept apart). */
function toolInput(args: unknown): Json {
  if (typeof args !== 'string' || !args) return {};
  try {
    const parsed: unknown = JSON.parse(args);
    return isObject(parsed) ? parsed : { arguments: parsed };
  } catch {
    return { arguments: args };
  }
}

/** The reasoning text an OpenAI-compatible server puts beside the content (reasoning_content or reasoning). */
function reasoningOf(message: Json): string {
  const text = message.reasoning_content ?? message.reasoning;
  return typeof text === 'string' ? text : '';
}

/** A Chat Completion as a Message. */
export function toAnthropicMessage(completion: Json, model: string): Json {
  const choice = Array.isArray(completion.choices) && isObject(completion.choices[0]) ? completion.choices[0] : {};
  const message = isObject(choice.message) ? choice.message : {};
  const content: Json[] = [];
  const reasoning = reasoningOf(message);
  if (reasoning) content.push({ type: 'thinking', thinking: reasoning, signature: '' });
  if (typeof message.content === 'string' && message.content) content.push({ type: 'text', text: message.content });
  if (Array.isArray(message.tool_calls))
    for (const call of message.tool_calls as unknown[]) {
      if (!isObject(call) || !isObject(call.function)) continue;
      content.push({
        type: 'tool_use',
        id: String(call.id ?? ''),
        name: String(call.function.name ?? ''),
        input: toolInput(call.function.arguments),
      });
    }
  return {
    id: newMessageId(),
    type: 'message',
    role: 'assistant',
    model,
    content,
    stop_reason: stopReason(choice.finish_reason),
    stop_sequence: null,
    usage: anthropicUsage(fromOpenAiChat(completion.usage)),
  };
}

type BlockKind = 'thinking' | 'text' | 'tool_use';

/** Chat Completion chunks in, Anthropic stream events out, one chunk at a time. */
export class MessagesStreamTranslator {
  private started = false;
  private stopped = false;
  /** The open content block: its Anthropic index, kind and (for tool_use) OpenAI tool call index. */
  private block: { index: number; kind: BlockKind; tool?: number } | null = null;
  private nextIndex = 0;
  private finish: unknown = null;
  private usage: NormalisedUsage | null = null;

  constructor(private readonly model: string) {}

  /** The events of one chunk (a JSON chunk, or [DONE]), as SSE text. */
  push(frame: Frame | string): string {
    if (typeof frame === 'string') frame = new Frame(frame);
    if (frame.data === '[DONE]') return this.end();
    const chunk = frame.json();
    if (!chunk) return '';
    let out = this.start();
    if (isObject(chunk.usage)) this.usage = fromOpenAiChat(chunk.usage) ?? this.usage;
    const choice = Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0] : null;
    if (!choice) return out;
    const delta = isObject(choice.delta) ? choice.delta : {};
    const reasoning = reasoningOf(delta);
    if (reasoning) out += this.open('thinking') + event('content_block_delta', this.delta('thinking_delta', reasoning));
    if (typeof delta.content === 'string' && delta.content)
      out += this.open('text') + event('content_block_delta', this.delta('text_delta', delta.content));
    if (Array.isArray(delta.tool_calls))
      for (const call of delta.tool_calls as unknown[]) {
        if (!isObject(call)) continue;
        const fn = isObject(call.function) ? call.function : {};
        const tool = typeof call.index === 'number' ? call.index : 0;
        if (this.block?.kind !== 'tool_use' || this.block.tool !== tool)
          out += this.open('tool_use', tool, { id: String(call.id ?? ''), name: String(fn.name ?? '') });
        if (typeof fn.arguments === 'string' && fn.arguments)
          out += event('content_block_delta', this.delta('input_json_delta', fn.arguments));
      }
    if (choice.finish_reason) this.finish = choice.finish_reason;
    return out;
  }

  /** The closing events (once): the open block's stop, message_delta with the stop reason and usage, message_stop. */
  end(): string {
    if (this.stopped) return '';
    this.stopped = true;
    return (
      this.start() +
      this.close() +
      event('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: stopReason(this.finish), stop_sequence: null },
        usage: anthropicUsage(this.usage),
      }) +
      event('message_stop', { type: 'message_stop' })
    );
  }

  private start(): string {
    if (this.started) return '';
    this.started = true;
    const message = {
      id: newMessageId(),
      type: 'message',
      role: 'assistant',
      model: this.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 0, output_tokens: 0 },
    };
    return event('message_start', { type: 'message_start', message }) + event('ping', { type: 'ping' });
  }

  private open(kind: BlockKind, tool?: number, names?: { id: string; name: string }): string {
    if (this.block?.kind === kind && kind !== 'tool_use') return '';
    const out = this.close();
    this.block = { index: this.nextIndex++, kind, tool };
    const contentBlock =
      kind === 'thinking'
        ? { type: 'thinking', thinking: '', signature: '' }
        : kind === 'text'
          ? { type: 'text', text: '' }
          : { type: 'tool_use', id: names?.id ?? '', name: names?.name ?? '', input: {} };
    return (
      out +
      event('content_block_start', {
        type: 'content_block_start',
        index: this.block.index,
        content_block: contentBlock,
      })
    );
  }

  private close(): string {
    if (!this.block) return '';
    const index = this.block.index;
    this.block = null;
    return event('content_block_stop', { type: 'content_block_stop', index });
  }

  private delta(type: string, value: string): Json {
    const key = type === 'thinking_delta' ? 'thinking' : type === 'text_delta' ? 'text' : 'partial_json';
    return { type: 'content_block_delta', index: this.block!.index, delta: { type, [key]: value } };
  }
}

function event(name: string, data: unknown): string {
  return `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
}
