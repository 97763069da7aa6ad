import type { Call } from '../call/call';
import { MAY_CARRY_USAGE } from './delivered';

/** The Responses API events that end a stream, each with the response's usage. */
const FINAL_RESPONSE_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);

/**
 * Usage as the provider reported it. Every usage object of these APIs counts the prompt: one without that count
 * is no usage, and the call is then estimated rather than taken as free (billing/call-billing.ts).
 */
export function setTokens(call: Call, prompt: unknown, completion: unknown): void {
  if (typeof prompt !== 'number') return;
  call.metered.promptTokens = Math.max(0, Number(prompt) || 0);
  call.metered.completionTokens = Math.max(0, Number(completion) || 0);
  call.usageKnown = true;
}

/** Meters a JSON answer: its usage, or (without it) what it delivered, estimated like a stream's. */
export function meterJson(call: Call, body: Record<string, any>): void { // eslint-disable-line @typescript-eslint/no-explicit-any -- a provider's answer, read defensively
  const usage = body.usage && typeof body.usage === 'object' ? body.usage : {};
  switch (call.route.action) {
    case 'chat_completions':
    case 'completions':
    case 'embeddings':
      setTokens(call, usage.prompt_tokens, usage.completion_tokens);
      if (!call.usageKnown && Array.isArray(body.choices))
        for (const choice of body.choices) call.delivered.addText(typeof choice?.text === 'string' ? choice.text : '', choice?.message);
      return;
    case 'responses':
      setTokens(call, usage.input_tokens, usage.output_tokens);
      if (!call.usageKnown && Array.isArray(body.output)) call.delivered.addText('', body.output);
      return;
    case 'image_generation':
    case 'image_edit':
    case 'image_variation':
      if (!Array.isArray(body.data)) return;
      call.metered.images = body.data.length;
      call.usageKnown = true;
      return;
    case 'audio_transcription':
      if (usage.type === 'duration' && typeof usage.seconds === 'number') {
        call.metered.seconds = Math.max(0, usage.seconds);
        call.usageKnown = true;
      } else setTokens(call, usage.input_tokens, usage.output_tokens);
      return;
    case 'video_generation':
    case 'video_remix':
      if (!(Number(body.seconds) > 0)) return;
      call.metered.seconds = Number(body.seconds);
      call.usageKnown = true;
      return;
    default:
      call.usageKnown = true;
  }
}

/** Costs known from the request alone (speech is priced by characters); other binary answers are estimated. */
export function meterRequest(call: Call): void {
  if (call.route.action !== 'audio_speech') return;
  call.metered.characters = String(call.json?.input ?? '').length;
  call.usageKnown = true;
}

/**
 * Meters one stream frame: keeps it for the bill of a call that ends without usage (Delivered), and reads the usage
 * of the final usage chunk (chat, completions) or the final response event (responses). Only a frame that may
 * carry usage is parsed. Returns the parsed frame and its usage object when it carried one (the relay writes the
 * cost into it), else null.
 */
export function meterFrame(call: Call, data: string, responses: boolean): { chunk: Record<string, any>; usage: Record<string, unknown> } | null { // eslint-disable-line @typescript-eslint/no-explicit-any -- a provider's chunk, read defensively
  call.delivered.add(data);
  if (!MAY_CARRY_USAGE.test(data)) return null;
  let chunk: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- as above
  try {
    chunk = JSON.parse(data);
  } catch {
    return null;
  }
  if (responses) {
    // The last event carries the usage: completed, or incomplete (the output bound was reached), or failed.
    const usage = FINAL_RESPONSE_EVENTS.has(chunk.type) ? chunk.response?.usage : undefined;
    if (!usage) return null;
    setTokens(call, usage.input_tokens, usage.output_tokens);
    return { chunk, usage };
  }
  if (!chunk.usage) return null;
  setTokens(call, chunk.usage.prompt_tokens, chunk.usage.completion_tokens);
  return { chunk, usage: chunk.usage };
}
