import type { CatalogModel } from '../../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../../errors/gateway.exception';
import type { Json } from '../../wire/frame';
import { toJsonSchema } from './gemini-schema';

/**
 * Gemini's GenerateContentRequest (docs/gemini.md) as an OpenAI Chat Completions request, for any chat model: the
 * face's translation, checked field by field (the request is untrusted). Google's REST API takes its fields in
 * lowerCamelCase or in the proto's snake_case (`system_instruction`, `inline_data`): both are read.
 */

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const invalid = (message: string, param: string) =>
  new GatewayException(GatewayErrorCode.INVALID_REQUEST, `${param}: ${message}`, { param });

/** A field in either spelling: `systemInstruction` or `system_instruction`. */
export function field(object: Json, camel: string): unknown {
  if (object[camel] !== undefined) return object[camel];
  return object[camel.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)];
}

/** The media types a part's inline data may carry, as what the chat request takes. */
const AUDIO_FORMATS: Record<string, string> = {
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mp3': 'mp3',
  'audio/mpeg': 'mp3',
};

/** The text of a Content's parts (a system instruction): text parts only. */
function textOf(content: unknown, param: string): string {
  if (typeof content === 'string') return content;
  if (!isObject(content) || !Array.isArray(content.parts)) throw invalid('must be a Content with parts', param);
  return (content.parts as unknown[])
    .map((part, at) => {
      if (!isObject(part) || typeof part.text !== 'string')
        throw invalid('only text parts are taken here', `${param}.parts[${at}]`);
      return part.text;
    })
    .join('\n');
}

/** Inline data (base64) as a chat content part: an image, audio, or a PDF. */
function inlinePart(data: Json, param: string): Json {
  const mimeType = String(field(data, 'mimeType') ?? '').toLowerCase();
  const bytes = data.data;
  if (typeof bytes !== 'string' || !bytes) throw invalid('inline data needs its base64 data', `${param}.data`);
  if (mimeType.startsWith('image/'))
    return { type: 'image_url', image_url: { url: `data:${mimeType};base64,${bytes}` } };
  if (AUDIO_FORMATS[mimeType])
    return { type: 'input_audio', input_audio: { data: bytes, format: AUDIO_FORMATS[mimeType] } };
  if (mimeType === 'application/pdf')
    return { type: 'file', file: { filename: 'document.pdf', file_data: `data:application/pdf;base64,${bytes}` } };
  throw invalid(`inline data of type ${mimeType.slice(0, 80) || '(none)'} is not served`, `${param}.mimeType`);
}

