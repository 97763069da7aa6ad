import type { AnswerWriter, CostNote } from '../../call/answer-writer';
import type { Call } from '../../call/call';
import type { AppException } from '../../../../common/errors/app.exception';
import type { Frame, Json } from '../../wire/frame';
import { GeminiStreamTranslator, toGeminiResponse } from './gemini-answer';
import { googleErrorEvent } from './gemini-errors';

/**
 * A Gemini-face call's answer, translated from OpenAI's format (gemini-answer.ts). The final usage chunk waits for
 * the call's charge, so a nearly spent account is settled before the answer ends (docs/budgets.md, "Settlement").
 */
export class GeminiWriter implements AnswerWriter {
  private readonly stream: GeminiStreamTranslator;

  constructor(
    private readonly model: string,
    private readonly thoughts: boolean,
  ) {
    this.stream = new GeminiStreamTranslator(model, thoughts);
  }

  json(_call: Call, body: Json, _text: string | undefined, _cost: CostNote): string {
    return JSON.stringify(toGeminiResponse(body, this.model, this.thoughts));
  }

  needsCharge(): boolean {
    return true;
  }

  frame(_call: Call, frame: Frame): string {
    return this.stream.push(frame);
  }

  end(): string {
    return this.stream.end();
  }

  streamError(_call: Call, error: AppException): string {
    return googleErrorEvent(error);
  }
}
