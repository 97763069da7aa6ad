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
  ChatCompletionContentPart,
  ChatCompletionCreateParams,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { fromAnthropic, mergeUsage, toOpenAiUsage } from '../../metering/token-usage';
import type { SseEvent } from '../sse';
import {
  ChatStreamTranslator,
  ChatTranslator,
  ChunkWriter,
  FinishReason,
  JsonObject,
  ResponseContext,
  TokenUsage,
  TranslationError,
  TranslatorContext,
  UpstreamErrorInfo,
  UpstreamRequestSpec,
  errorTypeForStatus,
  isRecord,
  numberOr,
  parseDataUrl,
  parseToolArguments,
  rejectUnsupportedCommon,
  requestedMaxTokens,
  sanitizeUpstreamMessage,
  stopSequences,
  stringOr,
  textContent,
  toTokenUsage,
  tryParseJson,
} from '../translator.types';
import {
  ANTHROPIC_VERSION,
  AnthropicContentBlock,
  AnthropicMessage,
  AnthropicRequest,
  AnthropicTool,
  AnthropicToolChoice,
} from './anthropic.types';

/**
 * Anthropic requires max_tokens; OpenAI does not. 4096 is accepted by every current Claude model (older ones cap
 * output at 4096) and is long enough for ordinary answers; clients that need more send max_completion_tokens.
 */
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 4096;

/** The image media types Anthropic accepts. https://docs.anthropic.com/en/docs/build-with-claude/vision */
const IMAGE_MEDIA_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

// ---------------------------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------------------------

function rejectUnsupported(body: ChatCompletionCreateParams): void {
  rejectUnsupportedCommon(body);
  if ((body.n ?? 1) > 1) throw new TranslationError('Anthropic models return a single choice: n must be 1.', 'n');
  const format = body.response_format?.type;
  if (format !== undefined && format !== 'text') {
    throw new TranslationError(`response_format '${format}' is not supported by Anthropic models.`, 'response_format');
  }
  // Anthropic's range is 0–1 where OpenAI's is 0–2; rescaling would change the meaning, so say it plainly.
  if (typeof body.temperature === 'number' && body.temperature > 1) {
    throw new TranslationError('temperature must be between 0 and 1 for Anthropic models.', 'temperature');
  }
}

function imageBlock(url: string, param: string): AnthropicContentBlock {
  if (url.startsWith('data:')) {
    const { mimeType, data } = parseDataUrl(url, param);
    if (!IMAGE_MEDIA_TYPES.has(mimeType)) {
      throw new TranslationError(`Image type '${mimeType}' is not supported (use jpeg, png, gif or webp).`, param);
    }
    return { type: 'image', source: { type: 'base64', media_type: mimeType, data } };
  }
  // Anthropic fetches http(s) images itself: https://docs.anthropic.com/en/docs/build-with-claude/vision
  if (/^https?:\/\//i.test(url)) return { type: 'image', source: { type: 'url', url } };
  throw new TranslationError('image_url must be an http(s) URL or a base64 data URL.', param);
}

function fileBlock(part: ChatCompletionContentPart.File, param: string): AnthropicContentBlock {
  const { file_data: fileData, file_id: fileId, filename } = part.file;
  if (fileData === undefined) {
    throw new TranslationError(
      fileId !== undefined ? 'File references (file_id) are not supported; send file_data.' : 'file_data is required.',
      param,
    );
  }
  const { mimeType, data } = fileData.startsWith('data:')
    ? parseDataUrl(fileData, param)
    : { mimeType: filename?.toLowerCase().endsWith('.pdf') ? 'application/pdf' : 'unknown', data: fileData };
  if (mimeType !== 'application/pdf')
    throw new TranslationError('Only PDF files are supported by Anthropic models.', param);
  return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } };
}

function userBlocks(content: string | ChatCompletionContentPart[], param: string): AnthropicContentBlock[] {
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  const blocks: AnthropicContentBlock[] = [];
  content.forEach((part, index) => {
    const partParam = `${param}[${index}]`;
    switch (part.type) {
      case 'text':
        if (part.text !== '') blocks.push({ type: 'text', text: part.text });
        break;
      case 'image_url':
        blocks.push(imageBlock(part.image_url.url, `${partParam}.image_url`));
        break;
      case 'file':
        blocks.push(fileBlock(part, partParam));
        break;
      case 'input_audio':
        throw new TranslationError('Audio input is not supported by Anthropic models.', partParam);
      default:
        throw new TranslationError(
          `Content parts of type '${(part as { type: string }).type}' are not supported.`,
          partParam,
        );
    }
  });
  return blocks;
}

