import { unixSeconds, type HandlerContext } from './context';
import { invalid, jsonResponse } from './errors';
import { bodyObject, invalidType, isObject, missing, optionalBoolean, optionalInteger, optionalString } from './fields';
import { planReply, promptTokens, readFunctionTools, readToolChoice, type Turn } from './demo-text';
import { readOutputFormat, requestKey } from './demo-chat';
import { sseEvent, sseResponse } from './streaming';
import { chunkTokens } from './tokenizer';

/**
 * POST /v1/responses: the Response object (output items of type `message` or `function_call`) and, when
 * streaming, the typed event sequence response.created → in_progress → output_item.added →
 * content_part.added → output_text.delta… → output_text.done → content_part.done → output_item.done →
 * response.completed (or response.incomplete when max_output_tokens cut the text). Each event is written as
 * `event: <type>` + `data: <json>` with a `sequence_number`; this API has no `[DONE]` sentinel.
 */

const TOKENS_PER_DELTA = 3;
/** OpenAI rejects max_output_tokens below 16. */
const MIN_OUTPUT_TOKENS = 16;

function readParts(value: unknown, param: string): { text: string; images: number; said?: string } {
  if (value === undefined || value === null) return { text: '', images: 0 };
  if (typeof value === 'string') return { text: value, images: 0 };
  if (!Array.isArray(value)) throw invalidType(param, 'a string or an array', value);
  const texts: string[] = [];
  let images = 0;
  value.forEach((part, index) => {
    if (!isObject(part)) throw invalidType(`${param}[${index}]`, 'an object', part);
    switch (part.type) {
      case 'input_text':
      case 'output_text':
      case 'text':
        if (typeof part.text === 'string') texts.push(part.text);
        break;
      case 'refusal':
        if (typeof part.refusal === 'string') texts.push(part.refusal);
        break;
      case 'input_image':
      case 'input_file':
      case 'input_audio':
        images++;
        break;
      default:
        throw invalid(
          `Invalid value: '${String(part.type)}'. Supported values are: 'input_text', 'input_image', 'input_file', 'output_text' and 'refusal'.`,
          `${param}[${index}].type`,
        );
    }
  });
  return { text: texts.join('\n'), images, ...(texts.length > 1 ? { said: texts[texts.length - 1] } : {}) };
}

const MESSAGE_ROLES = ['user', 'system', 'developer', 'assistant'] as const;

export function readInput(input: unknown, instructions: string | undefined): Turn[] {
  const turns: Turn[] = [];
  if (instructions) turns.push({ role: 'developer', text: instructions, images: 0, toolCalls: [] });
  if (input === undefined || input === null) {
    if (!instructions) throw missing('input');
    return turns;
  }
  if (typeof input === 'string') {
    turns.push({ role: 'user', text: input, images: 0, toolCalls: [] });
    return turns;
  }
  if (!Array.isArray(input)) throw invalidType('input', 'a string or an array', input);
  const toolNames = new Map<string, string>();
  input.forEach((item, index) => {
    const param = `input[${index}]`;
    if (!isObject(item)) throw invalidType(param, 'an object', item);
    const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
    if (type === 'message') {
      const role = item.role;
      if (typeof role !== 'string' || !(MESSAGE_ROLES as readonly string[]).includes(role)) {
        throw invalid(
          `Invalid value: '${String(role)}'. Supported values are: 'assistant', 'system', 'developer', and 'user'.`,
          `${param}.role`,
        );
      }
      const { text, images, said } = readParts(item.content, `${param}.content`);
      turns.push({ role: role as Turn['role'], text, images, toolCalls: [], ...(said !== undefined ? { said } : {}) });
    } else if (type === 'function_call') {
      const callId = typeof item.call_id === 'string' ? item.call_id : '';
      const name = typeof item.name === 'string' ? item.name : '';
      toolNames.set(callId, name);
      turns.push({
        role: 'assistant',
        text: '',
        images: 0,
        toolCalls: [{ id: callId, name, arguments: typeof item.arguments === 'string' ? item.arguments : '' }],
      });
    } else if (type === 'function_call_output') {
      if (typeof item.call_id !== 'string') throw missing(`${param}.call_id`);
      const { text, images } = readParts(item.output, `${param}.output`);
      turns.push({
        role: 'tool',
        text,
        images,
        toolCalls: [],
        toolCallId: item.call_id,
        toolName: toolNames.get(item.call_id),
      });
    }
    // Other item types (reasoning, item_reference, built-in tool calls) carry nothing the demo answers to.
  });
  return turns;
}

