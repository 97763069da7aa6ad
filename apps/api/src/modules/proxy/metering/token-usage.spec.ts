import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runStream } from '../../../../test/support/translator-stream';
import type { AnswerWriter } from '../call/answer-writer';
import { Call, OPENAI_FORMAT } from '../call/call';
import type { GatewayRoute } from '../call/route';
import type { CatalogModel } from '../catalog/catalog.types';
import type { Caller } from '../credentials/caller';
import { emptyVerdict } from '../policy/verdict';
import { Cancel } from '../upstream/cancel';
import { anthropicTranslator } from '../providers/anthropic/anthropic.translator';
import { geminiTranslator } from '../providers/gemini/gemini.translator';
import { SseParser } from '../wire/sse';
import { meterFrame, meterJson } from './metering';
import { fromAnthropic } from '../providers/anthropic/anthropic-usage';
import { fromGemini } from '../providers/gemini/gemini-usage';
import { fromOpenAiChat, fromOpenAiResponses, mergeUsage, type NormalisedUsage, toOpenAiUsage } from './token-usage';

/** The providers' wire shapes (providers/<kind>/fixtures): what each reports for cache reads, writes and reasoning. */
const fixture = (kind: string, name: string) =>
  readFileSync(join(__dirname, '..', 'providers', kind, 'fixtures', name), 'utf8');
const CONTEXT = { publicModel: 'm', id: 'chatcmpl-usage', created: 1_700_000_000 };

/** A call as the metering sees it: the frames it relays and the usage it gathers. */
function meteringCall(action: 'chat_completions' | 'responses' = 'chat_completions'): Call {
  return new Call(
    {
      requestId: 'req-usage',
      route: { action } as GatewayRoute,
      params: {},
      caller: {} as Caller,
      requestHeaders: {},
      signal: new Cancel(),
    },
    new Date(),
    { id: 'm' } as CatalogModel,
    {
      format: OPENAI_FORMAT,
      json: null,
      raw: null,
      form: null,
      stream: true,
      writer: {} as AnswerWriter,
      policy: emptyVerdict(),
      policyFor: () => emptyVerdict(),
    },
  );
}

/** What the gateway meters from a translated answer: the translator's OpenAI usage, read back. */
const metered = (usage: unknown): NormalisedUsage => fromOpenAiChat(usage)!;

/** No component negative, reasoning within output, and the components add up to the provider's whole input. */
function expectSound(usage: NormalisedUsage, wholeInput: number): void {
  for (const value of Object.values(usage)) {
    expect(Number.isInteger(value)).toBe(true);
    expect(value).toBeGreaterThanOrEqual(0);
  }
  expect(usage.inputTokens + usage.cacheReadTokens + usage.cacheWriteTokens + usage.cacheWrite1hTokens).toBe(
    wholeInput,
  );
  expect(usage.reasoningTokens).toBeLessThanOrEqual(usage.outputTokens);
}

