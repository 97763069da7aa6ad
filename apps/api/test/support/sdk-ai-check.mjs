// Drives Switchyard with the Vercel AI SDK's OpenAI-compatible provider through the SDK's openaiOptions() (both
// ESM-only, so they run in their own Node process, not inside Jest). Env: SDK_MODULE (the SDK bundled as one ESM
// file), BASE_URL, CLIENT_ID, TOKENS (the SDK's stored tokens, as the parent test's storage holds them),
// CHAT_MODEL. Prints one JSON line: the streamed text and usage, or the error the SDK maps a refusal to, and the
// tokens the storage holds afterwards (a refresh rotates them).
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { streamText } from 'ai';

const { createSwitchyard, memoryStorage, toSwitchyardError } = await import(process.env.SDK_MODULE);
const storage = memoryStorage();
const key = `switchyard:${process.env.CLIENT_ID}:tokens`;
storage.setItem(key, process.env.TOKENS);
const sy = createSwitchyard({ baseUrl: process.env.BASE_URL, clientId: process.env.CLIENT_ID, storage });
const provider = createOpenAICompatible({ ...sy.openaiOptions(), includeUsage: true });

const result = {};
try {
  const streamed = streamText({
    model: provider.chatModel(process.env.CHAT_MODEL),
    prompt: 'Stream a hello',
    maxRetries: 0,
    onError: () => undefined,
  });
  const parts = [];
  for await (const part of streamed.fullStream) {
    if (part.type === 'text-delta') parts.push(part.text);
    if (part.type === 'error') throw part.error;
  }
  Object.assign(result, { streamedParts: parts.length, streamedText: parts.join(''), usage: await streamed.usage });
} catch (error) {
  const mapped = toSwitchyardError(error);
  result.error = { name: mapped?.name, kind: mapped?.kind, limit: mapped?.limit };
}
console.log(JSON.stringify({ ...result, tokens: storage.getItem(key) }));
