import { Logger } from '@nestjs/common';
import type { Call } from '../call/call';
import { MAY_CARRY_USAGE } from '../call/delivered';
import type { UsageNote } from '../call/usage';
import { Frame, type Json } from '../wire/frame';
import { fromOpenAiChat, fromOpenAiResponses } from './token-usage';

/** The Responses API events that end a stream, each with the response's usage. */
const FINAL_RESPONSE_EVENTS = new Set(['response.completed', 'response.incomplete', 'response.failed']);
const FINAL_RESPONSE_EVENT = /^\{\s*"type"\s*:\s*"response\.(completed|incomplete|failed)"/;

const logger = new Logger('Metering');

/** Where a provider's usage problems (a part larger than its whole) are told: a warning naming the call. */
export function usageNote(call: Call): UsageNote {
  return (problem) => logger.warn({ msg: `${call.model.id} usage: ${problem}`, requestId: call.requestId });
}

/**
 * The usage of OpenAI's format (the gateway's own: every provider answers in it, natively or translated), merged
 * with what earlier events of the call reported and normalised into its components, the moment it arrives. Every
 * usage object of these APIs counts the prompt: one without that count is no usage, and the call is then estimated
 * rather than taken as free (billing/priced-usage.ts). `final`: the provider's last word on the call (a JSON answer,
 * a stream's usage chunk or last event); a partial one (Anthropic's message_start, Gemini's usage on each chunk, a
 * Responses stream's first events) is billed, if the call ends before the final one, with what was relayed after it.
 */
export function setUsage(call: Call, reported: unknown, format: 'chat' | 'responses', final = true): boolean {
  return call.noteUsage(reported, format === 'chat' ? fromOpenAiChat : fromOpenAiResponses, final, usageNote(call));
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
export function meterJson(call: Call, body: Json): void {
  const usage = (body.usage && typeof body.usage === 'object' ? body.usage : {}) as Json;
  switch (call.route.action) {
    case 'chat_completions':
    case 'completions':
    case 'embeddings':
      setUsage(call, usage, 'chat');
      if (!call.usageKnown && Array.isArray(body.choices))
        for (const choice of body.choices as (Json | null | undefined)[])
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
      call.noteMetered({ images: body.data.length });
      return;
    case 'audio_transcription':
      if (usage.type === 'duration' && typeof usage.seconds === 'number')
        call.noteMetered({ seconds: Math.max(0, usage.seconds) });
      else setUsage(call, usage, 'responses');
      return;
    case 'video_generation':
    case 'video_remix':
      if (!(Number(body.seconds) > 0)) return;
      call.noteMetered({ seconds: Number(body.seconds) });
      return;
    default:
      call.noteMetered({});
  }
}

/** Costs known from the request alone (speech is priced by characters); other binary answers are estimated. */
export function meterRequest(call: Call): void {
  if (call.route.action !== 'audio_speech') return;
  call.noteMetered({ characters: String(call.json?.input ?? '').length });
}

/**
 * Meters one frame of a stream in OpenAI's format as it arrives: keeps it for the bill of a call that ends without
 * its final usage (Delivered), and reads the usage a frame carries: every chat or completions chunk with a usage
 * object (some OpenAI-compatible servers report it on each chunk; the last, with no choices or a finish reason, is
 * final), every Responses event whose response has one (created and in_progress may; completed, incomplete and failed
 * are final). Only a frame that may carry usage is parsed. Marks the frame that carries the final usage
 * (`finalUsage`: the face may write the cost into it) and the answer's last one (`[DONE]`, a Responses stream's final
 * event).
 */
export function meterFrame(call: Call, frame: Frame | string, responses: boolean): void {
  if (typeof frame === 'string') frame = new Frame(frame);
  const data = frame.data;
  if (data === '[DONE]') {
    frame.last = true;
    return;
  }
  if (!data.length) return;
  call.delivered.add(frame.parsed ? frame : data);
  if (responses && isFinalResponseEvent(frame)) frame.last = true;
  if (!MAY_CARRY_USAGE.test(data)) return;
  const chunk = frame.json();
  if (!chunk) return;
  let usage: unknown;
  let final: boolean;
  if (responses) {
    usage = (chunk.response as Json | null | undefined)?.usage;
    final = FINAL_RESPONSE_EVENTS.has(chunk.type as string);
  } else {
    usage = chunk.usage;
    const choices = chunk.choices as ({ finish_reason?: unknown } | null)[] | undefined;
    final = !Array.isArray(choices) || !choices.length || choices.some((choice) => Boolean(choice?.finish_reason));
  }
  if (!usage || typeof usage !== 'object') return;
  setUsage(call, usage, responses ? 'responses' : 'chat', final);
  call.delivered.markUsage();
  if (final) frame.finalUsage = usage as Json;
}

/** A Responses stream's last event (OpenAI sends nothing after it: no [DONE]). */
function isFinalResponseEvent(frame: Frame): boolean {
  return frame.event
    ? frame.event === 'response.completed' || frame.event === 'response.incomplete' || frame.event === 'response.failed'
    : FINAL_RESPONSE_EVENT.test(frame.data);
}
