import type { AnswerWriter } from '../../call/answer-writer';
import type { Call } from '../../call/call';
import { answerWithCost } from '../../relay/answer-splice';
import type { Frame } from '../../wire/frame';
import { asksForUsage, openAiStreamError } from '../../wire/openai';
import { sseText } from '../../wire/sse';

/** Whether the caller gets a stream's final usage frame: on Responses always, else when it asked (or it has choices). */
function passesUsage(call: Call, frame: Frame): boolean {
  if (call.route.action === 'responses' || asksForUsage(call.json)) return true;
  return Boolean((frame.json()?.choices as ArrayLike<unknown> | null | undefined)?.length);
}

/**
 * OpenAI's answers, written as the provider wrote them (every provider answers in OpenAI's format): each frame's text
 * passes untouched, but for the stream's final usage, which gets `usage.cost` and `usage.cost_details` and is passed
 * on only if the caller asked for it (`stream_options.include_usage`, as OpenAI does); JSON answers get the public
 * model's name and the cost spliced into the provider's own text.
 */
export const openAiWriter: AnswerWriter = {
  json: (call, body, text, cost) => answerWithCost(body, text, call.model.id, cost),
  needsCharge: passesUsage,
  frame(call, frame, cost) {
    const usage = frame.finalUsage;
    if (usage) {
      // needsCharge said no: the caller did not ask for the usage chunk.
      if (!cost) return '';
      usage.cost = cost.units;
      usage.cost_details = cost.details;
      frame.replace(frame.json()!);
    }
    return sseText(frame);
  },
  end: () => '',
  // As OpenAI does when a stream fails: an error event, then the end.
  streamError: (_call, error) => openAiStreamError(error.message, error.code.toLowerCase()),
};
