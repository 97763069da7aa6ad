import type { AnswerWriter } from '../../call/answer-writer';
import { answerWithCost } from '../../relay/answer-splice';
import { sseText } from '../../wire/sse';
import { anthropicErrorEvent } from './anthropic-errors';
import { MessagesStreamTranslator, toAnthropicMessage } from './messages-answer';

/**
 * A Messages call the model's provider took natively: its events pass as they came (the provider named the public
 * model in message_start) and its Message gets the public model's name and `usage.cost`. Its final usage
 * (message_delta) is charged when the call ends: nothing in the stream waits for it.
 */
export const nativeMessagesWriter: AnswerWriter = {
  json: (call, body, text, cost) => answerWithCost(body, text, call.model.id, cost),
  needsCharge: () => false,
  frame: (_call, frame) => sseText(frame),
  end: () => '',
  streamError: (_call, error) => anthropicErrorEvent(error),
};

/**
 * A Messages call translated into a chat completion: its answer, in OpenAI's format, translated back as it comes
 * (messages-answer.ts): the stream's closing events after its last chunk, none after an error. The final usage
 * chunk waits for the call's charge, so a nearly spent account is settled before the answer ends.
 */
export class TranslatedMessagesWriter implements AnswerWriter {
  private readonly stream: MessagesStreamTranslator;

  constructor(private readonly model: string) {
    this.stream = new MessagesStreamTranslator(model);
  }

  json(_call: unknown, body: Record<string, unknown>): string {
    return JSON.stringify(toAnthropicMessage(body, this.model));
  }

  needsCharge(): boolean {
    return true;
  }

  frame(_call: unknown, frame: Parameters<AnswerWriter['frame']>[1]): string {
    return this.stream.push(frame);
  }

  end(): string {
    return this.stream.end();
  }

  streamError(_call: unknown, error: Parameters<AnswerWriter['streamError']>[1]): string {
    return anthropicErrorEvent(error);
  }
}
