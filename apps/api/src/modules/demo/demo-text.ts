import { invalid } from './errors';
import { isObject, truncateChars, type JsonObject } from './fields';
import { sha256Hex } from './hash';
import { demoHtmlPage, wantsHtmlPage } from './demo-page';
import { countTokens, truncateToTokens } from './tokenizer';

/**
 * The "model" behind chat completions, completions and responses: reads a normalised conversation and decides
 * what the assistant says (a text or a tool call). The endpoint modules only translate wire formats to and
 * from these types, so the three APIs answer the same conversation the same way.
 */

/** Fixed token cost of an image (or file) part: OpenAI's price for a low-detail image. */
export const IMAGE_TOKENS = 85;

export interface ToolCallPlan {
  id: string;
  name: string;
  arguments: string;
}

export interface Turn {
  role: 'system' | 'developer' | 'user' | 'assistant' | 'tool';
  text: string;
  /** A message of several text parts: its last one (what the demo quotes; agents put context parts before it). */
  said?: string;
  /** Image or file parts: each costs IMAGE_TOKENS. */
  images: number;
  toolCalls: ToolCallPlan[];
  /** For a tool result: the call it answers. */
  toolCallId?: string;
  toolName?: string;
}

export interface FunctionTool {
  name: string;
  description?: string;
  parameters?: unknown;
}

export type ToolChoice = { mode: 'none' | 'auto' | 'required' } | { mode: 'function'; name: string };

/** What the assistant should produce: structured-output requests get JSON built from their schema. */
export type OutputFormat = { kind: 'text' } | { kind: 'json_object' } | { kind: 'json_schema'; schema: unknown };

export type Reply =
  | { kind: 'text'; text: string; finishReason: 'stop' | 'length'; tokens: number }
  | { kind: 'tool_call'; call: ToolCallPlan; tokens: number };

export interface ReplyRequest {
  turns: Turn[];
  tools: FunctionTool[];
  toolChoice: ToolChoice;
  format: OutputFormat;
  /** Choice index (chat `n`): choices after the first get a short suffix so they differ. */
  variant: number;
  maxTokens?: number;
  stop?: string[];
  /** Stable key of the whole request, mixed into tool-call ids. */
  requestKey: string;
}

export function promptTokens(turns: Turn[], tools: FunctionTool[]): number {
  let total = 0;
  for (const turn of turns) {
    total += countTokens(turn.text) + turn.images * IMAGE_TOKENS;
    for (const call of turn.toolCalls) total += countTokens(call.name) + countTokens(call.arguments);
  }
  // Tool definitions are part of what a real model reads, so they are billed as prompt text too.
  if (tools.length > 0) total += countTokens(JSON.stringify(tools));
  return total;
}

const QUOTE_CHARS = 200;

function lastOf<T>(items: T[], predicate: (item: T) => boolean): T | undefined {
  for (let i = items.length - 1; i >= 0; i--) if (predicate(items[i])) return items[i];
  return undefined;
}

/**
 * The turns since the assistant last spoke: a tool result among them is what the demo answers (an agent may add
 * a text part or a system message after it), else the fresh user question.
 */
function sinceAssistant(turns: Turn[]): Turn[] {
  let at = turns.length;
  while (at > 0 && turns[at - 1].role !== 'assistant') at -= 1;
  return turns.slice(at);
}

/** The deterministic answer text for a conversation (before stop sequences and max_tokens). */
export function replyText(turns: Turn[], variant: number): string {
  const result = lastOf(sinceAssistant(turns), (turn) => turn.role === 'tool');
  let text: string;
  if (result) {
    const tool = result.toolName ? `The ${result.toolName} tool` : 'The tool';
    text =
      `${tool} returned: "${truncateChars(result.text, QUOTE_CHARS)}". ` +
      `That is the result, as reported by Switchyard's demo model.`;
  } else if (wantsHtmlPage(turns)) {
    text = demoHtmlPage(turns);
  } else {
    const user = lastOf(turns, (turn) => turn.role === 'user');
    const said = truncateChars((user?.said ?? user?.text ?? '').trim(), QUOTE_CHARS);
    text = `Hello from Switchyard's demo model. You said: "${said}".`;
    if (user && user.images > 0) text += ` I also received ${user.images} attachment${user.images === 1 ? '' : 's'}.`;
    text += ' This offline answer is deterministic, so the same request always gets the same reply.';
  }
  if (variant > 0) text += ` (Choice ${variant + 1}.)`;
  return text;
}

