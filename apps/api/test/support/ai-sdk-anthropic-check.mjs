// Drives Switchyard's Messages API with the Vercel AI SDK's Anthropic provider (ESM-only, so it runs in its own
// Node process, not inside Jest). Env: BASE_URL (…/v1), API_KEY, MODEL. Prints one JSON line with what came back.
import { createAnthropic } from '@ai-sdk/anthropic';
import { generateText, jsonSchema, streamText, tool } from 'ai';

const anthropic = createAnthropic({ baseURL: process.env.BASE_URL, apiKey: process.env.API_KEY });
const model = anthropic(process.env.MODEL);
const tools = {
  Bash: tool({
    description: 'Run a command',
    inputSchema: jsonSchema({ type: 'object', properties: { command: { type: 'string' } }, required: ['command'] }),
  }),
};

const generated = await generateText({ model, prompt: 'Say hello to the AI SDK', maxOutputTokens: 200 });
const streamed = streamText({ model, prompt: 'Run ls', tools, maxOutputTokens: 200 });
const parts = [];
for await (const part of streamed.fullStream) parts.push(part.type);
const toolCalls = await streamed.toolCalls;

console.log(
  JSON.stringify({
    generatedText: generated.text,
    generatedUsage: generated.usage,
    streamedParts: parts,
    toolCalls: toolCalls.map((call) => ({ name: call.toolName, input: call.input })),
    streamedUsage: await streamed.usage,
  }),
);
