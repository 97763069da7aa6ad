import { gatewayFetch } from '../../../lib/gateway';
import type { GatewayCredential } from '../../../lib/gateway';
import { applyChatEvent, EMPTY_CHAT_STREAM, SseDecoder } from '../lib/sse';
import type { ChatStreamState } from '../lib/sse';
import type { ChatRequestBody } from '../lib/snippets';

/**
 * Sends a streamed chat completion and reports the text as it grows. An error before the stream starts (a bad
 * key, an exhausted budget: JSON even when streaming was asked, docs/decisions.md#answers-and-errors) throws ApiError; one
 * inside the stream throws StreamError. Aborting the signal stops it, and the gateway stops the model too.
 */
export async function streamChat(
  apiKey: GatewayCredential,
  body: ChatRequestBody,
  onUpdate: (state: ChatStreamState) => void,
  signal?: AbortSignal,
): Promise<ChatStreamState> {
  const response = await gatewayFetch('/chat/completions', { apiKey, json: body, signal });
  let state = EMPTY_CHAT_STREAM;

  // A provider may answer a stream request with plain JSON: take the message from it.
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) {
    const json = (await response.json()) as {
      choices?: { message?: { content?: string | null }; finish_reason?: string }[];
      usage?: Record<string, number>;
    };
    const choice = json.choices?.[0];
    state = {
      content: choice?.message?.content ?? '',
      finishReason: choice?.finish_reason ?? null,
      usage: json.usage
        ? {
            promptTokens: json.usage.prompt_tokens ?? 0,
            completionTokens: json.usage.completion_tokens ?? 0,
            totalTokens: json.usage.total_tokens ?? 0,
            cost: json.usage.cost ?? null,
          }
        : null,
      done: true,
    };
    onUpdate(state);
    return state;
  }

  const reader = response.body?.pipeThrough(new TextDecoderStream()).getReader();
  if (!reader) return state;
  const decoder = new SseDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    const events = done ? decoder.end() : decoder.push(value);
    const before = state;
    for (const data of events) state = applyChatEvent(state, data);
    if (state !== before) onUpdate(state);
    if (done || state.done) break;
  }
  if (!state.done) {
    await reader.cancel().catch(() => {});
  }
  return state;
}
