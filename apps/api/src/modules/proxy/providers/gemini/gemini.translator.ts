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
  ChatCompletionContentPart,
  ChatCompletionCreateParams,
  ChatCompletionFunctionTool,
  ChatCompletionMessageFunctionToolCall,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import type { CompletionUsage } from 'openai/resources/completions';
import { fromGemini, mergeUsage, toOpenAiUsage, type UsageNote } from '../../metering/token-usage';
import type { SseEvent } from '../sse';
import {
  ChatStreamTranslator,
  ChatTranslator,
  ChunkWriter,
  FetchedImage,
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
  textContent,
  toTokenUsage,
  toolCallName,
  tryParseJson,
} from '../translator.types';
import { toGeminiParameters, toGeminiSchema } from './gemini-schema';
import {
  GEMINI_SKIP_THOUGHT_SIGNATURE,
  GeminiContent,
  GeminiFunctionDeclaration,
  GeminiGenerationConfig,
  GeminiPart,
  GeminiRequest,
  GeminiToolConfig,
} from './gemini.types';

// ---------------------------------------------------------------------------------------------------------------
// Request
// ---------------------------------------------------------------------------------------------------------------

/** `/models/{model}:method`; a name that already has a collection (tunedModels/x, models/x) is used as is. */
function modelPath(model: string, method: string): string {
  const name = model.includes('/') ? model : `models/${model}`;
  return `/${name.split('/').map(encodeURIComponent).join('/')}:${method}`;
}

/** An inline_data part whose bytes are fetched by the engine once the whole request has been validated. */
interface PendingImage {
  part: GeminiPart;
  url: string;
}

function inlineData(mimeType: string, data: string): GeminiPart {
  return { inline_data: { mime_type: mimeType, data } };
}

function imagePart(url: string, param: string, pending: PendingImage[]): GeminiPart {
  if (url.startsWith('data:')) {
    const { mimeType, data } = parseDataUrl(url, param);
    return inlineData(mimeType, data);
  }
  // Gemini cannot fetch arbitrary URLs itself (file_data only takes Files API or GCS URIs), so the engine does.
  if (/^https?:\/\//i.test(url)) {
    const part = inlineData('', '');
    pending.push({ part, url });
    return part;
  }
  throw new TranslationError('image_url must be an http(s) URL or a base64 data URL.', param);
}

function filePart(part: ChatCompletionContentPart.File, param: string): GeminiPart {
  const { file_data: fileData, file_id: fileId, filename } = part.file;
  if (fileData === undefined) {
    throw new TranslationError(
      fileId !== undefined ? 'File references (file_id) are not supported; send file_data.' : 'file_data is required.',
      param,
    );
  }
  if (fileData.startsWith('data:')) {
    const { mimeType, data } = parseDataUrl(fileData, param);
    return inlineData(mimeType, data);
  }
  if (filename?.toLowerCase().endsWith('.pdf')) return inlineData('application/pdf', fileData);
  throw new TranslationError('file_data must be a base64 data URL (or a .pdf filename must be given).', param);
}

function userParts(
  content: string | ChatCompletionContentPart[],
  param: string,
  pending: PendingImage[],
): GeminiPart[] {
  if (typeof content === 'string') return content === '' ? [] : [{ text: content }];
  const parts: GeminiPart[] = [];
  content.forEach((part, index) => {
    const partParam = `${param}[${index}]`;
    switch (part.type) {
      case 'text':
        if (part.text !== '') parts.push({ text: part.text });
        break;
      case 'image_url':
        parts.push(imagePart(part.image_url.url, `${partParam}.image_url`, pending));
        break;
      case 'input_audio':
        // Gemini takes audio inline: https://ai.google.dev/gemini-api/docs/audio (audio/wav, audio/mp3, …).
        parts.push(inlineData(part.input_audio.format === 'mp3' ? 'audio/mp3' : 'audio/wav', part.input_audio.data));
        break;
      case 'file':
        parts.push(filePart(part, partParam));
        break;
      default:
        throw new TranslationError(
          `Content parts of type '${(part as { type: string }).type}' are not supported.`,
          partParam,
        );
    }
  });
  return parts;
}

