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
 * mergeUsage) and normalised into its components. Every usage object of these APIs counts the prompt: one without
 * that count is no usage, and the call is then estimated rather than taken as free (billing/call-billing.ts).
 */
export function setUsage(call: Call, reported: unknown, format: 'chat' | 'responses'): void {
  const merged = mergeUsage(call.reportedUsage, reported);
  const note = (problem: string) =>
    logger.warn({ msg: `${call.model.id} usage: ${problem}`, requestId: call.requestId });
  const usage: NormalisedUsage | null =
    format === 'chat' ? fromOpenAiChat(merged, note) : fromOpenAiResponses(merged, note);
  if (!usage) return;
  Object.assign(call.metered, usage);
  call.usageKnown = true;
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
 * Meters one stream frame: keeps it for the bill of a call that ends without usage (Delivered), and reads the usage
 * of the final usage chunk (chat, completions) or the final response event (responses). Only a frame that may
 * carry usage is parsed. Returns the parsed frame and its usage object when it carried one (the relay writes the
 * cost into it), else null.
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
  if (responses) {
    // The last event carries the usage: completed, or incomplete (the output bound was reached), or failed.
    const usage = FINAL_RESPONSE_EVENTS.has(chunk.type as string)
      ? ((chunk.response as ProviderJson | null | undefined)?.usage as ProviderJson | undefined)
      : undefined;
    if (!usage) return null;
    setUsage(call, usage, 'responses');
    return { chunk, usage };
  }
  const usage = chunk.usage as ProviderJson | undefined;
  if (!usage) return null;
  setUsage(call, usage, 'chat');
  return { chunk, usage };
}