/** File data by URI: an image at an http(s) URL; files on Google's own storage are the provider account's. */
function filePart(data: Json, param: string): Json {
  const uri = String(field(data, 'fileUri') ?? '');
  const mimeType = String(field(data, 'mimeType') ?? '').toLowerCase();
  if (!/^https?:\/\//i.test(uri) || /^https?:\/\/generativelanguage\.googleapis\.com\//i.test(uri))
    throw invalid(
      'only images at an http(s) URL are served: files uploaded to Google are the provider account’s',
      param,
    );
  if (mimeType && !mimeType.startsWith('image/')) throw invalid('only images are served by URL', `${param}.mimeType`);
  return { type: 'image_url', image_url: { url: uri } };
}

/** Names tool calls and answers them: a call's id, or one made up in order (`call_0`, …), matched back by name. */
class ToolCallIds {
  private next = 0;
  private readonly open: { id: string; name: string }[] = [];

  call(name: string, id: unknown): string {
    const callId = typeof id === 'string' && id ? id : `call_${this.next}`;
    this.next += 1;
    this.open.push({ id: callId, name });
    return callId;
  }

  /** The id a response answers: its own, else the earliest open call of its name. */
  answer(name: string, id: unknown): string {
    const at = this.open.findIndex((call) => (typeof id === 'string' && id ? call.id === id : call.name === name));
    if (at < 0) return typeof id === 'string' && id ? id : `call_${name}`;
    return this.open.splice(at, 1)[0].id;
  }
}

/** One Content as chat messages: a model turn's text and function calls; a user turn's function responses first. */
function toChatMessages(content: unknown, index: number, ids: ToolCallIds): Json[] {
  const param = `contents[${index}]`;
  if (!isObject(content) || !Array.isArray(content.parts))
    throw invalid('each content has a role and a list of parts', param);
  const role = content.role ?? 'user';
  if (role !== 'user' && role !== 'model' && role !== 'function')
    throw invalid('role must be user or model', `${param}.role`);
  const texts: string[] = [];
  const parts: Json[] = [];
  const calls: Json[] = [];
  const answers: Json[] = [];
  (content.parts as unknown[]).forEach((part, at) => {
    const partParam = `${param}.parts[${at}]`;
    if (!isObject(part)) throw invalid('each part is an object', partParam);
    // Thoughts the model wrote in an earlier turn are its own: not sent again (their signatures with them).
    if (part.thought === true) return;
    const call = field(part, 'functionCall');
    const response = field(part, 'functionResponse');
    const inline = field(part, 'inlineData');
    const file = field(part, 'fileData');
    if (typeof part.text === 'string') {
      if (role === 'model') texts.push(part.text);
      else if (part.text) parts.push({ type: 'text', text: part.text });
    } else if (isObject(call)) {
      if (role !== 'model') throw invalid('a function call is the model’s', partParam);
      const name = String(call.name ?? '');
      if (!name) throw invalid('a function call names its function', `${partParam}.functionCall.name`);
      calls.push({
        id: ids.call(name, call.id),
        type: 'function',
        function: { name, arguments: JSON.stringify(isObject(call.args) ? call.args : {}) },
      });
    } else if (isObject(response)) {
      if (role === 'model') throw invalid('a function response is the caller’s', partParam);
      const name = String(response.name ?? '');
      answers.push({
        role: 'tool',
        tool_call_id: ids.answer(name, response.id),
        content: JSON.stringify(response.response ?? {}),
      });
    } else if (isObject(inline)) {
      if (role === 'model') throw invalid('only text and function calls are taken in a model turn', partParam);
      parts.push(inlinePart(inline, `${partParam}.inlineData`));
    } else if (isObject(file)) {
      if (role === 'model') throw invalid('only text and function calls are taken in a model turn', partParam);
      parts.push(filePart(file, `${partParam}.fileData`));
    } else if (field(part, 'executableCode') !== undefined || field(part, 'codeExecutionResult') !== undefined)
      throw invalid('code execution runs on the provider’s account: not served', partParam);
    // A part with only a thought signature, or nothing the gateway reads (video metadata), carries nothing.
  });
  if (role === 'model') {
    if (!texts.length && !calls.length) return [];
    return [
      {
        role: 'assistant',
        content: texts.length ? texts.join('') : null,
        ...(calls.length ? { tool_calls: calls } : {}),
      },
    ];
  }
  return parts.length ? [...answers, { role: 'user', content: parts }] : answers;
}

/** `functionDeclarations` as chat tools (the schema in `parametersJsonSchema` as it is, else converted). */
function toChatTools(tools: unknown): Json[] {
  if (tools === undefined || tools === null) return [];
  if (!Array.isArray(tools)) throw invalid('must be a list', 'tools');
  const out: Json[] = [];
  tools.forEach((tool: unknown, at) => {
    if (!isObject(tool)) throw invalid('each tool is an object', `tools[${at}]`);
    const declarations = field(tool, 'functionDeclarations');
    if (declarations === undefined) return;
    if (!Array.isArray(declarations)) throw invalid('must be a list', `tools[${at}].functionDeclarations`);
    declarations.forEach((declaration: unknown, index) => {
      const param = `tools[${at}].functionDeclarations[${index}]`;
      if (!isObject(declaration) || typeof declaration.name !== 'string' || !declaration.name)
        throw invalid('each function declaration has a name', param);
      const json = field(declaration, 'parametersJsonSchema');
      const schema = isObject(json)
        ? json
        : isObject(declaration.parameters)
          ? toJsonSchema(declaration.parameters)
          : { type: 'object', properties: {} };
      out.push({
        type: 'function',
        function: {
          name: declaration.name,
          ...(typeof declaration.description === 'string' ? { description: declaration.description } : {}),
          parameters: schema,
        },
      });
    });
  });
  return out;
}

/** `toolConfig.functionCallingConfig` as a tool choice, and the names the call may use (null: all). */
function toolChoice(config: unknown): { choice: unknown; allowed: Set<string> | null } {
  const calling = isObject(config) ? field(config, 'functionCallingConfig') : undefined;
  if (!isObject(calling)) return { choice: undefined, allowed: null };
  const names = field(calling, 'allowedFunctionNames');
  const allowed = Array.isArray(names) && names.length ? new Set(names.map(String)) : null;
  switch (calling.mode ?? 'AUTO') {
    case 'AUTO':
    case 'MODE_UNSPECIFIED':
    case 'VALIDATED':
      return { choice: 'auto', allowed };
    case 'ANY':
      return allowed?.size === 1
        ? { choice: { type: 'function', function: { name: [...allowed][0] } }, allowed }
        : { choice: 'required', allowed };
    case 'NONE':
      return { choice: 'none', allowed };
    default:
      throw invalid('mode must be AUTO, ANY, NONE or VALIDATED', 'toolConfig.functionCallingConfig.mode');
  }
}

/** Gemini's thinking levels (and budgets) as OpenAI's reasoning_effort, for a model with the `reasoning` capability. */
function reasoningEffort(thinking: unknown): string | undefined {
  if (!isObject(thinking)) return undefined;
  const level = String(field(thinking, 'thinkingLevel') ?? '').toUpperCase();
  if (level === 'LOW' || level === 'MINIMAL') return 'low';
  if (level === 'MEDIUM') return 'medium';
  if (level === 'HIGH') return 'high';
  const budget = field(thinking, 'thinkingBudget');
  if (typeof budget !== 'number' || budget < 0) return undefined;
  return budget <= 1024 ? 'low' : budget <= 8192 ? 'medium' : 'high';
}

/** The generation config's fields as the chat request's. */
function generation(config: unknown, model: CatalogModel, chat: Json, dropped: string[]): void {
  if (config === undefined || config === null) return;
  if (!isObject(config)) throw invalid('must be an object', 'generationConfig');
  const number = (name: string, to: string) => {
    const value = field(config, name);
    if (value === undefined || value === null) return;
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw invalid('must be a number', `generationConfig.${name}`);
    chat[to] = value;
  };
  number('temperature', 'temperature');
  number('topP', 'top_p');
  number('presencePenalty', 'presence_penalty');
  number('frequencyPenalty', 'frequency_penalty');
  number('seed', 'seed');
  number('candidateCount', 'n');
  number('maxOutputTokens', model.maxTokensParam);
  const stops = field(config, 'stopSequences');
  if (stops !== undefined) {
    if (!Array.isArray(stops) || stops.some((stop) => typeof stop !== 'string'))
      throw invalid('must be a list of strings', 'generationConfig.stopSequences');
    if (stops.length) chat.stop = stops;
  }
  const mime = field(config, 'responseMimeType');
  const schema = field(config, 'responseJsonSchema') ?? field(config, 'responseSchema');
  if (mime === 'application/json')
    chat.response_format = isObject(schema)
      ? {
          type: 'json_schema',
          json_schema: {
            name: 'response',
            schema: field(config, 'responseJsonSchema') !== undefined ? schema : toJsonSchema(schema),
          },
        }
      : { type: 'json_object' };
  else if (mime !== undefined && mime !== 'text/plain')
    throw invalid('only text/plain and application/json are served', 'generationConfig.responseMimeType');
  const modalities = field(config, 'responseModalities');
  if (Array.isArray(modalities) && modalities.some((modality) => String(modality).toUpperCase() !== 'TEXT'))
    throw invalid('only TEXT answers are served', 'generationConfig.responseModalities');
  if (field(config, 'responseLogprobs') === true || field(config, 'logprobs') !== undefined)
    throw invalid('log probabilities are not served', 'generationConfig.responseLogprobs');
  if (field(config, 'speechConfig') !== undefined)
    throw invalid('speech answers are not served', 'generationConfig.speechConfig');
  const effort = reasoningEffort(field(config, 'thinkingConfig'));
  if (effort && model.capabilities.includes('reasoning')) chat.reasoning_effort = effort;
  else if (field(config, 'thinkingConfig') !== undefined) dropped.push('generationConfig.thinkingConfig');
  for (const name of ['topK', 'mediaResolution'])
    if (field(config, name) !== undefined) dropped.push(`generationConfig.${name}`);
}

/** Whether the caller asked for the model's thoughts (`thinkingConfig.includeThoughts`): they come back as thought parts. */
export function thoughtsAsked(json: Json): boolean {
  const config = field(json, 'generationConfig');
  const thinking = isObject(config) ? field(config, 'thinkingConfig') : undefined;
  return isObject(thinking) && field(thinking, 'includeThoughts') === true;
}

/** The fields the translation reads; every other one is dropped (and named at debug level). */
const READ = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig', 'model']);

/**
 * The chat request of a GenerateContentRequest (checked by the face's policy first, gemini-policy.ts): `model` the
 * catalog's id, `stream` (with the usage chunk, which becomes the last chunk's usageMetadata) for
 * streamGenerateContent. Lost in translation (docs/gemini.md): thoughts and thought signatures of earlier turns,
 * topK, safety settings, labels, and every field not read here, each named to `dropped`.
 */
export function toChatRequest(
  json: Json,
  model: CatalogModel,
  stream: boolean,
  dropped: (fields: string[]) => void,
): Json {
  const contents = json.contents;
  if (!Array.isArray(contents) || !contents.length) throw invalid('must be a non-empty list', 'contents');
  const messages: Json[] = [];
  const system = field(json, 'systemInstruction');
  if (system !== undefined && system !== null) {
    const text = textOf(system, 'systemInstruction');
    if (text) messages.push({ role: 'system', content: text });
  }
  const ids = new ToolCallIds();
  contents.forEach((content, index) => messages.push(...toChatMessages(content, index, ids)));
  if (!messages.some((message) => message.role !== 'system'))
    throw invalid('at least one content must carry text, data or a function call', 'contents');
  const chat: Json = { model: model.id, messages };
  const { choice, allowed } = toolChoice(field(json, 'toolConfig'));
  const tools = toChatTools(json.tools).filter((tool) => !allowed || allowed.has(String((tool.function as Json).name)));
  if (tools.length) {
    chat.tools = tools;
    if (choice !== undefined) chat.tool_choice = choice;
  }
  const unread: string[] = [];
  generation(field(json, 'generationConfig'), model, chat, unread);
  if (stream) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  for (const key of Object.keys(json))
    if (!READ.has(key.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()))) unread.push(key.slice(0, 60));
  if (unread.length) dropped(unread);
  return chat;
}
