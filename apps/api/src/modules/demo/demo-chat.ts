import { unixSeconds, type HandlerContext } from './context';
import { invalid, jsonResponse } from './errors';
import {
  bodyObject,
  invalidType,
  isObject,
  missing,
  optionalBoolean,
  optionalInteger,
  truncateChars,
  type JsonObject,
} from './fields';
import { sha256Hex } from './hash';
import {
  limitText,
  planReply,
  promptTokens,
  readFunctionTools,
  readToolChoice,
  type OutputFormat,
  type Reply,
  type Turn,
} from './demo-text';
import { SSE_DONE, sseEvent, sseResponse } from './streaming';
import { chunkTokens, countTokens } from './tokenizer';

/**
 * POST /v1/chat/completions and the legacy POST /v1/completions, in OpenAI's exact wire format: the
 * chat.completion / chat.completion.chunk and text_completion objects, `usage` with the detail objects,
 * `[DONE]` at the end of streams, and the usage-only last chunk when stream_options.include_usage is set.
 */

export const SYSTEM_FINGERPRINT = 'switchyard-demo';
/** Tokens per streamed content chunk. */
const TOKENS_PER_CHUNK = 3;
/** OpenAI's default max_tokens for the legacy completions endpoint. */
const LEGACY_DEFAULT_MAX_TOKENS = 16;

const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'] as const;

export function chatUsage(prompt: number, completion: number) {
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 },
    completion_tokens_details: {
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    },
  };
}

/** A content value (string or parts array) as text plus a count of image/audio/file parts. */
function readContent(value: unknown, param: string): { text: string; images: number; said?: string } {
  if (value === undefined || value === null) return { text: '', images: 0 };
  if (typeof value === 'string') return { text: value, images: 0 };
  if (!Array.isArray(value)) throw invalidType(param, 'a string or an array', value);
  const texts: string[] = [];
  let images = 0;
  value.forEach((part, index) => {
    const partParam = `${param}[${index}]`;
    if (!isObject(part)) throw invalidType(partParam, 'an object', part);
    switch (part.type) {
      case 'text':
        if (typeof part.text !== 'string') throw invalidType(`${partParam}.text`, 'a string', part.text);
        texts.push(part.text);
        break;
      case 'refusal':
        if (typeof part.refusal === 'string') texts.push(part.refusal);
        break;
      case 'image_url':
      case 'input_audio':
      case 'file':
        images++;
        break;
      default:
        throw invalid(
          `Invalid value: '${String(part.type)}'. Supported values are: 'text', 'image_url', 'input_audio', 'refusal', and 'file'.`,
          `${partParam}.type`,
        );
    }
  });
  return { text: texts.join('\n'), images, ...(texts.length > 1 ? { said: texts[texts.length - 1] } : {}) };
}

export function readMessages(value: unknown): Turn[] {
  if (value === undefined || value === null) throw missing('messages');
  if (!Array.isArray(value)) throw invalidType('messages', 'an array', value);
  if (value.length === 0) {
    throw invalid(
      "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.",
      'messages',
      'empty_array',
    );
  }
  const toolNames = new Map<string, string>();
  return value.map((message, index): Turn => {
    const param = `messages[${index}]`;
    if (!isObject(message)) throw invalidType(param, 'an object', message);
    const role = message.role;
    if (typeof role !== 'string' || !(ROLES as readonly string[]).includes(role)) {
      throw invalid(
        `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'tool', 'function' and 'developer'.`,
        `${param}.role`,
      );
    }
    const { text, images, said } = readContent(message.content, `${param}.content`);
    if (role === 'assistant') {
      const toolCalls = Array.isArray(message.tool_calls)
        ? message.tool_calls.filter(isObject).map((call) => {
            const fn = isObject(call.function) ? call.function : {};
            const id = typeof call.id === 'string' ? call.id : '';
            const name = typeof fn.name === 'string' ? fn.name : '';
            toolNames.set(id, name);
            return { id, name, arguments: typeof fn.arguments === 'string' ? fn.arguments : '' };
          })
        : [];
      if (message.content == null && toolCalls.length === 0 && message.function_call == null) {
        throw missing(`${param}.content`);
      }
      return { role, text, images, toolCalls };
    }
    if (message.content === undefined || message.content === null) throw missing(`${param}.content`);
    if (role === 'tool') {
      if (typeof message.tool_call_id !== 'string') throw missing(`${param}.tool_call_id`);
      const toolName = toolNames.get(message.tool_call_id);
      return { role, text, images, toolCalls: [], toolCallId: message.tool_call_id, toolName };
    }
    if (role === 'function') {
      const toolName = typeof message.name === 'string' ? message.name : undefined;
      return { role: 'tool', text, images, toolCalls: [], toolName };
    }
    return { role: role as Turn['role'], text, images, toolCalls: [], ...(said !== undefined ? { said } : {}) };
  });
}

