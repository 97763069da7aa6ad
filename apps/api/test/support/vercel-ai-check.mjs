// Drives Switchyard with the Vercel AI SDK (ESM-only, so it runs in its own Node process, not inside Jest).
// Env: BASE_URL (…/v1), API_KEY, CHAT_MODEL, EMBED_MODEL. Prints one JSON line with what came back.
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { embed, generateText, streamText } from 'ai';

const provider = createOpenAICompatible({
  name: 'switchyard',
  baseURL: process.env.BASE_URL,
  apiKey: process.env.API_KEY,
  includeUsage: true,
});
const model = provider.chatModel(process.env.CHAT_MODEL);

const generated = await generateText({ model, prompt: 'Say hello to the Vercel AI SDK' });
const streamed = streamText({ model, prompt: 'Stream a hello' });
const parts = [];
for await (const part of streamed.textStream) parts.push(part);
const usage = await streamed.usage;
const embedded = await embed({ model: provider.textEmbeddingModel(process.env.EMBED_MODEL), value: 'vector me' });

console.log(
  JSON.stringify({
    generatedText: generated.text,
    generatedUsage: generated.usage,
    streamedParts: parts.length,
    streamedText: parts.join(''),
    streamedUsage: usage,
    embeddingLength: embedded.embedding.length,
  }),
);
