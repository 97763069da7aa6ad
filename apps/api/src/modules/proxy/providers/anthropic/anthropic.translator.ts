/**
 * OpenAI Chat Completions ⇄ Anthropic Messages API.
 *
 * Request:  https://docs.anthropic.com/en/api/messages
 * Streaming: https://docs.anthropic.com/en/docs/build-with-claude/streaming
 * Tool use: https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/implement-tool-use
 * Errors:   https://docs.anthropic.com/en/api/errors
 * What is translated, ignored or refused is summed up in docs/providers.md.
 */
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageFunctionToolCall,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { mergeUsage } from '../../call/usage';
import { toOpenAiUsage } from '../../metering/token-usage';
import { fromAnthropic } from './anthropic-usage';
import type { SseEvent } from '../../wire/sse';
import {
  ChatStreamTranslator,
  ChatTranslator,
  ChunkWriter,
  FinishReason,
  JsonObject,
  ResponseContext,
  TokenUsage,
  UpstreamErrorInfo,
  errorTypeForStatus,
  isRecord,
  numberOr,
  sanitizeUpstreamMessage,
  stringOr,
  toTokenUsage,
  tryParseJson,
  eventJson,
} from '../translator.types';
import { buildRequest } from './anthropic-request';

export { ANTHROPIC_DEFAULT_MAX_TOKENS } from './anthropic-request';

/** https://docs.anthropic.com/en/api/handling-stop-reasons */
function finishReason(stopReason: unknown): FinishReason {
  switch (stopReason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool_calls';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, stop_sequence, pause_turn (a server-tool loop paused; nothing more for the client to do).
      return 'stop';
  }
}

/**
 * Anthropic's usage, gathered from every event that carries part of it (a stream's message_start has the input and
 * the cache counts, message_delta the cumulative output and sometimes the cache counts too), in OpenAI's shape with
 * every component (metering/token-usage.ts: input_tokens excludes the cache reads and writes; OpenAI's
 * prompt_tokens includes them).
 */
class UsageAccumulator {
  private readonly reported: Record<string, unknown> = {};
  /** Events that carried a usage object. */
  seen = 0;

  add(usage: unknown): void {
    if (isRecord(usage)) this.seen += 1;
    mergeUsage(this.reported, usage);
  }

  get completionUsage(): CompletionUsage | null {
    // Without input_tokens (no usage at all, or no message_start usage) the usage is not known: the gateway then
    // bills its estimate.
    const usage = fromAnthropic(this.reported);
    return usage ? toOpenAiUsage(usage) : null;
  }
}

function parseResponse(json: unknown, ctx: ResponseContext): ChatCompletion {
  if (!isRecord(json) || !Array.isArray(json.content))
    throw new Error('Unexpected Anthropic response: no content array.');
  const texts: string[] = [];
  const toolCalls: ChatCompletionMessageFunctionToolCall[] = [];
  for (const block of json.content) {
    if (!isRecord(block)) continue;
    if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
    else if (block.type === 'tool_use') {
      toolCalls.push({
        id: stringOr(block.id, ''),
        type: 'function',
        function: {
          name: stringOr(block.name, ''),
          arguments: JSON.stringify(isRecord(block.input) ? block.input : {}),
        },
      });
    }
    // thinking, redacted_thinking and server-tool blocks have no Chat Completions counterpart.
  }
  const usage = new UsageAccumulator();
  usage.add(json.usage);
  const completion: ChatCompletion = {
    id: ctx.id,
    object: 'chat.completion',
    created: ctx.created,
    model: ctx.publicModel,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: texts.length > 0 ? texts.join('') : null,
          refusal: null,
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        },
        logprobs: null,
        finish_reason: finishReason(json.stop_reason),
      },
    ],
  };
  const completionUsage = usage.completionUsage;
  if (completionUsage) completion.usage = completionUsage;
  return completion;
}

// ---------------------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------------------

/** Status per error type, for errors that arrive inside a 200 stream. https://docs.anthropic.com/en/api/errors */
const STATUS_BY_TYPE: Record<string, number> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  request_too_large: 413,
  rate_limit_error: 429,
  api_error: 500,
  overloaded_error: 503,
};

const OPENAI_TYPE_BY_TYPE: Record<string, string> = {
  invalid_request_error: 'invalid_request_error',
  authentication_error: 'authentication_error',
  permission_error: 'permission_error',
  not_found_error: 'not_found_error',
  request_too_large: 'invalid_request_error',
  rate_limit_error: 'rate_limit_error',
  api_error: 'server_error',
  overloaded_error: 'server_error',
};

function errorInfo(httpStatus: number, payload: unknown): UpstreamErrorInfo {
  const error = isRecord(payload) && isRecord(payload.error) ? payload.error : undefined;
  const upstreamType = typeof error?.type === 'string' ? error.type : undefined;
  // 529 "overloaded" is Anthropic-only; 503 means the same to OpenAI clients and their retry logic.
  let status = httpStatus === 529 ? 503 : httpStatus;
  if (status < 400 || status > 599) status = (upstreamType && STATUS_BY_TYPE[upstreamType]) || 502;
  const message =
    typeof error?.message === 'string' && error.message.trim() !== ''
      ? sanitizeUpstreamMessage(error.message)
      : `The upstream provider answered with HTTP ${httpStatus}.`;
  return {
    status,
    message,
    type: (upstreamType && OPENAI_TYPE_BY_TYPE[upstreamType]) || errorTypeForStatus(status),
    code: upstreamType ?? null,
  };
}

