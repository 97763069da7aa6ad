/**
 * OpenAI Chat Completions ⇄ Google Gemini API (generateContent / streamGenerateContent, v1beta).
 *
 * Request and response: https://ai.google.dev/api/generate-content
 * Function calling:     https://ai.google.dev/gemini-api/docs/function-calling
 * Errors:               https://ai.google.dev/gemini-api/docs/troubleshooting#error-codes
 * What is translated, ignored or refused is summed up in docs/providers.md.
 */
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionMessageFunctionToolCall,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { mergeUsage, type UsageNote } from '../../call/usage';
import { toOpenAiUsage } from '../../metering/token-usage';
import { fromGemini } from './gemini-usage';
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
  toTokenUsage,
  tryParseJson,
  eventJson,
} from '../translator.types';
import { buildRequest } from './gemini-request';

// ---------------------------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------------------------

/** `/models/{model}:method`; a name that already has a collection (tunedModels/x, models/x) is used as is. */
const CONTENT_FILTER_REASONS = new Set([
  'SAFETY',
  'RECITATION',
  'BLOCKLIST',
  'PROHIBITED_CONTENT',
  'SPII',
  'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT',
]);

/** https://ai.google.dev/api/generate-content#FinishReason */
function finishReason(reason: unknown, hasToolCalls: boolean): FinishReason {
  if (reason === 'MAX_TOKENS') return 'length';
  if (typeof reason === 'string' && CONTENT_FILTER_REASONS.has(reason)) return 'content_filter';
  // STOP, OTHER, LANGUAGE, MALFORMED_FUNCTION_CALL…: Gemini says STOP after function calls, OpenAI says tool_calls.
  return hasToolCalls ? 'tool_calls' : 'stop';
}

/**
 * Gemini's usageMetadata in OpenAI's shape with every component (metering/token-usage.ts): cachedContentTokenCount
 * is inside promptTokenCount, toolUsePromptTokenCount beside it; thoughtsTokenCount is output beside
 * candidatesTokenCount (reasoning_tokens).
 */
function completionUsage(metadata: unknown, note?: UsageNote): CompletionUsage | null {
  const usage = fromGemini(metadata, note);
  return usage ? toOpenAiUsage(usage) : null;
}

/** Gemini has no tool call ids: we number calls `call_0`, `call_1`… in order of appearance in one response. */
class ToolCallIds {
  private next = 0;

  take(): string {
    return `call_${this.next++}`;
  }
}

interface ParsedPart {
  text?: string;
  call?: { name: string; arguments: string };
}

function readParts(candidate: JsonObject): ParsedPart[] {
  const content = candidate.content;
  if (!isRecord(content) || !Array.isArray(content.parts)) return [];
  const parts: ParsedPart[] = [];
  for (const part of content.parts) {
    if (!isRecord(part) || part.thought === true) continue; // thought summaries are not part of the answer
    if (typeof part.text === 'string') parts.push({ text: part.text });
    else if (isRecord(part.functionCall)) {
      const call = part.functionCall;
      parts.push({
        call: {
          name: typeof call.name === 'string' ? call.name : '',
          arguments: JSON.stringify(isRecord(call.args) ? call.args : {}),
        },
      });
    }
  }
  return parts;
}

/**
 * A candidate's index. Gemini's JSON follows proto3, which may leave out fields holding their default value, so a
 * missing index is 0.
 */
function candidateIndex(candidate: JsonObject): number {
  return numberOr(candidate.index, 0);
}

function promptBlocked(response: JsonObject): boolean {
  const candidates = Array.isArray(response.candidates) ? response.candidates : [];
  return (
    candidates.length === 0 &&
    isRecord(response.promptFeedback) &&
    typeof response.promptFeedback.blockReason === 'string'
  );
}