export function readStop(value: unknown): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) {
    if (value.length > 4) {
      throw invalid(
        `Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length ${value.length} instead.`,
        'stop',
        'array_above_max_length',
      );
    }
    return value;
  }
  throw invalidType('stop', 'a string or an array of strings', value);
}

/** response_format (chat) or text.format (responses): text, json_object or json_schema. */
export function readOutputFormat(value: unknown, param: string): OutputFormat {
  if (value === undefined || value === null) return { kind: 'text' };
  if (!isObject(value)) throw invalidType(param, 'an object', value);
  if (value.type === 'text') return { kind: 'text' };
  if (value.type === 'json_object') return { kind: 'json_object' };
  if (value.type === 'json_schema') {
    // Chat nests the schema under json_schema; Responses puts it on the format object itself.
    const holder = isObject(value.json_schema) ? value.json_schema : value;
    return { kind: 'json_schema', schema: holder.schema ?? { type: 'object' } };
  }
  throw invalid(
    `Invalid value: '${String(value.type)}'. Supported values are: 'text', 'json_object', and 'json_schema'.`,
    `${param}.type`,
  );
}

function readStreamOptions(body: JsonObject, stream: boolean): boolean {
  const options = body.stream_options;
  if (options === undefined || options === null) return false;
  if (!stream) {
    throw invalid("The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  }
  if (!isObject(options)) throw invalidType('stream_options', 'an object', options);
  return options.include_usage === true;
}

/** Stable key of a request for deterministic ids: the body without its transport fields. */
export function requestKey(body: JsonObject, model: string): string {
  const { stream: _stream, stream_options: _options, ...rest } = body;
  return sha256Hex(model, JSON.stringify(rest));
}

export function chatCompletions(json: unknown, model: string, ctx: HandlerContext): Response {
  const body = bodyObject(json);
  const turns = readMessages(body.messages);
  const n = optionalInteger(body, 'n', 1, 128) ?? 1;
  const maxTokens = optionalInteger(body, 'max_completion_tokens', 1) ?? optionalInteger(body, 'max_tokens', 1);
  const stop = readStop(body.stop);
  const stream = optionalBoolean(body, 'stream') ?? false;
  const includeUsage = readStreamOptions(body, stream);
  const tools = readFunctionTools(body.tools, 'chat');
  const toolChoice = readToolChoice(body.tool_choice, tools.length > 0);
  const format = readOutputFormat(body.response_format, 'response_format');
  const key = requestKey(body, model);

  const replies: Reply[] = Array.from({ length: n }, (_, variant) =>
    planReply({ turns, tools, toolChoice, format, variant, maxTokens, stop, requestKey: key }),
  );
  const usage = chatUsage(
    promptTokens(turns, tools),
    replies.reduce((sum, reply) => sum + reply.tokens, 0),
  );
  const id = `chatcmpl-demo-${key.slice(0, 24)}`;
  const created = unixSeconds(ctx);

  if (!stream) {
    return jsonResponse({
      id,
      object: 'chat.completion',
      created,
      model,
      choices: replies.map((reply, index) => ({
        index,
        message:
          reply.kind === 'text'
            ? { role: 'assistant', content: reply.text, refusal: null, annotations: [] }
            : {
                role: 'assistant',
                content: null,
                refusal: null,
                annotations: [],
                tool_calls: [
                  {
                    id: reply.call.id,
                    type: 'function',
                    function: { name: reply.call.name, arguments: reply.call.arguments },
                  },
                ],
              },
        logprobs: null,
        finish_reason: reply.kind === 'text' ? reply.finishReason : 'tool_calls',
      })),
      usage,
      service_tier: 'default',
      system_fingerprint: SYSTEM_FINGERPRINT,
    });
  }

  // Built lazily: each yield is one SSE event, produced only when the consumer reads it.
  function* events(): Generator<string> {
    const base = {
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      service_tier: 'default',
      system_fingerprint: SYSTEM_FINGERPRINT,
    };
    // Like OpenAI: with include_usage every chunk carries `usage: null` except the last, usage-only one.
    const usageField = includeUsage ? { usage: null } : {};
    const chunk = (index: number, delta: unknown, finishReason: string | null) =>
      sseEvent({ ...base, choices: [{ index, delta, logprobs: null, finish_reason: finishReason }], ...usageField });

    const deltas = replies.map((reply): unknown[] => {
      if (reply.kind === 'text') {
        return [
          { role: 'assistant', content: '', refusal: null },
          ...chunkTokens(reply.text, TOKENS_PER_CHUNK).map((content) => ({ content })),
        ];
      }
      const { id: callId, name, arguments: args } = reply.call;
      return [
        {
          role: 'assistant',
          content: null,
          refusal: null,
          tool_calls: [{ index: 0, id: callId, type: 'function', function: { name, arguments: '' } }],
        },
        ...chunkTokens(args, TOKENS_PER_CHUNK).map((piece) => ({
          tool_calls: [{ index: 0, function: { arguments: piece } }],
        })),
      ];
    });
    // With n > 1 the choices are interleaved round by round, as OpenAI does.
    const rounds = Math.max(...deltas.map((list) => list.length));
    for (let round = 0; round < rounds; round++) {
      for (let index = 0; index < deltas.length; index++) {
        if (round < deltas[index].length) yield chunk(index, deltas[index][round], null);
      }
    }
    for (let index = 0; index < replies.length; index++) {
      const reply = replies[index];
      yield chunk(index, {}, reply.kind === 'text' ? reply.finishReason : 'tool_calls');
    }
    if (includeUsage) yield sseEvent({ ...base, choices: [], usage });
    yield SSE_DONE;
  }
  return sseResponse(events(), ctx.pacing);
}

interface LegacyPrompt {
  text: string;
  tokens: number;
  quote: string;
}

function readPrompts(value: unknown): LegacyPrompt[] {
  if (value === undefined || value === null) throw missing('prompt');
  const fromText = (text: string): LegacyPrompt => ({ text, tokens: countTokens(text), quote: text });
  const fromIds = (ids: unknown[], param: string): LegacyPrompt => {
    if (!ids.every((id) => Number.isInteger(id))) throw invalidType(param, 'an array of integers', ids);
    // Token ids cannot be turned back into text without the real vocabulary: quote their count instead.
    return { text: '', tokens: ids.length, quote: `${ids.length} token ids` };
  };
  if (typeof value === 'string') return [fromText(value)];
  if (!Array.isArray(value)) throw invalidType('prompt', 'a string or an array', value);
  if (value.length === 0) {
    throw invalid("Invalid 'prompt': empty array. Expected an array with minimum length 1.", 'prompt', 'empty_array');
  }
  if (value.every((item) => typeof item === 'string')) return value.map(fromText);
  if (value.every((item) => typeof item === 'number')) return [fromIds(value, 'prompt')];
  if (value.every((item) => Array.isArray(item))) {
    return (value as unknown[][]).map((ids, index) => fromIds(ids, `prompt[${index}]`));
  }
  throw invalidType('prompt', 'a string, an array of strings or an array of token arrays', value);
}

export function completions(json: unknown, model: string, ctx: HandlerContext): Response {
  const body = bodyObject(json);
  const prompts = readPrompts(body.prompt);
  const n = optionalInteger(body, 'n', 1, 128) ?? 1;
  const maxTokens = optionalInteger(body, 'max_tokens', 0) ?? LEGACY_DEFAULT_MAX_TOKENS;
  const stop = readStop(body.stop);
  const echo = optionalBoolean(body, 'echo') ?? false;
  const stream = optionalBoolean(body, 'stream') ?? false;
  const includeUsage = readStreamOptions(body, stream);
  const key = requestKey(body, model);

  const choices = prompts.flatMap((prompt, promptIndex) =>
    Array.from({ length: n }, (_, variant) => {
      let text =
        `\n\nThis is Switchyard's demo model continuing your prompt: "${truncateChars(prompt.quote.trim(), 200)}". ` +
        'The demo answers offline and deterministically, so the same prompt always gets the same text.';
      if (variant > 0) text += ` (Choice ${variant + 1}.)`;
      const limited = limitText(text, maxTokens, stop);
      return { index: promptIndex * n + variant, prompt, ...limited };
    }),
  );
  const promptTotal = prompts.reduce((sum, p) => sum + p.tokens, 0);
  const completionTotal = choices.reduce((sum, c) => sum + c.tokens, 0);
  const usage = {
    prompt_tokens: promptTotal,
    completion_tokens: completionTotal,
    total_tokens: promptTotal + completionTotal,
  };
  const id = `cmpl-demo-${key.slice(0, 24)}`;
  const created = unixSeconds(ctx);

  if (!stream) {
    return jsonResponse({
      id,
      object: 'text_completion',
      created,
      model,
      choices: choices.map((c) => ({
        text: (echo ? c.prompt.text : '') + c.text,
        index: c.index,
        logprobs: null,
        finish_reason: c.finishReason,
      })),
      usage,
      system_fingerprint: SYSTEM_FINGERPRINT,
    });
  }

  function* events(): Generator<string> {
    const usageField = includeUsage ? { usage: null } : {};
    const chunk = (index: number, text: string, finishReason: string | null) =>
      sseEvent({
        id,
        object: 'text_completion',
        created,
        model,
        choices: [{ text, index, logprobs: null, finish_reason: finishReason }],
        system_fingerprint: SYSTEM_FINGERPRINT,
        ...usageField,
      });
    for (const c of choices) {
      if (echo && c.prompt.text) yield chunk(c.index, c.prompt.text, null);
      for (const piece of chunkTokens(c.text, TOKENS_PER_CHUNK)) yield chunk(c.index, piece, null);
      yield chunk(c.index, '', c.finishReason);
    }
    if (includeUsage) {
      yield sseEvent({
        id,
        object: 'text_completion',
        created,
        model,
        choices: [],
        system_fingerprint: SYSTEM_FINGERPRINT,
        usage,
      });
    }
    yield SSE_DONE;
  }
  return sseResponse(events(), ctx.pacing);
}