export function responses(json: unknown, model: string, ctx: HandlerContext): Response {
  const body = bodyObject(json);
  const instructions = optionalString(body, 'instructions');
  const turns = readInput(body.input, instructions);
  const maxOutputTokens = optionalInteger(body, 'max_output_tokens', MIN_OUTPUT_TOKENS);
  const stream = optionalBoolean(body, 'stream') ?? false;
  const tools = readFunctionTools(body.tools, 'responses');
  const toolChoice = readToolChoice(body.tool_choice, tools.length > 0);
  const textConfig = isObject(body.text) ? body.text : {};
  const format = readOutputFormat(textConfig.format, 'text.format');
  const key = requestKey(body, model);

  const reply = planReply({
    turns,
    tools,
    toolChoice,
    format,
    variant: 0,
    maxTokens: maxOutputTokens,
    requestKey: key,
  });
  const inputTokens = promptTokens(turns, tools);
  const usage = {
    input_tokens: inputTokens,
    input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
    output_tokens: reply.tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: inputTokens + reply.tokens,
  };
  const incomplete = reply.kind === 'text' && reply.finishReason === 'length';
  const createdAt = unixSeconds(ctx);
  const responseId = `resp_demo_${key.slice(0, 32)}`;
  const itemId = `${reply.kind === 'text' ? 'msg' : 'fc'}_demo_${key.slice(32, 56)}`;

  const textPart = (text: string) => ({ type: 'output_text', annotations: [], logprobs: [], text });
  const finalItem =
    reply.kind === 'text'
      ? {
          id: itemId,
          type: 'message',
          status: incomplete ? 'incomplete' : 'completed',
          content: [textPart(reply.text)],
          role: 'assistant',
        }
      : {
          id: itemId,
          type: 'function_call',
          status: 'completed',
          arguments: reply.call.arguments,
          call_id: reply.call.id,
          name: reply.call.name,
        };

  // The Response object as OpenAI returns it; `state` distinguishes the in-progress copies sent while streaming.
  const responseObject = (state: 'in_progress' | 'final') => ({
    id: responseId,
    object: 'response',
    created_at: createdAt,
    status: state === 'in_progress' ? 'in_progress' : incomplete ? 'incomplete' : 'completed',
    background: false,
    completed_at: state === 'final' && !incomplete ? unixSeconds(ctx) : null,
    error: null,
    incomplete_details: state === 'final' && incomplete ? { reason: 'max_output_tokens' } : null,
    instructions: instructions ?? null,
    max_output_tokens: maxOutputTokens ?? null,
    max_tool_calls: null,
    model,
    output: state === 'final' ? [finalItem] : [],
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    reasoning: { effort: null, summary: null },
    service_tier: 'default',
    // The demo keeps no responses: GET /v1/responses/{id} and previous_response_id chains are not available.
    store: false,
    temperature: body.temperature ?? 1,
    text: { format: textConfig.format ?? { type: 'text' }, verbosity: 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: body.tools ?? [],
    top_logprobs: 0,
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage: state === 'final' ? usage : null,
    user: null,
    metadata: body.metadata ?? {},
  });

  if (!stream) return jsonResponse(responseObject('final'));

  function* events(): Generator<string> {
    let sequence = 0;
    const emit = (type: string, fields: Record<string, unknown>) =>
      sseEvent({ type, ...fields, sequence_number: sequence++ }, type);

    yield emit('response.created', { response: responseObject('in_progress') });
    yield emit('response.in_progress', { response: responseObject('in_progress') });
    if (reply.kind === 'text') {
      const item = { ...finalItem, status: 'in_progress', content: [] };
      const where = { item_id: itemId, output_index: 0, content_index: 0 };
      yield emit('response.output_item.added', { output_index: 0, item });
      yield emit('response.content_part.added', { ...where, part: textPart('') });
      for (const delta of chunkTokens(reply.text, TOKENS_PER_DELTA)) {
        yield emit('response.output_text.delta', { ...where, delta, logprobs: [] });
      }
      yield emit('response.output_text.done', { ...where, text: reply.text, logprobs: [] });
      yield emit('response.content_part.done', { ...where, part: textPart(reply.text) });
    } else {
      yield emit('response.output_item.added', {
        output_index: 0,
        item: { ...finalItem, status: 'in_progress', arguments: '' },
      });
      for (const delta of chunkTokens(reply.call.arguments, TOKENS_PER_DELTA)) {
        yield emit('response.function_call_arguments.delta', { item_id: itemId, output_index: 0, delta });
      }
      yield emit('response.function_call_arguments.done', {
        item_id: itemId,
        output_index: 0,
        name: reply.call.name,
        arguments: reply.call.arguments,
      });
    }
    yield emit('response.output_item.done', { output_index: 0, item: finalItem });
    yield emit(incomplete ? 'response.incomplete' : 'response.completed', { response: responseObject('final') });
  }
  return sseResponse(events(), ctx.pacing);
}