function assistantBlocks(
  message: Extract<ChatCompletionMessageParam, { role: 'assistant' }>,
  param: string,
): AnthropicContentBlock[] {
  if (message.function_call) {
    throw new TranslationError(
      "The deprecated 'function_call' is not supported; use 'tool_calls'.",
      `${param}.function_call`,
    );
  }
  const blocks: AnthropicContentBlock[] = [];
  const { content } = message;
  if (typeof content === 'string') {
    if (content !== '') blocks.push({ type: 'text', text: content });
  } else if (Array.isArray(content)) {
    for (const part of content) {
      // A refusal the model gave earlier is still something it said: keep it as text.
      const text = part.type === 'text' ? part.text : part.refusal;
      if (text !== '') blocks.push({ type: 'text', text });
    }
  }
  message.tool_calls?.forEach((call, index) => {
    const callParam = `${param}.tool_calls[${index}]`;
    if (call.type !== 'function')
      throw new TranslationError(`Tool calls of type '${call.type}' are not supported.`, callParam);
    blocks.push({
      type: 'tool_use',
      id: call.id,
      name: call.function.name,
      input: parseToolArguments(call.function.arguments, `${callParam}.function.arguments`),
    });
  });
  return blocks;
}

interface ConvertedMessages {
  system: string | undefined;
  messages: AnthropicMessage[];
  /** Tool names used by tool_use blocks in the history (see synthesizedTools). */
  usedToolNames: string[];
}

function convertMessages(input: readonly ChatCompletionMessageParam[]): ConvertedMessages {
  const systemParts: string[] = [];
  const messages: AnthropicMessage[] = [];
  const usedToolNames = new Set<string>();

  // Anthropic wants user/assistant turns; consecutive messages of one role become one turn.
  const append = (role: AnthropicMessage['role'], blocks: AnthropicContentBlock[]): void => {
    if (blocks.length === 0) return;
    const last = messages[messages.length - 1];
    if (last !== undefined && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };

  input.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        // Anthropic has one top-level system prompt (no system role in messages); OpenAI allows several anywhere.
        const text = textContent(message.content, `${param}.content`);
        if (text !== '') systemParts.push(text);
        break;
      }
      case 'user':
        append('user', userBlocks(message.content, `${param}.content`));
        break;
      case 'assistant': {
        const blocks = assistantBlocks(message, param);
        for (const block of blocks) if (block.type === 'tool_use') usedToolNames.add(block.name);
        append('assistant', blocks);
        break;
      }
      case 'tool': {
        // Tool results travel in a user turn, matched to the tool_use by id.
        const text = textContent(message.content, `${param}.content`);
        append('user', [
          { type: 'tool_result', tool_use_id: message.tool_call_id, ...(text !== '' ? { content: text } : {}) },
        ]);
        break;
      }
      default:
        throw new TranslationError(`Messages with role '${message.role}' are not supported.`, `${param}.role`);
    }
  });

  for (const message of messages) {
    // "tool_result blocks must come first in the user message", before any text the client added after them.
    if (message.role === 'user' && message.content.some((block) => block.type === 'tool_result')) {
      message.content = [
        ...message.content.filter((block) => block.type === 'tool_result'),
        ...message.content.filter((block) => block.type !== 'tool_result'),
      ];
    }
  }

  // A final assistant message is a prefill, and Anthropic rejects one that ends in whitespace.
  const last = messages[messages.length - 1];
  if (last?.role === 'assistant') {
    const tail = last.content[last.content.length - 1];
    if (tail?.type === 'text') {
      tail.text = tail.text.trimEnd();
      if (tail.text === '') last.content.pop();
      if (last.content.length === 0) messages.pop();
    }
  }

  if (messages.length === 0) {
    throw new TranslationError('At least one user or assistant message with content is required.', 'messages');
  }
  return {
    system: systemParts.length > 0 ? systemParts.join('\n\n') : undefined,
    messages,
    usedToolNames: [...usedToolNames],
  };
}

