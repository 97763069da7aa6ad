import { setTopLevelFields } from '../billing/json-fields';
import type { Call } from '../call/call';
import { asksForUsage } from '../wire/openai';

const ASK_FOR_USAGE = Buffer.from('"stream_options":{"include_usage":true}');

/**
 * The JSON sent to a provider that speaks OpenAI's format (the openai and demo adapters): the caller's own bytes, with the output bound the call
 * reserved for and the request for a stream's usage written into them (setTopLevelFields), or re-serialised when
 * the model name must change or the caller's own stream_options must be merged.
 */
export function openAiJsonBody(call: Call): string | Buffer | undefined {
  if (!call.json) return undefined;
  const streamsUsage = call.stream && (call.route.action === 'chat_completions' || call.route.action === 'completions');
  const askForUsage = streamsUsage && !asksForUsage(call.json);
  const renamed = call.json.model !== call.model.upstreamModel;
  if (!renamed && !(askForUsage && 'stream_options' in call.json)) {
    if (!askForUsage && !call.outputBound) return call.raw!;
    return setTopLevelFields(
      call.raw!,
      call.outputBound ?? {},
      askForUsage ? ASK_FOR_USAGE : null,
      call.outputBoundReplaces,
    );
  }
  // call.json already holds the output bound.
  const body: Record<string, unknown> = { ...call.json, model: call.model.upstreamModel };
  // Always ask for usage so streams can be billed exactly (docs/budgets.md).
  if (streamsUsage) body.stream_options = { ...(call.json.stream_options as object), include_usage: true };
  return JSON.stringify(body);
}
