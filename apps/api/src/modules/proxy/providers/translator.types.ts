/**
 * The contract between the gateway engine and the provider translators, plus the few pure helpers that every
 * translator needs (kept here so that the provider folders do not depend on each other).
 *
 * A translator turns an OpenAI Chat Completions request (https://platform.openai.com/docs/api-reference/chat/create)
 * into an upstream HTTP request, and the upstream answer back into OpenAI JSON or stream chunks. Translators are
 * pure: no Nest, no network (images are fetched through the engine's `fetchImage`), no clock, no randomness, so that
 * the same input always gives the same output.
 */
import type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionCreateParams,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { Frame } from '../wire/frame';
import type { SseEvent } from '../wire/sse';

export interface UpstreamRequestSpec {
  /** Appended to the provider baseUrl, e.g. '/messages' or '/models/gemini-2.0-flash:streamGenerateContent?alt=sse'. */
  path: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
}

export interface FetchedImage {
  mimeType: string;
  /** base64 */
  data: string;
}

export interface TranslatorContext {
  upstreamModel: string;
  apiKey: string;
  fetchImage: (url: string) => Promise<FetchedImage>;
}

export interface ResponseContext {
  publicModel: string;
  /** e.g. 'chatcmpl-…', chosen by the engine */
  id: string;
  created: number;
  /** Told of a problem in the provider's usage counts (a part larger than its whole, clamped), for the engine to log. */
  usageNote?: (problem: string) => void;
}

export interface TokenUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

export interface UpstreamErrorInfo {
  status: number;
  message: string;
  type: string;
  code: string | null;
}

export interface ChatTranslator {
  buildRequest(body: ChatCompletionCreateParams, ctx: TranslatorContext): Promise<UpstreamRequestSpec>;
  parseResponse(json: unknown, ctx: ResponseContext): ChatCompletion;
  createStream(ctx: ResponseContext & { includeUsage: boolean }): ChatStreamTranslator;
  /** Upstream error → OpenAI-style error info (never includes the upstream URL or key). */
  parseError(status: number, bodyText: string): UpstreamErrorInfo;
}

export interface ChatStreamTranslator {
  /** OpenAI chunks to emit now, possibly none. */
  push(event: SseEvent): ChatCompletionChunk[];
  /** At upstream end: the final chunk(s); when includeUsage, the last chunk has choices: [] and usage. */
  finish(): ChatCompletionChunk[];
  /** Known usage so far (null if the upstream gave none). */
  readonly usage: TokenUsage | null;
  /**
   * The usage gathered so far with every component (cache reads and writes, reasoning), in OpenAI's shape, and how
   * many events carried some: the gateway bills it the moment it arrives (docs/budgets.md), not only at the end.
   */
  readonly usageSoFar: CompletionUsage | null;
  readonly usageSeen: number;
  /** Set if the upstream sent an error event mid-stream. */
  readonly error: UpstreamErrorInfo | null;
}

/**
 * A request the provider cannot take (e.g. n > 1 on Anthropic, audio input). The engine answers it with
 * 400 invalid_request_error; `param` follows OpenAI's convention, e.g. 'messages[2].content[0]'.
 */