function modelParts(message: Extract<ChatCompletionMessageParam, { role: 'assistant' }>, param: string): GeminiPart[] {
  if (message.function_call) {
    throw new TranslationError(
      "The deprecated 'function_call' is not supported; use 'tool_calls'.",
      `${param}.function_call`,
    );
  }
  const parts: GeminiPart[] = [];
  const { content } = message;
  if (typeof content === 'string') {
    if (content !== '') parts.push({ text: content });
  } else if (Array.isArray(content)) {
    for (const part of content) {
      const text = part.type === 'text' ? part.text : part.refusal;
      if (text !== '') parts.push({ text });
    }
  }
  message.tool_calls?.forEach((call, index) => {
    const callParam = `${param}.tool_calls[${index}]`;
    if (call.type !== 'function')
      throw new TranslationError(`Tool calls of type '${call.type}' are not supported.`, callParam);
    parts.push({
      functionCall: {
        name: call.function.name,
        args: parseToolArguments(call.function.arguments, `${callParam}.function.arguments`),
      },
    });
  });
  return parts;
}

/** functionResponse.response must be a JSON object: a tool's JSON object result as is, anything else wrapped. */
function functionResponseBody(text: string): JsonObject {
  const parsed = tryParseJson(text);
  return isRecord(parsed) ? parsed : { content: text };
}

interface ConvertedMessages {
  systemInstruction: GeminiRequest['systemInstruction'];
  contents: GeminiContent[];
  pending: PendingImage[];
}