function parseError(status: number, bodyText: string): UpstreamErrorInfo {
  return errorInfo(status, tryParseJson(bodyText));
}

// ---------------------------------------------------------------------------------------------------------------
// Stream
// ---------------------------------------------------------------------------------------------------------------

/**
 * Anthropic streams typed events (message_start, content_block_start/delta/stop, message_delta, message_stop, ping,
 * error); OpenAI streams deltas of one message. Tool calls are numbered among tool calls only: Anthropic's block
 * index counts text blocks too, while OpenAI's tool_calls[].index is the position in the tool_calls array.
 */
class AnthropicStreamTranslator implements ChatStreamTranslator {
  private readonly writer: ChunkWriter;
  private readonly usageAccumulator = new UsageAccumulator();
  private readonly toolIndexByBlock = new Map<number, number>();
  private started = false;
  private finished = false;
  private ended = false;
  private upstreamError: UpstreamErrorInfo | null = null;

  constructor(ctx: ResponseContext & { includeUsage: boolean }) {
    this.writer = new ChunkWriter(ctx);
  }

  get usage(): TokenUsage | null {
    const usage = this.usageAccumulator.completionUsage;
    return usage ? toTokenUsage(usage) : null;
  }

  get usageSoFar(): CompletionUsage | null {
    return this.usageAccumulator.completionUsage;
  }

  get usageSeen(): number {
    return this.usageAccumulator.seen;
  }

  get error(): UpstreamErrorInfo | null {
    return this.upstreamError;
  }

  push(event: SseEvent): ChatCompletionChunk[] {
    const data = eventJson(event);
    if (!isRecord(data)) return [];
    const chunks: ChatCompletionChunk[] = [];
    switch (stringOr(data.type, event.event ?? '')) {
      case 'message_start':
        if (isRecord(data.message)) this.usageAccumulator.add(data.message.usage);
        this.start(chunks);
        break;
      case 'content_block_start':
        this.blockStart(data, chunks);
        break;
      case 'content_block_delta':
        this.blockDelta(data, chunks);
        break;
      case 'message_delta': {
        this.usageAccumulator.add(data.usage);
        const stopReason = isRecord(data.delta) ? data.delta.stop_reason : undefined;
        if (typeof stopReason === 'string' && !this.finished) {
          this.start(chunks);
          chunks.push(this.writer.delta(0, {}, finishReason(stopReason)));
          this.finished = true;
        }
        break;
      }
      case 'error':
        this.upstreamError = errorInfo(200, data);
        break;
      default:
        // ping, content_block_stop, message_stop and event types added later carry nothing to forward.
        break;
    }
    return chunks;
  }

  finish(): ChatCompletionChunk[] {
    if (this.ended) return [];
    this.ended = true;
    const chunks: ChatCompletionChunk[] = [];
    // A stream that ends without message_delta (cut short, but without an error event) still gets a finish chunk.
    if (!this.finished && this.upstreamError === null) {
      this.start(chunks);
      chunks.push(this.writer.delta(0, {}, this.toolIndexByBlock.size > 0 ? 'tool_calls' : 'stop'));
      this.finished = true;
    }
    chunks.push(...this.writer.usageChunks(this.usageAccumulator.completionUsage));
    return chunks;
  }

  /** OpenAI's first chunk carries the role and empty content. */
  private start(chunks: ChatCompletionChunk[]): void {
    if (this.started) return;
    this.started = true;
    chunks.push(this.writer.delta(0, { role: 'assistant', content: '' }));
  }

  private blockStart(data: JsonObject, chunks: ChatCompletionChunk[]): void {
    const block = data.content_block;
    if (!isRecord(block)) return;
    this.start(chunks);
    if (block.type === 'text' && typeof block.text === 'string' && block.text !== '') {
      chunks.push(this.writer.delta(0, { content: block.text }));
    } else if (block.type === 'tool_use') {
      const toolIndex = this.toolIndexByBlock.size;
      this.toolIndexByBlock.set(numberOr(data.index, -1), toolIndex);
      chunks.push(
        this.writer.delta(0, {
          tool_calls: [
            {
              index: toolIndex,
              id: stringOr(block.id, ''),
              type: 'function',
              function: { name: stringOr(block.name, ''), arguments: '' },
            },
          ],
        }),
      );
    }
  }

  private blockDelta(data: JsonObject, chunks: ChatCompletionChunk[]): void {
    const delta = data.delta;
    if (!isRecord(delta)) return;
    if (delta.type === 'text_delta' && typeof delta.text === 'string' && delta.text !== '') {
      this.start(chunks);
      chunks.push(this.writer.delta(0, { content: delta.text }));
    } else if (
      delta.type === 'input_json_delta' &&
      typeof delta.partial_json === 'string' &&
      delta.partial_json !== ''
    ) {
      const toolIndex = this.toolIndexByBlock.get(numberOr(data.index, -1));
      if (toolIndex === undefined) return; // deltas of a server-tool block, which the client never sees
      chunks.push(
        this.writer.delta(0, { tool_calls: [{ index: toolIndex, function: { arguments: delta.partial_json } }] }),
      );
    }
    // thinking_delta, signature_delta and citations_delta have no Chat Completions counterpart.
  }
}

export const anthropicTranslator: ChatTranslator = {
  buildRequest,
  parseResponse,
  createStream: (ctx) => new AnthropicStreamTranslator(ctx),
  parseError,
};
