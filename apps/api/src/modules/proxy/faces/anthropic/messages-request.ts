import type { CatalogModel } from '../../catalog/catalog.types';
import { GatewayErrorCode, GatewayException } from '../../errors/gateway.exception';

/**
 * Anthropic's Messages request (docs/anthropic.md): what the gateway checks of it before anything is reserved, and
 * its translation into an OpenAI Chat Completions request for a model that is not on an Anthropic provider.
 * The request is untrusted: every field is checked before use.
 */
type Json = Record<string, unknown>;

/** Anthropic's smallest thinking budget. */
export const MIN_THINKING_BUDGET = 1024;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
const invalid = (message: string, param: string) =>
  new GatewayException(GatewayErrorCode.INVALID_REQUEST, message, { param });

/**
 * The checks every Messages request passes, whatever the model: max_tokens (required by the format) a whole number
 * from 1, messages a non-empty list, an enabled thinking budget from 1,024 and below max_tokens (it is part of the
 * output max_tokens bounds, so the reservation of max_tokens covers it).
 */
export function checkMessagesRequest(json: Json): void {
  const max = json.max_tokens;
  if (max === undefined || max === null) throw invalid('max_tokens is required', 'max_tokens');
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 1)
    throw invalid('max_tokens must be a whole number from 1', 'max_tokens');
  if (!Array.isArray(json.messages) || !json.messages.length)
    throw invalid('messages must be a non-empty list', 'messages');
  const budget = thinkingBudget(json);
  if (budget !== null && budget >= max)
    throw invalid('thinking.budget_tokens must be less than max_tokens', 'thinking.budget_tokens');
}

/** The enabled thinking's budget_tokens (checked), or null. */
export function thinkingBudget(json: Json): number | null {
  const thinking = json.thinking;
  if (thinking === undefined || thinking === null) return null;
  if (!isObject(thinking)) throw invalid('thinking must be an object', 'thinking');
  if (thinking.type !== 'enabled') return null;
  const budget = thinking.budget_tokens;
  if (typeof budget !== 'number' || !Number.isInteger(budget) || budget < MIN_THINKING_BUDGET)
    throw invalid(
      `thinking.budget_tokens must be a whole number from ${MIN_THINKING_BUDGET}`,
      'thinking.budget_tokens',
    );
  return budget;
}

/**
 * Keeps an enabled thinking budget below a max_tokens the budget lowered (Anthropic refuses one at or above it).
 * False when no thinking budget Anthropic accepts fits: the call cannot be served within what the account holds.
 */
export function fitThinking(json: Json, maxTokens: number): boolean {
  const budget = thinkingBudget(json);
  if (budget === null || budget < maxTokens) return true;
  if (maxTokens - 1 < MIN_THINKING_BUDGET) return false;
  json.thinking = { ...(json.thinking as Json), budget_tokens: maxTokens - 1 };
  return true;
}

/** The text of a string or a list of text blocks (system prompts, tool results); other blocks are left out. */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((block): block is Json => isObject(block) && block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n');
}

/** An image block as an OpenAI image part: base64 as a data URL, a URL as it is. */
function imagePart(block: Json, param: string): Json {
  const source = isObject(block.source) ? block.source : {};
  if (source.type === 'base64' && typeof source.media_type === 'string' && typeof source.data === 'string')
    return { type: 'image_url', image_url: { url: `data:${source.media_type};base64,${source.data}` } };
  if (source.type === 'url' && typeof source.url === 'string')
    return { type: 'image_url', image_url: { url: source.url } };
  throw invalid('An image source must be base64 (media_type and data) or a url', param);
}

/**
 * One Anthropic message as OpenAI messages: a user turn's tool results become tool messages, before its other
 * parts; a system message among the messages (Anthropic's mid-conversation system prompt) stays a system message
 * where it is (Gemini's translator gathers every one into its system instruction).
 */
function toChatMessages(message: unknown, index: number): Json[] {
  const param = `messages[${index}]`;
  if (!isObject(message) || (message.role !== 'user' && message.role !== 'assistant' && message.role !== 'system'))
    throw invalid('Each message has a role, user, assistant or system, and content', param);
  const { role, content } = message;
  if (role === 'system') {
    if (typeof content !== 'string' && !Array.isArray(content))
      throw invalid('A system message’s content is a string or a list of text blocks', `${param}.content`);
    const text = textOf(content);
    return text ? [{ role: 'system', content: text }] : [];
  }
  if (typeof content === 'string') return [{ role, content }];
  if (!Array.isArray(content)) throw invalid('content must be a string or a list of blocks', `${param}.content`);
  if (role === 'assistant') {
    const texts: string[] = [];
    const toolCalls: Json[] = [];
    for (const block of content as unknown[]) {
      if (!isObject(block)) continue;
      if (block.type === 'text' && typeof block.text === 'string') texts.push(block.text);
      else if (block.type === 'tool_use')
        toolCalls.push({
          id: String(block.id ?? ''),
          type: 'function',
          function: { name: String(block.name ?? ''), arguments: JSON.stringify(block.input ?? {}) },
        });
      // thinking and redacted_thinking blocks have no Chat Completions counterpart: dropped (docs/anthropic.md).
    }
    return [
      {
        role: 'assistant',
        content: texts.length ? texts.join('') : null,
        ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
      },
    ];
  }
  const tools: Json[] = [];
  const parts: Json[] = [];
  (content as unknown[]).forEach((block, at) => {
    const blockParam = `${param}.content[${at}]`;
    if (!isObject(block)) throw invalid('Each content block is an object', blockParam);
    switch (block.type) {
      case 'text':
        parts.push({ type: 'text', text: String(block.text ?? '') });
        return;
      case 'image':
        parts.push(imagePart(block, blockParam));
        return;
      case 'tool_result': {
        const images = Array.isArray(block.content)
          ? (block.content as unknown[]).filter((item): item is Json => isObject(item) && item.type === 'image')
          : [];
        const text = textOf(block.content);
        tools.push({
          role: 'tool',
          tool_call_id: String(block.tool_use_id ?? ''),
          content: block.is_error === true ? `Error: ${text}` : text,
        });
        // A tool message carries text only: a tool result's images follow in the user turn.
        for (const image of images) parts.push(imagePart(image, blockParam));
        return;
      }
      default:
        throw invalid(
          `Content blocks of type ${String(block.type).slice(0, 50)} are served by Anthropic models only`,
          blockParam,
        );
    }
  });
  return parts.length ? [...tools, { role: 'user', content: parts }] : tools;
}

