import type { AppException } from '../../../common/errors/app.exception';
import type { Frame, Json } from '../wire/frame';
import type { Call } from './call';

/** What a call's answer costs, as a face may write it into the answer: micro-units, currency units, the formula's terms. */
export interface CostNote {
  micros: number;
  units: number;
  details: Record<string, number>;
}

/**
 * How a face writes one call's answer in its wire format (faces/<face>/): the relay hands it the provider's answer
 * (a JSON body, or the stream's frames as they arrive) and writes what it returns. The answer it gets is in the
 * call's format (call.format): OpenAI's, or the face's own when the provider took the request natively. A face that
 * writes the provider's own format passes each frame's text through untouched.
 */
export interface AnswerWriter {
  /** A JSON answer. `text`: the provider's own text of `body`, when the body is as the provider wrote it. */
  json(call: Call, body: Json, text: string | undefined, cost: CostNote): string;
  /**
   * Whether a frame carrying the call's final usage must wait for the call's charge: to write it into the answer,
   * or to settle a nearly spent account before the answer ends (docs/budgets.md, "Settlement").
   */
  needsCharge(call: Call, frame: Frame): boolean;
  /** One frame as the text to write (SSE events, '' for none); `cost` when needsCharge said so. */
  frame(call: Call, frame: Frame, cost: CostNote | null): string;
  /** What closes the stream after its last frame ('' for nothing): not written after an error. */
  end(call: Call): string;
  /** An error once the answer began, as the stream's last event. */
  streamError(call: Call, error: AppException): string;
}