describe('normalised usage, from each provider kind’s wire format', () => {
  describe('OpenAI-compatible', () => {
    it('takes cached tokens and reasoning out of prompt_tokens and completion_tokens, once', () => {
      const call = meteringCall();
      meterJson(call, JSON.parse(fixture('openai', 'chat-cache-reasoning.json')));
      expect(call.usageKnown).toBe(true);
      expect(call.metered).toEqual({
        inputTokens: 1760,
        cacheReadTokens: 10240,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        outputTokens: 1400,
        reasoningTokens: 1024,
      });
      expectSound(call.metered as NormalisedUsage, 12000);
    });

    it('reads the same from a stream’s usage chunk', () => {
      const call = meteringCall();
      const parser = new SseParser();
      for (const event of [
        ...parser.push(new TextEncoder().encode(fixture('openai', 'stream-cache-reasoning.sse'))),
        ...parser.flush(),
      ])
        if (event.data !== '[DONE]') meterFrame(call, event.data, false);
      expect(call.metered).toEqual({
        inputTokens: 1760,
        cacheReadTokens: 10240,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        outputTokens: 1400,
        reasoningTokens: 1024,
      });
    });

    it('takes cache writes out of prompt_tokens where an upstream reports them', () => {
      const call = meteringCall();
      meterJson(call, JSON.parse(fixture('openai', 'chat-cache-write.json')));
      expect(call.metered).toEqual({
        inputTokens: 21,
        cacheReadTokens: 12000,
        cacheWriteTokens: 3000,
        cacheWrite1hTokens: 0,
        outputTokens: 393,
        reasoningTokens: 0,
      });
      expectSound(call.metered as NormalisedUsage, 15021);
    });

    it('clamps cached_tokens larger than prompt_tokens (and reasoning larger than the output), and says so', () => {
      const notes: string[] = [];
      const usage = fromOpenAiChat(JSON.parse(fixture('openai', 'chat-cached-above-prompt.json')).usage, (note) =>
        notes.push(note),
      )!;
      expect(usage).toEqual({
        inputTokens: 0,
        cacheReadTokens: 50,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        outputTokens: 5,
        reasoningTokens: 5,
      });
      expectSound(usage, 50);
      expect(notes).toEqual([
        expect.stringContaining('cached_tokens (2048)'),
        expect.stringContaining('reasoning_tokens (9)'),
      ]);
    });

    it('reads the Responses API’s input_tokens_details and output_tokens_details', () => {
      const call = meteringCall('responses');
      meterJson(call, JSON.parse(fixture('openai', 'responses-cache-reasoning.json')));
      expect(call.metered).toEqual({
        inputTokens: 1760,
        cacheReadTokens: 10240,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        outputTokens: 1400,
        reasoningTokens: 1024,
      });
      expect(fromOpenAiResponses({ output_tokens: 3 })).toBeNull();
    });

    it('merges usage reported on several chunks count by count, so a late detail is not lost nor counted twice', () => {
      const call = meteringCall();
      meterFrame(call, JSON.stringify({ choices: [], usage: { prompt_tokens: 100, completion_tokens: 5 } }), false);
      meterFrame(
        call,
        JSON.stringify({
          choices: [],
          usage: { prompt_tokens: 100, completion_tokens: 9, prompt_tokens_details: { cached_tokens: 80 } },
        }),
        false,
      );
      expect(call.metered).toMatchObject({ inputTokens: 20, cacheReadTokens: 80, outputTokens: 9 });
      expectSound(call.metered as NormalisedUsage, 100);
    });

    it('has no usage without a prompt count, and ignores counts that are not numbers', () => {
      expect(fromOpenAiChat({ completion_tokens: 3 })).toBeNull();
      expect(fromOpenAiChat(null)).toBeNull();
      const usage = fromOpenAiChat({
        prompt_tokens: 10,
        completion_tokens: -4,
        prompt_tokens_details: { cached_tokens: '7' },
        completion_tokens_details: null,
      })!;
      expect(usage).toEqual({
        inputTokens: 10,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        outputTokens: 0,
        reasoningTokens: 0,
      });
    });
  });

  describe('Anthropic', () => {
    it('adds cache reads and both cache writes to input_tokens, the writes split five minutes / one hour', () => {
      const completion = anthropicTranslator.parseResponse(
        JSON.parse(fixture('anthropic', 'cache-response.json')),
        CONTEXT,
      );
      const usage = metered(completion.usage);
      expect(usage).toEqual({
        inputTokens: 21,
        cacheReadTokens: 12000,
        cacheWriteTokens: 1000,
        cacheWrite1hTokens: 2000,
        outputTokens: 393,
        reasoningTokens: 0,
      });
      expectSound(usage, 21 + 12000 + 3000);
      expect(completion.usage).toMatchObject({
        prompt_tokens: 15021,
        prompt_tokens_details: { cached_tokens: 12000, cache_write_tokens: 3000, cache_write_1h_tokens: 2000 },
      });
    });

    it('takes a stream’s input from message_start and its output from message_delta, counting the repeated cache counts once', () => {
      for (const seed of [0, 1, 2]) {
        const { stream, chunks } = runStream(
          anthropicTranslator,
          CONTEXT,
          fixture('anthropic', 'stream-cache.sse'),
          seed,
        );
        const usage = metered(chunks.at(-1)!.usage);
        expect(usage).toEqual({
          inputTokens: 21,
          cacheReadTokens: 12000,
          cacheWriteTokens: 1000,
          cacheWrite1hTokens: 2000,
          outputTokens: 393,
          reasoningTokens: 0,
        });
        expect(stream.usage).toEqual({ prompt_tokens: 15021, completion_tokens: 393, total_tokens: 15414 });
      }
    });

    it('takes cache reads that appear only in message_delta, with cache_creation null', () => {
      const { chunks } = runStream(
        anthropicTranslator,
        CONTEXT,
        fixture('anthropic', 'stream-cache-read-in-delta.sse'),
        3,
      );
      const usage = metered(chunks.at(-1)!.usage);
      expect(usage).toEqual({
        inputTokens: 40,
        cacheReadTokens: 8000,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        outputTokens: 120,
        reasoningTokens: 0,
      });
      expectSound(usage, 8040);
    });

    it('never loses a write nor counts one twice when the split and the total disagree', () => {
      expect(fromAnthropic({ input_tokens: 5, cache_creation_input_tokens: 300, cache_creation: null })).toMatchObject({
        cacheWriteTokens: 300,
        cacheWrite1hTokens: 0,
      });
      expect(
        fromAnthropic({
          input_tokens: 5,
          cache_creation_input_tokens: 300,
          cache_creation: { ephemeral_1h_input_tokens: 100 },
        }),
      ).toMatchObject({ cacheWriteTokens: 200, cacheWrite1hTokens: 100 });
      expect(
        fromAnthropic({
          input_tokens: 5,
          cache_creation: { ephemeral_5m_input_tokens: 40, ephemeral_1h_input_tokens: 60 },
        }),
      ).toMatchObject({ cacheWriteTokens: 40, cacheWrite1hTokens: 60 });
      expect(
        fromAnthropic({
          input_tokens: 5,
          cache_creation_input_tokens: 50,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 80 },
        }),
      ).toMatchObject({ cacheWriteTokens: 0, cacheWrite1hTokens: 80 });
      expect(fromAnthropic({ output_tokens: 12 })).toBeNull();
    });

    it('has no usage when message_start brought none (the gateway bills its estimate; zeros would bill nothing)', () => {
      const stream = anthropicTranslator.createStream({ ...CONTEXT, includeUsage: true });
      stream.push({
        event: 'message_delta',
        data: '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":15}}',
      });
      expect(stream.finish().filter((chunk) => chunk.usage)).toEqual([]);
    });
  });

  describe('Gemini', () => {
    it('takes the cached content out of promptTokenCount and adds thoughts to the candidates', () => {
      const completion = geminiTranslator.parseResponse(
        JSON.parse(fixture('gemini', 'thinking-cache-response.json')),
        CONTEXT,
      );
      const usage = metered(completion.usage);
      expect(usage).toEqual({
        inputTokens: 2500,
        cacheReadTokens: 8000,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        outputTokens: 1400,
        reasoningTokens: 1100,
      });
      expectSound(usage, 10500);
    });

    it('keeps a stream’s thoughts when the last chunk leaves thoughtsTokenCount out', () => {
      for (const seed of [0, 4]) {
        const { chunks } = runStream(geminiTranslator, CONTEXT, fixture('gemini', 'stream-thinking.sse'), seed);
        expect(metered(chunks.at(-1)!.usage)).toEqual({
          inputTokens: 2500,
          cacheReadTokens: 8000,
          cacheWriteTokens: 0,
          cacheWrite1hTokens: 0,
          outputTokens: 1400,
          reasoningTokens: 1100,
        });
      }
    });

    it('counts no thoughts when there are none, tool-use prompt tokens as input, and clamps a cache above the prompt', () => {
      expect(fromGemini({ promptTokenCount: 9, candidatesTokenCount: 8 })).toEqual({
        inputTokens: 9,
        cacheReadTokens: 0,
        cacheWriteTokens: 0,
        cacheWrite1hTokens: 0,
        outputTokens: 8,
        reasoningTokens: 0,
      });
      expect(fromGemini({ promptTokenCount: 9, toolUsePromptTokenCount: 4, candidatesTokenCount: 1 })).toMatchObject({
        inputTokens: 13,
      });
      const notes: string[] = [];
      const clamped = fromGemini(
        { promptTokenCount: 100, cachedContentTokenCount: 150, candidatesTokenCount: 2 },
        (note) => notes.push(note),
      )!;
      expect(clamped).toMatchObject({ inputTokens: 0, cacheReadTokens: 100 });
      expectSound(clamped, 100);
      expect(notes).toHaveLength(1);
      expect(fromGemini({ candidatesTokenCount: 2 })).toBeNull();
    });
  });

  it('writes a normalised usage in OpenAI’s shape without loss', () => {
    const usage: NormalisedUsage = {
      inputTokens: 7,
      cacheReadTokens: 11,
      cacheWriteTokens: 13,
      cacheWrite1hTokens: 17,
      outputTokens: 19,
      reasoningTokens: 5,
    };
    expect(fromOpenAiChat(toOpenAiUsage(usage))).toEqual(usage);
  });

  it('merges cumulative counts by keeping the largest, skipping nulls and arrays', () => {
    const merged = mergeUsage({ a: 5, nested: { b: 1 } }, { a: 3, nested: { b: 4, c: null }, list: [1], d: 2 });
    expect(merged).toEqual({ a: 5, nested: { b: 4 }, d: 2 });
  });
});