/** Which tool to call, if any: the rule is documented in docs/demo-provider.md. */
function chooseTool(request: ReplyRequest): FunctionTool | undefined {
  const { tools, toolChoice, turns } = request;
  if (tools.length === 0 || toolChoice.mode === 'none') return undefined;
  if (toolChoice.mode === 'function') {
    const tool = tools.find((t) => t.name === toolChoice.name);
    if (!tool) throw invalid(`Tool choice '${toolChoice.name}' not found in 'tools' parameter.`, 'tool_choice');
    return tool;
  }
  const weatherTool = tools.find((t) => /weather/i.test(`${t.name} ${t.description ?? ''}`)) ?? tools[0];
  if (toolChoice.mode === 'required') return weatherTool;
  // auto: only a fresh user question (system messages after it aside) that mentions the weather, or asks to "use
  // the <name> tool" of a tool offered, triggers a call, so a following tool result gets a text answer and an
  // agent loop ends.
  const fresh = sinceAssistant(turns).filter((turn) => turn.role !== 'system' && turn.role !== 'developer');
  const last = fresh[fresh.length - 1];
  if (last?.role !== 'user') return undefined;
  const asked = /\buse the ([A-Za-z0-9_-]{1,64}) tool\b/i.exec(last.said ?? last.text)?.[1];
  const named = asked && tools.find((t) => t.name.toLowerCase() === asked.toLowerCase());
  if (named) return named;
  if (/\bweather\b/i.test(last.text)) return weatherTool;
  return undefined;
}

export function planReply(request: ReplyRequest): Reply {
  const tool = chooseTool(request);
  if (tool) {
    const args = JSON.stringify(placeholderFor(tool.parameters ?? { type: 'object', properties: {} }, 'arguments', 0));
    const id = `call_demo_${sha256Hex(request.requestKey, tool.name, String(request.variant)).slice(0, 24)}`;
    return {
      kind: 'tool_call',
      call: { id, name: tool.name, arguments: args },
      tokens: countTokens(tool.name) + countTokens(args),
    };
  }
  let text: string;
  if (request.format.kind === 'json_schema') {
    text = JSON.stringify(placeholderFor(request.format.schema, 'value', 0));
  } else if (request.format.kind === 'json_object') {
    text = JSON.stringify({ reply: replyText(request.turns, request.variant) });
  } else {
    text = replyText(request.turns, request.variant);
  }
  return limitText(text, request.maxTokens, request.stop);
}

/** Applies stop sequences (cut before the first match, finish 'stop') then the token limit (finish 'length'). */
export function limitText(
  text: string,
  maxTokens: number | undefined,
  stop: string[] | undefined,
): { kind: 'text'; text: string; finishReason: 'stop' | 'length'; tokens: number } {
  let out = text;
  for (const sequence of stop ?? []) {
    if (!sequence) continue;
    const at = out.indexOf(sequence);
    if (at >= 0) out = out.slice(0, at);
  }
  let finishReason: 'stop' | 'length' = 'stop';
  if (maxTokens !== undefined) {
    const cut = truncateToTokens(out, maxTokens);
    if (cut.truncated) finishReason = 'length';
    out = cut.text;
  }
  return { kind: 'text', text: out, finishReason, tokens: countTokens(out) };
}

/**
 * A value that satisfies a JSON schema well enough for a demo: `const`, `default`, the first `enum` value, the
 * first non-null branch of anyOf/oneOf, and for objects every `required` property (all properties when the
 * schema has none, as OpenAI's strict mode lists them all). Placeholders are recognisable, e.g. "demo-location".
 */
