/** The request half of gemini.translator.ts: an OpenAI Chat Completions request as the provider's own. */
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParams,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import {
  FetchedImage,
  JsonObject,
  TranslationError,
  TranslatorContext,
  UpstreamRequestSpec,
  isRecord,
  parseDataUrl,
  parseToolArguments,
  rejectUnsupportedCommon,
  requestedMaxTokens,
  stopSequences,
  textContent,
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
} from '../../wire/gemini.types';

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

export async function buildRequest(
  body: ChatCompletionCreateParams,
  ctx: TranslatorContext,
): Promise<UpstreamRequestSpec> {
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