function toChatTools(tools: unknown): Json[] | undefined {
  if (tools === undefined || tools === null) return undefined;
  if (!Array.isArray(tools)) throw invalid('tools must be a list', 'tools');
  return tools.map((tool: unknown, index) => {
    if (!isObject(tool) || typeof tool.name !== 'string' || !isObject(tool.input_schema))
      throw invalid(
        "Only custom tools (a name and an input_schema) are served by models that are not Anthropic's",
        `tools[${index}]`,
      );
    return {
      type: 'function',
      function: {
        name: tool.name,
        ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
        parameters: tool.input_schema,
      },
    };
  });
}

function toChatToolChoice(choice: unknown): unknown {
  if (!isObject(choice)) return undefined;
  switch (choice.type) {
    case 'auto':
      return 'auto';
    case 'any':
      return 'required';
    case 'none':
      return 'none';
    case 'tool':
      return { type: 'function', function: { name: String(choice.name ?? '') } };
    default:
      throw invalid('tool_choice.type must be auto, any, tool or none', 'tool_choice');
  }
}

/** The fields toChatRequest reads; every other field of a Messages request is dropped in translation. */
const TRANSLATED_FIELDS = new Set([
  'model',
  'messages',
  'max_tokens',
  'system',
  'tools',
  'tool_choice',
  'stop_sequences',
  'temperature',
  'top_p',
  'metadata',
  'stream',
]);

/** Anthropic's effort levels as OpenAI's reasoning_effort (`max` is above OpenAI's highest). */
const EFFORT: Record<string, string> = { low: 'low', medium: 'medium', high: 'high', xhigh: 'high', max: 'high' };

/**
 * The OpenAI Chat Completions request of a Messages request (checked by checkMessagesRequest), for a model on an
 * OpenAI-compatible, Gemini or demo provider. Lost in translation (docs/anthropic.md): thinking (the request's and
 * earlier turns' blocks), top_k, cache_control marks, a tool result's is_error (its text starts with "Error: "),
 * and every field the translation does not read (context_management, output_config but its effort for a model
 * with the `reasoning` capability, fields the gateway does not know), each named to `dropped` for a debug line.
 */
export function toChatRequest(json: Json, model: CatalogModel, dropped: (fields: string[]) => void = () => {}): Json {
  const messages: Json[] = [];
  const system = json.system;
  if (system !== undefined && system !== null) {
    if (typeof system !== 'string' && !Array.isArray(system))
      throw invalid('system must be a string or a list of text blocks', 'system');
    const text = textOf(system);
    if (text) messages.push({ role: 'system', content: text });
  }
  (json.messages as unknown[]).forEach((message, index) => messages.push(...toChatMessages(message, index)));
  const chat: Json = { model: json.model, messages, [model.maxTokensParam]: json.max_tokens };
  const tools = toChatTools(json.tools);
  if (tools?.length) {
    chat.tools = tools;
    const choice = toChatToolChoice(json.tool_choice);
    if (choice !== undefined) chat.tool_choice = choice;
    if (isObject(json.tool_choice) && json.tool_choice.disable_parallel_tool_use === true)
      chat.parallel_tool_calls = false;
  }
  if (json.stop_sequences !== undefined) {
    if (!Array.isArray(json.stop_sequences) || json.stop_sequences.some((stop) => typeof stop !== 'string'))
      throw invalid('stop_sequences must be a list of strings', 'stop_sequences');
    if (json.stop_sequences.length) chat.stop = json.stop_sequences;
  }
  for (const field of ['temperature', 'top_p'] as const) {
    if (json[field] === undefined) continue;
    if (typeof json[field] !== 'number') throw invalid(`${field} must be a number`, field);
    chat[field] = json[field];
  }
  if (isObject(json.metadata) && typeof json.metadata.user_id === 'string') chat.user = json.metadata.user_id;
  if (json.stream === true) {
    chat.stream = true;
    chat.stream_options = { include_usage: true };
  }
  const unread = Object.keys(json).filter((field) => !TRANSLATED_FIELDS.has(field));
  const effort = isObject(json.output_config) ? EFFORT[String(json.output_config.effort)] : undefined;
  if (effort && model.capabilities.includes('reasoning')) {
    chat.reasoning_effort = effort;
    if (Object.keys(json.output_config as Json).length === 1) unread.splice(unread.indexOf('output_config'), 1);
  }
  if (unread.length) dropped(unread.map((field) => field.slice(0, 60)));
  return chat;
}