export function placeholderFor(schema: unknown, key: string, depth: number): unknown {
  if (depth > 8 || !isObject(schema)) return `demo-${key}`;
  if ('const' in schema) return schema.const;
  if ('default' in schema) return schema.default;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  const branches = schema.anyOf ?? schema.oneOf ?? schema.allOf;
  if (Array.isArray(branches) && branches.length > 0) {
    const branch: unknown = (branches as unknown[]).find((b) => !(isObject(b) && b.type === 'null')) ?? branches[0];
    return placeholderFor(branch, key, depth + 1);
  }
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? 'null';
  if (type === undefined && isObject(schema.properties)) type = 'object';
  if (type === undefined && schema.items !== undefined) type = 'array';
  switch (type) {
    case 'string':
      return stringPlaceholder(schema, key);
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : undefined;
      const exclusive = typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : undefined;
      const max = typeof schema.maximum === 'number' ? schema.maximum : undefined;
      const value = min ?? exclusive ?? (max !== undefined ? Math.min(1, max) : 1);
      return type === 'integer' ? Math.ceil(value) : value;
    }
    case 'boolean':
      return true;
    case 'null':
      return null;
    case 'array': {
      const count = typeof schema.minItems === 'number' ? Math.min(schema.minItems, 10) : 1;
      return Array.from({ length: count }, () => placeholderFor(schema.items, key, depth + 1));
    }
    case 'object': {
      const properties = isObject(schema.properties) ? schema.properties : {};
      const required = Array.isArray(schema.required)
        ? schema.required.filter((name): name is string => typeof name === 'string')
        : Object.keys(properties);
      const out: JsonObject = {};
      for (const name of required) out[name] = placeholderFor(properties[name], name, depth + 1);
      return out;
    }
    default:
      return `demo-${key}`;
  }
}

function stringPlaceholder(schema: JsonObject, key: string): string {
  switch (schema.format) {
    case 'date':
      return '2025-01-01';
    case 'date-time':
      return '2025-01-01T00:00:00Z';
    case 'time':
      return '00:00:00';
    case 'email':
      return 'demo@example.com';
    case 'uri':
    case 'url':
      return 'https://example.com/demo';
    case 'uuid':
      return '00000000-0000-4000-8000-000000000000';
  }
  const value = `demo-${key}`;
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  return value.padEnd(min, '-').slice(0, Math.max(min, Math.min(max, value.length)));
}

/** Reads a `tools` array in either the Chat shape ({type, function:{name,...}}) or the Responses shape. */
export function readFunctionTools(value: unknown, shape: 'chat' | 'responses'): FunctionTool[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw invalid(`Invalid type for 'tools': expected an array.`, 'tools', 'invalid_type');
  const tools: FunctionTool[] = [];
  value.forEach((tool, index) => {
    if (!isObject(tool))
      throw invalid(`Invalid 'tools[${index}]': expected an object.`, `tools[${index}]`, 'invalid_type');
    if (tool.type !== 'function') return; // built-in tools (web_search, ...) are accepted and never called
    const fn = shape === 'chat' ? tool.function : tool;
    if (!isObject(fn) || typeof fn.name !== 'string' || fn.name === '') {
      throw invalid(
        `Missing required parameter: 'tools[${index}].${shape === 'chat' ? 'function.' : ''}name'.`,
        `tools[${index}]${shape === 'chat' ? '.function' : ''}.name`,
        'missing_required_parameter',
      );
    }
    tools.push({
      name: fn.name,
      description: typeof fn.description === 'string' ? fn.description : undefined,
      parameters: fn.parameters,
    });
  });
  return tools;
}

/** Reads `tool_choice`: 'none' | 'auto' | 'required' | {type:'function', function:{name}} | {type:'function', name}. */
export function readToolChoice(value: unknown, hasTools: boolean): ToolChoice {
  const choice = parseToolChoice(value, hasTools);
  if (!hasTools && (choice.mode === 'required' || choice.mode === 'function')) {
    throw invalid(
      `Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.`,
      'tool_choice',
    );
  }
  return choice;
}

function parseToolChoice(value: unknown, hasTools: boolean): ToolChoice {
  if (value === undefined || value === null) return { mode: hasTools ? 'auto' : 'none' };
  if (value === 'none' || value === 'auto' || value === 'required') return { mode: value };
  if (isObject(value) && value.type === 'function') {
    const name = isObject(value.function) ? value.function.name : value.name;
    if (typeof name === 'string' && name) return { mode: 'function', name };
  }
  if (isObject(value) && value.type === 'allowed_tools') {
    return { mode: value.mode === 'required' ? 'required' : 'auto' };
  }
  throw invalid(
    `Invalid value for 'tool_choice': expected 'none', 'auto', 'required' or a named function.`,
    'tool_choice',
  );
}
