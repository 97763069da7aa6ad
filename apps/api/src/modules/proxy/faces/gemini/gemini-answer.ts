import { randomBytes } from 'node:crypto';
import { fromOpenAiChat } from '../../metering/token-usage';
import { Frame, type Json } from '../../wire/frame';
import type { GeminiAnswerPart, GeminiResponse, GeminiUsageMetadata } from '../../wire/gemini.types';

/**
 * The answer of a Gemini-face call, which every model answers in OpenAI's Chat Completions format, as Gemini's
 * GenerateContentResponse (docs/gemini.md): a JSON answer whole; a stream chunk by chunk as it arrives, text as it
 * comes, function calls whole (as Gemini sends them) with the candidate's finishReason, and the usage on the last
 * chunk. Each chunk is read from its frame's JSON, parsed once for every part that reads it.
 */

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** OpenAI's finish_reason as Gemini's finishReason. */
export function finishReason(finish: unknown): string {
  switch (finish) {
    case 'length':
      return 'MAX_TOKENS';
    case 'content_filter':
      return 'SAFETY';
    default:
      return 'STOP';
  }
}

/** The usage in Gemini's terms: the prompt with its cached part, the candidates without their thoughts. */
export function usageMetadata(usage: unknown): GeminiUsageMetadata | undefined {
  const normalised = fromOpenAiChat(usage);
  if (!normalised) return undefined;
  const prompt =
    normalised.inputTokens + normalised.cacheReadTokens + normalised.cacheWriteTokens + normalised.cacheWrite1hTokens;
  return {
    promptTokenCount: prompt,
    candidatesTokenCount: normalised.outputTokens - normalised.reasoningTokens,
    totalTokenCount: prompt + normalised.outputTokens,
    ...(normalised.cacheReadTokens ? { cachedContentTokenCount: normalised.cacheReadTokens } : {}),
    ...(normalised.reasoningTokens ? { thoughtsTokenCount: normalised.reasoningTokens } : {}),
  };
}

/** A tool call's arguments as the function call's args (an object; text that is no JSON object is kept apart). */
function args(text: unknown): Json {
  if (typeof text !== 'string' || !text) return {};
  try {
    const parsed: unknown = JSON.parse(text);
    return isObject(parsed) ? parsed : { arguments: parsed };
  } catch {
    return { arguments: text };
  }
}

/** The reasoning text an OpenAI-compatible server puts beside the content (reasoning_content or reasoning). */
function reasoningOf(message: Json): string {
  const text = message.reasoning_content ?? message.reasoning;
  return typeof text === 'string' ? text : '';
}

const newResponseId = () => randomBytes(12).toString('base64url');

/** A Chat Completion as a GenerateContentResponse. `thoughts`: the caller asked for them (includeThoughts). */
export function toGeminiResponse(completion: Json, model: string, thoughts: boolean): GeminiResponse {
  const choices = Array.isArray(completion.choices) ? (completion.choices as unknown[]).filter(isObject) : [];
  const usage = usageMetadata(completion.usage);
  return {
    candidates: choices.map((choice, at) => {
      const message = isObject(choice.message) ? choice.message : {};
      const parts: GeminiAnswerPart[] = [];
      const reasoning = reasoningOf(message);
      if (thoughts && reasoning) parts.push({ text: reasoning, thought: true });
      if (typeof message.content === 'string' && message.content) parts.push({ text: message.content });
      if (Array.isArray(message.tool_calls))
        for (const call of message.tool_calls as unknown[]) {
          if (!isObject(call) || !isObject(call.function)) continue;
          parts.push({
            functionCall: {
              name: String(call.function.name ?? ''),
              args: args(call.function.arguments),
              id: String(call.id ?? ''),
            },
          });
        }
      return {
        content: { role: 'model' as const, parts },
        finishReason: finishReason(choice.finish_reason),
        index: typeof choice.index === 'number' ? choice.index : at,
      };
    }),
    ...(usage ? { usageMetadata: usage } : {}),
    modelVersion: model,
    responseId: newResponseId(),
  };
}