function parseResponse(json: unknown, ctx: ResponseContext): ChatCompletion {
  if (!isRecord(json)) throw new Error('Unexpected Gemini response: not a JSON object.');
  const ids = new ToolCallIds();
  const choices: ChatCompletion.Choice[] = [];
  const candidates = Array.isArray(json.candidates) ? json.candidates : [];
  const seen = new Set<number>();
  candidates.forEach((candidate, position) => {
    if (!isRecord(candidate)) return;
    // Two candidates with one index (both left out) would make one choice hide another: number them by position.
    let index = candidateIndex(candidate);
    if (seen.has(index)) index = position;
    seen.add(index);
    const texts: string[] = [];
    const toolCalls: ChatCompletionMessageFunctionToolCall[] = [];
    for (const part of readParts(candidate)) {
      if (part.text !== undefined) texts.push(part.text);
      if (part.call) toolCalls.push({ id: ids.take(), type: 'function', function: part.call });
    }
    choices.push({
      index,
      message: {
        role: 'assistant',
        content: texts.length > 0 ? texts.join('') : null,
        refusal: null,
        ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
      },
      logprobs: null,
      finish_reason: finishReason(candidate.finishReason, toolCalls.length > 0),
    });
  });
  if (choices.length === 0) {
    // A blocked prompt (promptFeedback.blockReason) yields no candidates at all; OpenAI clients expect a choice.
    choices.push({
      index: 0,
      message: { role: 'assistant', content: null, refusal: null },
      logprobs: null,
      finish_reason: promptBlocked(json) ? 'content_filter' : 'stop',
    });
  }
  choices.sort((a, b) => a.index - b.index);
  const completion: ChatCompletion = {
    id: ctx.id,
    object: 'chat.completion',
    created: ctx.created,
    model: ctx.publicModel,
    choices,
  };
  const usage = completionUsage(json.usageMetadata, ctx.usageNote);
  if (usage) completion.usage = usage;
  return completion;
}

// ---------------------------------------------------------------------------------------------------------------
// Errors
// ---------------------------------------------------------------------------------------------------------------

/** google.rpc.Code → HTTP status and OpenAI error type. https://cloud.google.com/apis/design/errors#handling_errors */
const BY_GRPC_STATUS: Record<string, { status: number; type: string }> = {
  INVALID_ARGUMENT: { status: 400, type: 'invalid_request_error' },
  FAILED_PRECONDITION: { status: 400, type: 'invalid_request_error' },
  OUT_OF_RANGE: { status: 400, type: 'invalid_request_error' },
  UNAUTHENTICATED: { status: 401, type: 'authentication_error' },
  PERMISSION_DENIED: { status: 403, type: 'permission_error' },
  NOT_FOUND: { status: 404, type: 'not_found_error' },
  ABORTED: { status: 409, type: 'invalid_request_error' },
  ALREADY_EXISTS: { status: 409, type: 'invalid_request_error' },
  RESOURCE_EXHAUSTED: { status: 429, type: 'rate_limit_error' },
  CANCELLED: { status: 500, type: 'server_error' },
  UNKNOWN: { status: 500, type: 'server_error' },
  INTERNAL: { status: 500, type: 'server_error' },
  DATA_LOSS: { status: 500, type: 'server_error' },
  UNIMPLEMENTED: { status: 501, type: 'server_error' },
  UNAVAILABLE: { status: 503, type: 'server_error' },
  DEADLINE_EXCEEDED: { status: 504, type: 'server_error' },
};

function errorReason(error: JsonObject): string | undefined {
  if (!Array.isArray(error.details)) return undefined;
  for (const detail of error.details) {
    if (isRecord(detail) && typeof detail.reason === 'string') return detail.reason;
  }
  return undefined;
}

function errorInfo(httpStatus: number, payload: unknown): UpstreamErrorInfo {
  // The non-SSE stream endpoint wraps everything, errors included, in a JSON array.
  const body: unknown = Array.isArray(payload) ? (payload as unknown[])[0] : payload;
  const error = isRecord(body) && isRecord(body.error) ? body.error : undefined;
  const grpcStatus = typeof error?.status === 'string' ? error.status : undefined;
  const known = grpcStatus !== undefined ? BY_GRPC_STATUS[grpcStatus] : undefined;
  let status = httpStatus;
  if (status < 400 || status > 599)
    status = known?.status ?? (numberOr(error?.code, 0) >= 400 ? numberOr(error?.code, 502) : 502);
  let type = known?.type ?? errorTypeForStatus(status);
  let code = grpcStatus?.toLowerCase() ?? null;
  // A bad key is reported as 400 INVALID_ARGUMENT with reason API_KEY_INVALID; it is an authentication failure.
  if (error && errorReason(error) === 'API_KEY_INVALID') {
    status = 401;
    type = 'authentication_error';
    code = 'invalid_api_key';
  }
  const message =
    typeof error?.message === 'string' && error.message.trim() !== ''
      ? sanitizeUpstreamMessage(error.message)
      : `The upstream provider answered with HTTP ${httpStatus}.`;
  return { status, message, type, code };
}

function parseError(status: number, bodyText: string): UpstreamErrorInfo {
  return errorInfo(status, tryParseJson(bodyText));
}

// ---------------------------------------------------------------------------------------------------------------
// Stream
// ---------------------------------------------------------------------------------------------------------------

