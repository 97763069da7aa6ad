import type { ChatCompletionChunk } from 'openai/resources/chat/completions';
import { seededRandom } from '../../src/modules/demo';
import { SseParser } from '../../src/modules/proxy/wire/sse';
import type {
  ChatStreamTranslator,
  ChatTranslator,
  ResponseContext,
  TranslationError,
} from '../../src/modules/proxy/providers/translator.types';

/**
 * Feeds an SSE text through SseParser in random slices of 1–7 bytes (seed 0: in one piece), then through a
 * translator's stream, as the gateway does. The slicing is replayable from its seed.
 */
export function runStream(
  translator: ChatTranslator,
  context: ResponseContext,
  sse: string,
  seed: number,
  includeUsage = true,
): { chunks: ChatCompletionChunk[]; stream: ChatStreamTranslator } {
  const bytes = new TextEncoder().encode(sse);
  const parser = new SseParser();
  const stream = translator.createStream({ ...context, includeUsage });
  const chunks: ChatCompletionChunk[] = [];
  const random = seededRandom(seed);
  for (let offset = 0; offset < bytes.length;) {
    const size = seed === 0 ? bytes.length : 1 + Math.floor(random() * 7);
    for (const event of parser.push(bytes.subarray(offset, offset + size))) chunks.push(...stream.push(event));
    offset += size;
  }
  for (const event of parser.flush()) chunks.push(...stream.push(event));
  chunks.push(...stream.finish());
  return { chunks, stream };
}

/** The TranslationError a build attempt throws; fails the test when it throws nothing or something else. */
export async function translationErrorOf(
  attempt: Promise<unknown>,
  errorClass: typeof TranslationError,
): Promise<TranslationError> {
  try {
    await attempt;
  } catch (error) {
    if (error instanceof errorClass) return error;
    throw error;
  }
  throw new Error('expected a TranslationError');
}