interface ChoiceState {
  /** Tool calls by their index among the choice's calls, gathered until the choice finishes. */
  calls: Map<number, { id: string; name: string; arguments: string }>;
  finish: unknown;
}

/** Chat Completion chunks in, GenerateContentResponse chunks (SSE) out, one chunk at a time. */
export class GeminiStreamTranslator {
  private readonly responseId = newResponseId();
  private readonly choices = new Map<number, ChoiceState>();
  private usage: GeminiUsageMetadata | undefined;
  private ended = false;

  constructor(
    private readonly model: string,
    private readonly thoughts: boolean,
  ) {}

  /** The Gemini chunk of one chat chunk (or, at [DONE], the last one), as SSE text. */
  push(frame: Frame | string): string {
    if (typeof frame === 'string') frame = new Frame(frame);
    if (frame.data === '[DONE]') return this.end();
    const chunk = frame.json();
    if (!chunk) return '';
    if (isObject(chunk.usage)) this.usage = usageMetadata(chunk.usage) ?? this.usage;
    const candidates: GeminiResponse['candidates'] = [];
    for (const choice of Array.isArray(chunk.choices) ? (chunk.choices as unknown[]) : []) {
      if (!isObject(choice)) continue;
      const index = typeof choice.index === 'number' ? choice.index : 0;
      const state = this.state(index);
      const delta = isObject(choice.delta) ? choice.delta : {};
      const parts: GeminiAnswerPart[] = [];
      const reasoning = reasoningOf(delta);
      if (this.thoughts && reasoning) parts.push({ text: reasoning, thought: true });
      if (typeof delta.content === 'string' && delta.content) parts.push({ text: delta.content });
      if (Array.isArray(delta.tool_calls))
        for (const call of delta.tool_calls as unknown[]) {
          if (!isObject(call)) continue;
          const fn = isObject(call.function) ? call.function : {};
          const at = typeof call.index === 'number' ? call.index : state.calls.size;
          const gathered = state.calls.get(at) ?? { id: '', name: '', arguments: '' };
          if (typeof call.id === 'string' && call.id) gathered.id = call.id;
          if (typeof fn.name === 'string' && fn.name) gathered.name = fn.name;
          if (typeof fn.arguments === 'string') gathered.arguments += fn.arguments;
          state.calls.set(at, gathered);
        }
      if (choice.finish_reason) state.finish = choice.finish_reason;
      if (parts.length) candidates.push({ content: { role: 'model', parts }, index });
    }
    return candidates.length ? this.event(candidates, undefined) : '';
  }

  /** The last chunk (once): every choice's function calls and finishReason, and the usage. */
  end(): string {
    if (this.ended) return '';
    this.ended = true;
    if (!this.choices.size) this.state(0);
    const candidates: GeminiResponse['candidates'] = [...this.choices].map(([index, state]) => ({
      content: {
        role: 'model',
        parts: [...state.calls.values()].map((call) => ({
          functionCall: { name: call.name, args: args(call.arguments), ...(call.id ? { id: call.id } : {}) },
        })),
      },
      finishReason: finishReason(state.finish),
      index,
    }));
    return this.event(candidates, this.usage);
  }

  private state(index: number): ChoiceState {
    let state = this.choices.get(index);
    if (!state) this.choices.set(index, (state = { calls: new Map(), finish: null }));
    return state;
  }

  private event(candidates: GeminiResponse['candidates'], usage: GeminiUsageMetadata | undefined): string {
    const response: GeminiResponse = {
      candidates,
      ...(usage ? { usageMetadata: usage } : {}),
      modelVersion: this.model,
      responseId: this.responseId,
    };
    return `data: ${JSON.stringify(response)}\r\n\r\n`;
  }
}