function convertMessages(messages: readonly ChatCompletionMessageParam[]): ConvertedMessages {
  const systemParts: string[] = [];
  const contents: GeminiContent[] = [];
  const pending: PendingImage[] = [];

  // Consecutive messages of one role become one Content; in particular the results of parallel tool calls end up
  // in one user turn, as Gemini expects one functionResponse per functionCall of the previous model turn.
  const append = (role: GeminiContent['role'], parts: GeminiPart[]): void => {
    if (parts.length === 0) return; // Gemini rejects a Content without parts
    const last = contents[contents.length - 1];
    if (last !== undefined && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };

  messages.forEach((message, index) => {
    const param = `messages[${index}]`;
    switch (message.role) {
      case 'system':
      case 'developer': {
        const text = textContent(message.content, `${param}.content`);
        if (text !== '') systemParts.push(text);
        break;
      }
      case 'user':
        append('user', userParts(message.content, `${param}.content`, pending));
        break;
      case 'assistant':
        append('model', modelParts(message, param));
        break;
      case 'tool': {
        // Gemini matches results to calls by function name, which OpenAI tool messages do not carry.
        const name = toolCallName(messages, index, message.tool_call_id);
        if (name === undefined) {
          throw new TranslationError(
            `No earlier assistant tool call has the id '${message.tool_call_id}'.`,
            `${param}.tool_call_id`,
          );
        }
        const text = textContent(message.content, `${param}.content`);
        append('user', [{ functionResponse: { name, response: functionResponseBody(text) } }]);
        break;
      }
      default:
        throw new TranslationError(`Messages with role '${message.role}' are not supported.`, `${param}.role`);
    }
  });

  for (const content of contents) {
    const firstCall = content.role === 'model' ? content.parts.find((part) => part.functionCall) : undefined;
    // Only the first function call of a step carries the signature (docs: parallel function calls).
    if (firstCall) firstCall.thoughtSignature = GEMINI_SKIP_THOUGHT_SIGNATURE;
  }

  if (contents.length === 0) {
    throw new TranslationError('At least one user or assistant message with content is required.', 'messages');
  }
  return {
    systemInstruction: systemParts.length > 0 ? { parts: [{ text: systemParts.join('\n\n') }] } : undefined,
    contents,
    pending,
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

function convertTools(body: ChatCompletionCreateParams): Pick<GeminiRequest, 'tools' | 'toolConfig'> {
  let tools = (body.tools ?? []).filter((tool): tool is ChatCompletionFunctionTool => tool.type === 'function');
  const choice = body.tool_choice;
  let toolConfig: GeminiToolConfig | undefined;

  if (choice === undefined) toolConfig = undefined;
  else if (choice === 'none') toolConfig = { functionCallingConfig: { mode: 'NONE' } };
  else if (choice === 'auto') toolConfig = { functionCallingConfig: { mode: 'AUTO' } };
  else if (choice === 'required') toolConfig = { functionCallingConfig: { mode: 'ANY' } };
  else if (choice.type === 'function') {
    toolConfig = { functionCallingConfig: { mode: 'ANY', allowedFunctionNames: [choice.function.name] } };
  } else if (choice.type === 'allowed_tools') {
    // allowedFunctionNames only works with mode ANY, so the subset is expressed by declaring only those tools.
    const allowed = allowedToolNames(choice.allowed_tools.tools);
    tools = tools.filter((tool) => allowed.has(tool.function.name));
    toolConfig = { functionCallingConfig: { mode: choice.allowed_tools.mode === 'required' ? 'ANY' : 'AUTO' } };
  } else {
    throw new TranslationError(`tool_choice of type '${choice.type}' is not supported.`, 'tool_choice');
  }

  if (tools.length === 0) {
    if (toolConfig?.functionCallingConfig.mode === 'ANY')
      throw new TranslationError('tool_choice requires tools.', 'tool_choice');
    return {};
  }
  const functionDeclarations = tools.map((tool): GeminiFunctionDeclaration => {
    const { name, description, parameters } = tool.function;
    const converted = toGeminiParameters(parameters);
    return { name, ...(description ? { description } : {}), ...(converted ? { parameters: converted } : {}) };
  });
  return { tools: [{ functionDeclarations }], ...(toolConfig ? { toolConfig } : {}) };
}

function generationConfig(body: ChatCompletionCreateParams): GeminiGenerationConfig | undefined {
  const config: GeminiGenerationConfig = {};
  const maxTokens = requestedMaxTokens(body);
  if (maxTokens !== undefined) config.maxOutputTokens = maxTokens;
  if (typeof body.temperature === 'number') config.temperature = body.temperature;
  if (typeof body.top_p === 'number') config.topP = body.top_p;
  const stop = stopSequences(body.stop);
  if (stop) config.stopSequences = stop;
  if (typeof body.n === 'number' && body.n > 1) config.candidateCount = body.n;
  if (typeof body.seed === 'number') config.seed = body.seed;
  // Many clients send 0 penalties by default, and some Gemini models refuse penalties altogether: only forward
  // a penalty the client actually asked for.
  if (body.presence_penalty) config.presencePenalty = body.presence_penalty;
  if (body.frequency_penalty) config.frequencyPenalty = body.frequency_penalty;
  // JSON mode: https://ai.google.dev/gemini-api/docs/structured-output
  const format = body.response_format;
  if (format?.type === 'json_object') config.responseMimeType = 'application/json';
  else if (format?.type === 'json_schema') {
    config.responseMimeType = 'application/json';
    if (format.json_schema.schema) config.responseSchema = toGeminiSchema(format.json_schema.schema);
  }
  return Object.keys(config).length > 0 ? config : undefined;
}

async function fetchImages(pending: PendingImage[], fetchImage: TranslatorContext['fetchImage']): Promise<void> {
  // Fetched only once the whole request is known to be valid, each distinct URL once, all at the same time.
  // A failed fetch rejects with the engine's own error, which the engine knows how to answer.
  const byUrl = new Map<string, Promise<FetchedImage>>();
  for (const { url } of pending) if (!byUrl.has(url)) byUrl.set(url, fetchImage(url));
  const images = await Promise.all(pending.map(({ url }) => byUrl.get(url) as Promise<FetchedImage>));
  pending.forEach(({ part }, index) => {
    part.inline_data = { mime_type: images[index].mimeType, data: images[index].data };
  });
}

async function buildRequest(body: ChatCompletionCreateParams, ctx: TranslatorContext): Promise<UpstreamRequestSpec> {
  rejectUnsupportedCommon(body);
  const { systemInstruction, contents, pending } = convertMessages(body.messages);
  const request: GeminiRequest = { contents };
  if (systemInstruction) request.systemInstruction = systemInstruction;
  const config = generationConfig(body);
  if (config) request.generationConfig = config;
  Object.assign(request, convertTools(body));
  await fetchImages(pending, ctx.fetchImage);

  return {
    // alt=sse makes the stream Server-Sent Events (one GenerateContentResponse per event) instead of a JSON array.
    path: modelPath(ctx.upstreamModel, body.stream ? 'streamGenerateContent?alt=sse' : 'generateContent'),
    method: 'POST',
    headers: { 'x-goog-api-key': ctx.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify(request),
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Response
// ---------------------------------------------------------------------------------------------------------------

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
    const data = tryParseJson(event.data);
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
