import { Logger } from '@nestjs/common';
import type { Call } from '../call/call';
import { MAY_CARRY_USAGE } from './delivered';
import { fromOpenAiChat, fromOpenAiResponses, mergeUsage, type NormalisedUsage } from './token-usage';

/** A provider's JSON object (an answer, a chunk, its usage), read defensively: every field is checked before use. */
type ProviderJson = Record<string, unknown>;

/** The Responses API events that end a stream, each with the response's usage. */
const FINAL_RESPONSE_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);
const logger = new Logger('Metering');

/**
 * Usage as the provider reported it, merged with what earlier events of the call reported (token-usage.ts,
 * mergeUsage) and normalised into its components, the moment it arrives. Every usage object of these APIs counts
 * the prompt: one without that count is no usage, and the call is then estimated rather than taken as free
 * (billing/priced-usage.ts). `final`: the provider's last word on the call (a JSON answer, a stream's usage chunk or
 * last event); a partial one (Anthropic's message_start, Gemini's usage on each chunk, a Responses stream's first
 * events) is billed, if the call ends before the final one, with what was relayed after it.
 */
export function setUsage(call: Call, reported: unknown, format: 'chat' | 'responses', final = true): void {
  const merged = mergeUsage(call.reportedUsage, reported);
  const note = (problem: string) =>
    logger.warn({ msg: `${call.model.id} usage: ${problem}`, requestId: call.requestId });
  const usage: NormalisedUsage | null =
    format === 'chat' ? fromOpenAiChat(merged, note) : fromOpenAiResponses(merged, note);
  if (!usage) return;
  Object.assign(call.metered, usage);
  call.usageKnown = true;
  call.usageFinal ||= final;
}

/**
 * Usage a translator gathered so far from the provider's events (in OpenAI's shape), merged as it arrives; the
 * `pending` frames of the event that carried it are still to be relayed and are counted in it.
 */
export function meterUsageSoFar(call: Call, usage: unknown, pending: number): void {
  setUsage(call, usage, 'chat', false);
  call.delivered.markUsage(pending);
}

/** Meters a JSON answer: its usage, or (without it) what it delivered, estimated like a stream's. */
export function meterJson(call: Call, body: ProviderJson): void {
  const usage = (body.usage && typeof body.usage === 'object' ? body.usage : {}) as ProviderJson;
  switch (call.route.action) {
    case 'chat_completions':
    case 'messages':
    case 'completions':
    case 'embeddings':
      setUsage(call, usage, 'chat');
      if (!call.usageKnown && Array.isArray(body.choices))
        for (const choice of body.choices as (ProviderJson | null | undefined)[])
          call.delivered.addText(typeof choice?.text === 'string' ? choice.text : '', choice?.message);
      return;
    case 'responses':
      setUsage(call, usage, 'responses');
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
      } else setUsage(call, usage, 'responses');
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
 * Meters one stream frame: keeps it for the bill of a call that ends without its final usage (Delivered), and reads
 * the usage a frame carries the moment it arrives: every chat or completions chunk with a usage object (some
 * OpenAI-compatible servers report it on each chunk; the last, with no choices or a finish reason, is final), every
 * Responses event whose response has one (created and in_progress may; completed, incomplete and failed are final).
 * Only a frame that may carry usage is parsed. Returns the parsed frame and its usage object when it carried the
 * final usage (the relay writes the cost into it), else null.
 */
export function meterFrame(
  call: Call,
  data: string,
  responses: boolean,
): { chunk: ProviderJson; usage: ProviderJson } | null {
  call.delivered.add(data);
  if (!MAY_CARRY_USAGE.test(data)) return null;
  let chunk: ProviderJson;
  try {
    chunk = JSON.parse(data) as ProviderJson;
  } catch {
    return null;
  }
  let usage: unknown;
  let final: boolean;
  if (responses) {
    usage = (chunk.response as ProviderJson | null | undefined)?.usage;
    final = FINAL_RESPONSE_EVENTS.has(chunk.type as string);
  } else {
    usage = chunk.usage;
    const choices = chunk.choices as ({ finish_reason?: unknown } | null)[] | undefined;
    final = !Array.isArray(choices) || !choices.length || choices.some((choice) => Boolean(choice?.finish_reason));
  }
  if (!usage || typeof usage !== 'object') return null;
  setUsage(call, usage, responses ? 'responses' : 'chat', final);
  call.delivered.markUsage();
  return final ? { chunk, usage: usage as ProviderJson } : null;
}
