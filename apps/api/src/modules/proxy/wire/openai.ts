import type { Json } from './frame';

/**
 * OpenAI's wire format, the gateway's own (every provider answers in it, natively or translated): what more than one
 * part reads of it.
 */

/** Whether a chat or completions request asks for a stream's usage chunk (`stream_options.include_usage`). */
export function asksForUsage(json: Json | null): boolean {
  const options = json?.stream_options as { include_usage?: unknown } | null | undefined;
  return options?.include_usage === true;
}

/** An error event in a stream, in OpenAI's shape (what OpenAI's servers send when a stream fails). */
export function openAiStreamError(message: string, code: string): string {
  return `data: ${JSON.stringify({ error: { message, type: 'server_error', code } })}\n\n`;
}