export class TranslationError extends Error {
  constructor(
    message: string,
    readonly param?: string,
  ) {
    super(message);
    this.name = 'TranslationError';
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Shared helpers
// ---------------------------------------------------------------------------------------------------------------

export type FinishReason = ChatCompletion.Choice['finish_reason'];
export type JsonObject = Record<string, unknown>;

export function isRecord(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** An event's data as JSON: parsed once for every part that reads the frame (wire/frame.ts), else here. */
export function eventJson(event: SseEvent): unknown {
  return event instanceof Frame ? event.json() : tryParseJson(event.data);
}

/** JSON.parse that answers undefined instead of throwing (upstream payloads are untrusted). */
export function tryParseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

export function numberOr(value: unknown, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

export function stringOr(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

/**
 * Splits a `data:` URL (RFC 2397) into media type and base64 payload. Only base64 data URLs are accepted: that is
 * what OpenAI clients send for images and files, and both providers want base64.
 */
export function parseDataUrl(url: string, param: string): { mimeType: string; data: string } {
  const match = /^data:([^;,]*)((?:;[^;,]*)*),(.*)$/s.exec(url);
  if (!match) throw new TranslationError('Malformed data URL.', param);
  const parameters = match[2].split(';').map((part) => part.trim().toLowerCase());
  if (!parameters.includes('base64')) throw new TranslationError('Only base64-encoded data URLs are supported.', param);
  const mimeType = (match[1] || 'text/plain').trim().toLowerCase();
  return { mimeType, data: match[3].replace(/\s+/g, '') };
}

/** The text of a system, developer or tool message: a string, or text parts joined together. */
export function textContent(
  content: string | ReadonlyArray<{ type: string; text?: string }> | null | undefined,
  param: string,
): string {
  if (content === null || content === undefined) return '';
  if (typeof content === 'string') return content;
  return content
    .map((part, index) => {
      if (part.type !== 'text' || typeof part.text !== 'string') {
        throw new TranslationError(
          `Content parts of type '${part.type}' are not supported here.`,
          `${param}[${index}]`,
        );
      }
      return part.text;
    })
    .join('');
}

/** Tool call arguments are a JSON string in OpenAI, a JSON object upstream. Empty arguments mean `{}`. */
export function parseToolArguments(argumentsJson: string, param: string): JsonObject {
  if (argumentsJson.trim() === '') return {};
  const parsed = tryParseJson(argumentsJson);
  if (!isRecord(parsed)) throw new TranslationError('Tool call arguments must be a JSON object.', param);
  return parsed;
}

/**
 * Parameters that no translator can honour, refused up front so a client never silently gets something else than
 * it asked for. Parameters that are only hints (seed, penalties, prediction, store, metadata, service_tier…) are
 * ignored instead; docs/providers.md lists both.
 */
export function rejectUnsupportedCommon(body: ChatCompletionCreateParams): void {
  if (body.audio || body.modalities?.includes('audio')) {
    throw new TranslationError('Audio output is not supported by this model.', body.audio ? 'audio' : 'modalities');
  }
  if (body.logprobs || (body.top_logprobs ?? 0) > 0) {
    throw new TranslationError(
      'logprobs are not supported by this model.',
      body.logprobs ? 'logprobs' : 'top_logprobs',
    );
  }
  if (body.functions !== undefined || body.function_call !== undefined) {
    throw new TranslationError(
      "The deprecated 'functions' and 'function_call' parameters are not supported; use 'tools' and 'tool_choice'.",
      body.functions !== undefined ? 'functions' : 'function_call',
    );
  }
  if (body.web_search_options !== undefined) {
    throw new TranslationError('web_search_options is not supported by this model.', 'web_search_options');
  }
  body.tools?.forEach((tool, index) => {
    if (tool.type !== 'function') {
      throw new TranslationError(`Tools of type '${tool.type}' are not supported by this model.`, `tools[${index}]`);
    }
  });
  if (body.messages.length === 0) throw new TranslationError('messages must not be empty.', 'messages');
}

/** The maximum output tokens the client asked for, if any (max_completion_tokens supersedes max_tokens). */
export function requestedMaxTokens(body: ChatCompletionCreateParams): number | undefined {
  return body.max_completion_tokens ?? body.max_tokens ?? undefined;
}

export function stopSequences(stop: ChatCompletionCreateParams['stop']): string[] | undefined {
  if (stop === null || stop === undefined) return undefined;
  const list = (typeof stop === 'string' ? [stop] : stop).filter((sequence) => sequence !== '');
  return list.length > 0 ? list : undefined;
}

/** Finds the function name of an earlier assistant tool call, searching backwards from the tool message. */
export function toolCallName(
  messages: readonly ChatCompletionMessageParam[],
  before: number,
  id: string,
): string | undefined {
  for (let i = before - 1; i >= 0; i--) {
    const message = messages[i];
    if (message.role !== 'assistant' || !message.tool_calls) continue;
    for (const call of message.tool_calls) {
      if (call.id === id && call.type === 'function') return call.function.name;
    }
  }
  return undefined;
}

/** Upstream error messages go to our clients: cleaned in one place (errors/upstream-errors.ts). */
export { sanitizeUpstreamMessage } from '../errors/upstream-errors';

/** OpenAI-style error type for an HTTP status: the gateway's own mapping, so both answer alike. */
export { openAiErrorType as errorTypeForStatus } from '../../../common/errors/error-render';

export function toTokenUsage(usage: CompletionUsage): TokenUsage {
  return {
    prompt_tokens: usage.prompt_tokens,
    completion_tokens: usage.completion_tokens,
    total_tokens: usage.total_tokens,
  };
}

type ChunkChoice = ChatCompletionChunk.Choice;

/**
 * Builds OpenAI stream chunks for one response. When the client asked for usage (stream_options.include_usage),
 * OpenAI sends `usage: null` on every chunk and the totals on a last chunk with no choices; we do the same.
 * https://platform.openai.com/docs/api-reference/chat/streaming
 */
export class ChunkWriter {
  constructor(private readonly ctx: ResponseContext & { includeUsage: boolean }) {}

  chunk(choices: ChunkChoice[]): ChatCompletionChunk {
    const chunk: ChatCompletionChunk = {
      id: this.ctx.id,
      object: 'chat.completion.chunk',
      created: this.ctx.created,
      model: this.ctx.publicModel,
      choices,
    };
    if (this.ctx.includeUsage) chunk.usage = null;
    return chunk;
  }

  delta(
    index: number,
    delta: ChunkChoice['delta'],
    finishReason: ChunkChoice['finish_reason'] = null,
  ): ChatCompletionChunk {
    return this.chunk([{ index, delta, logprobs: null, finish_reason: finishReason }]);
  }

  /**
   * The trailing usage chunk, or nothing when the client did not ask for it or the upstream reported no usage (the
   * gateway then bills its estimate, as for an OpenAI stream without the usage chunk: zeros would bill nothing).
   */
  usageChunks(usage: CompletionUsage | null): ChatCompletionChunk[] {
    if (!this.ctx.includeUsage || !usage) return [];
    const chunk = this.chunk([]);
    chunk.usage = usage;
    return [chunk];
  }
}