function convertTool(tool: ChatCompletionFunctionTool): AnthropicTool {
  const { name, description, parameters } = tool.function;
  return {
    name,
    ...(description ? { description } : {}),
    // input_schema is required and must be an object schema.
    input_schema: parameters && Object.keys(parameters).length > 0 ? parameters : { type: 'object', properties: {} },
  };
}

function allowedToolNames(entries: ReadonlyArray<JsonObject>): Set<string> {
  const names = new Set<string>();
  for (const entry of entries) {
    const name = isRecord(entry.function) ? entry.function.name : entry.name;
    if (typeof name === 'string') names.add(name);
  }
  return names;
}

function convertTools(
  body: ChatCompletionCreateParams,
  usedToolNames: string[],
): Pick<AnthropicRequest, 'tools' | 'tool_choice'> {
  let tools = (body.tools ?? []).filter((tool): tool is ChatCompletionFunctionTool => tool.type === 'function');
  const choice = body.tool_choice;
  let anthropicChoice: AnthropicToolChoice | undefined;

  if (choice === undefined) anthropicChoice = undefined;
  else if (choice === 'none') anthropicChoice = { type: 'none' };
  else if (choice === 'auto') anthropicChoice = { type: 'auto' };
  else if (choice === 'required') anthropicChoice = { type: 'any' };
  else if (choice.type === 'function') anthropicChoice = { type: 'tool', name: choice.function.name };
  else if (choice.type === 'allowed_tools') {
    // Anthropic has no "allowed subset": offer only that subset, with the same auto/required semantics.
    const allowed = allowedToolNames(choice.allowed_tools.tools);
    tools = tools.filter((tool) => allowed.has(tool.function.name));
    anthropicChoice = { type: choice.allowed_tools.mode === 'required' ? 'any' : 'auto' };
  } else {
    throw new TranslationError(`tool_choice of type '${choice.type}' is not supported.`, 'tool_choice');
  }

  if (tools.length === 0) {
    if (anthropicChoice?.type === 'any' || anthropicChoice?.type === 'tool') {
      throw new TranslationError('tool_choice requires tools.', 'tool_choice');
    }
    // Anthropic refuses a history with tool_use blocks when no tools are defined. OpenAI lets a client drop the
    // tools for a final turn, so declare the used names with an open schema and forbid calling them.
    if (usedToolNames.length > 0) {
      return {
        tools: usedToolNames.map((name) => ({ name, input_schema: { type: 'object' } })),
        tool_choice: { type: 'none' },
      };
    }
    return {};
  }

  if (body.parallel_tool_calls === false) {
    anthropicChoice ??= { type: 'auto' };
    if (anthropicChoice.type !== 'none') anthropicChoice = { ...anthropicChoice, disable_parallel_tool_use: true };
  }
  return { tools: tools.map(convertTool), ...(anthropicChoice ? { tool_choice: anthropicChoice } : {}) };
}

async function buildRequest(body: ChatCompletionCreateParams, ctx: TranslatorContext): Promise<UpstreamRequestSpec> {
  rejectUnsupported(body);
  const { system, messages, usedToolNames } = convertMessages(body.messages);
  const request: AnthropicRequest = {
    model: ctx.upstreamModel,
    max_tokens: requestedMaxTokens(body) ?? ANTHROPIC_DEFAULT_MAX_TOKENS,
    messages,
  };
  if (system !== undefined) request.system = system;
  if (typeof body.temperature === 'number') request.temperature = body.temperature;
  if (typeof body.top_p === 'number') request.top_p = body.top_p;
  const stop = stopSequences(body.stop);
  if (stop) request.stop_sequences = stop;
  Object.assign(request, convertTools(body, usedToolNames));
  // OpenAI's `user` (and its successor safety_identifier) is an opaque end-user id, as is metadata.user_id.
  const userId = body.user || body.safety_identifier;
  if (userId) request.metadata = { user_id: userId };
  if (body.stream) request.stream = true;

  return {
    path: '/messages',
    method: 'POST',
    headers: {
      'x-api-key': ctx.apiKey,
      'anthropic-version': ANTHROPIC_VERSION,
      'content-type': 'application/json',
    },
    body: JSON.stringify(request),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Response
// ---------------------------------------------------------------------------------------------------------------

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
    const data = tryParseJson(event.data);
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