interface ChoiceState {
  toolCalls: number;
  finished: boolean;
}

/**
 * With alt=sse every event is a whole GenerateContentResponse holding the next piece of text (function calls
 * arrive whole, never split), the finishReason on the last one, and usageMetadata, cumulative, on some or all.
 */
class GeminiStreamTranslator implements ChatStreamTranslator {
  private readonly writer: ChunkWriter;
  private readonly ids = new ToolCallIds();
  private readonly choices = new Map<number, ChoiceState>();
  /**
   * Every usageMetadata seen, merged count by count (a count may be missing from the last one); none, or none with
   * a promptTokenCount, is no usage (fromGemini).
   */
  private readonly usageMetadata: Record<string, unknown> = {};
  /** Chunks that carried usageMetadata. */
  private seen = 0;
  private ended = false;
  private upstreamError: UpstreamErrorInfo | null = null;

  constructor(private readonly ctx: ResponseContext & { includeUsage: boolean }) {
    this.writer = new ChunkWriter(ctx);
  }

  get usage(): TokenUsage | null {
    const usage = completionUsage(this.usageMetadata);
    return usage ? toTokenUsage(usage) : null;
  }

  get usageSoFar(): CompletionUsage | null {
    return completionUsage(this.usageMetadata);
  }

  get usageSeen(): number {
    return this.seen;
  }

  get error(): UpstreamErrorInfo | null {
    return this.upstreamError;
  }

  push(event: SseEvent): ChatCompletionChunk[] {
    const data = eventJson(event);
    const chunks: ChatCompletionChunk[] = [];
    for (const response of Array.isArray(data) ? data : [data]) {
      if (isRecord(response)) this.pushResponse(response, chunks);
    }
    return chunks;
  }

  finish(): ChatCompletionChunk[] {
    if (this.ended) return [];
    this.ended = true;
    const chunks: ChatCompletionChunk[] = [];
    if (this.upstreamError === null) {
      // A stream that ended without a finishReason (or without any candidate) still gets its finish chunk(s).
      if (this.choices.size === 0) this.choice(0, chunks);
      for (const [index, state] of this.choices) {
        if (!state.finished) this.finishChoice(index, state, undefined, chunks);
      }
    }
    chunks.push(...this.writer.usageChunks(completionUsage(this.usageMetadata, this.ctx.usageNote)));
    return chunks;
  }

  private pushResponse(response: JsonObject, chunks: ChatCompletionChunk[]): void {
    if (isRecord(response.error)) {
      this.upstreamError = errorInfo(200, response);
      return;
    }
    if (isRecord(response.usageMetadata)) this.seen += 1;
    mergeUsage(this.usageMetadata, response.usageMetadata);
    if (promptBlocked(response)) {
      const state = this.choice(0, chunks);
      if (!state.finished) {
        chunks.push(this.writer.delta(0, {}, 'content_filter'));
        state.finished = true;
      }
      return;
    }
    const candidates = Array.isArray(response.candidates) ? response.candidates : [];
    for (const candidate of candidates) {
      if (!isRecord(candidate)) continue;
      const index = candidateIndex(candidate);
      const state = this.choice(index, chunks);
      if (state.finished) continue;
      for (const part of readParts(candidate)) {
        if (part.text !== undefined && part.text !== '') chunks.push(this.writer.delta(index, { content: part.text }));
        if (part.call) {
          chunks.push(
            this.writer.delta(index, {
              tool_calls: [{ index: state.toolCalls++, id: this.ids.take(), type: 'function', function: part.call }],
            }),
          );
        }
      }
      if (typeof candidate.finishReason === 'string') this.finishChoice(index, state, candidate.finishReason, chunks);
    }
  }

  /** The state of a choice, emitting its role chunk the first time it is seen. */
  private choice(index: number, chunks: ChatCompletionChunk[]): ChoiceState {
    let state = this.choices.get(index);
    if (state === undefined) {
      state = { toolCalls: 0, finished: false };
      this.choices.set(index, state);
      chunks.push(this.writer.delta(index, { role: 'assistant', content: '' }));
    }
    return state;
  }

  private finishChoice(
    index: number,
    state: ChoiceState,
    reason: string | undefined,
    chunks: ChatCompletionChunk[],
  ): void {
    state.finished = true;
    chunks.push(this.writer.delta(index, {}, finishReason(reason, state.toolCalls > 0)));
  }
}

export const geminiTranslator: ChatTranslator = {
  buildRequest,
  parseResponse,
  createStream: (ctx) => new GeminiStreamTranslator(ctx),
  parseError,
};
