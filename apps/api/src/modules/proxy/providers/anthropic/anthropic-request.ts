/** The request half of anthropic.translator.ts: an OpenAI Chat Completions request as the provider's own. */
import type {
  ChatCompletionContentPart,
  ChatCompletionCreateParams,
  ChatCompletionFunctionTool,
  ChatCompletionMessageParam,
} from 'openai/resources/chat/completions';
import {
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

export async function buildRequest(
  body: ChatCompletionCreateParams,
  ctx: TranslatorContext,
): Promise<UpstreamRequestSpec> {
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
