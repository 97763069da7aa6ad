import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatCompletionChunk, ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import { FetchedImage, TranslationError, TranslatorContext } from '../translator.types';
import { geminiTranslator } from './gemini.translator';
import { GEMINI_SKIP_THOUGHT_SIGNATURE } from '../../wire/gemini.types';
import { runStream as runSharedStream, translationErrorOf } from '../../../../../test/support/translator-stream';

const fixture = (name: string): string => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const jsonFixture = (name: string): unknown => JSON.parse(fixture(name));

function context(
  fetchImage: TranslatorContext['fetchImage'] = () => Promise.reject(new Error('unexpected fetch')),
): TranslatorContext {
  return { upstreamModel: 'gemini-2.0-flash', apiKey: 'AIza-test-key', fetchImage };
}
const RESPONSE_CTX = { publicModel: 'gemini-flash', id: 'chatcmpl-gem1', created: 1_700_000_000 };

async function build(body: Partial<ChatCompletionCreateParams>, ctx = context()): Promise<Record<string, unknown>> {
  const spec = await geminiTranslator.buildRequest({ model: 'gemini-flash', messages: [], ...body }, ctx);
  return JSON.parse(spec.body) as Record<string, unknown>;
}

function buildError(body: Partial<ChatCompletionCreateParams>): Promise<TranslationError> {
  return translationErrorOf(build(body), TranslationError);
}

function runStream(sse: string, seed: number, includeUsage = true) {
  return runSharedStream(geminiTranslator, RESPONSE_CTX, sse, seed, includeUsage);
}

const contentOf = (chunks: ChatCompletionChunk[], index = 0): string =>
  chunks.map((chunk) => chunk.choices.find((choice) => choice.index === index)?.delta.content ?? '').join('');

const user = { role: 'user' as const, content: 'Hi' };

describe('geminiTranslator.buildRequest', () => {
  it('translates a plain chat into a generateContent request', async () => {
    const spec = await geminiTranslator.buildRequest(
      { model: 'gemini-flash', messages: [{ role: 'user', content: 'Hello' }] },
      context(),
    );
    expect(spec).toEqual({
      path: '/models/gemini-2.0-flash:generateContent',
      method: 'POST',
      headers: { 'x-goog-api-key': 'AIza-test-key', 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] }),
    });
  });

  it('streams through streamGenerateContent with alt=sse, and keeps model paths safe', async () => {
    const stream = await geminiTranslator.buildRequest({ model: 'g', messages: [user], stream: true }, context());
    expect(stream.path).toBe('/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
    const tuned = await geminiTranslator.buildRequest(
      { model: 'g', messages: [user] },
      { ...context(), upstreamModel: 'tunedModels/my-model' },
    );
    expect(tuned.path).toBe('/tunedModels/my-model:generateContent');
    const odd = await geminiTranslator.buildRequest(
      { model: 'g', messages: [user] },
      { ...context(), upstreamModel: 'x?key=1#y' },
    );
    expect(odd.path).toBe('/models/x%3Fkey%3D1%23y:generateContent');
  });

  it('moves system and developer messages to systemInstruction', async () => {
    const request = await build({
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'developer', content: [{ type: 'text', text: 'Answer in French.' }] },
        user,
      ],
    });
    expect(request.systemInstruction).toEqual({ parts: [{ text: 'You are terse.\n\nAnswer in French.' }] });
    expect(request.contents).toEqual([{ role: 'user', parts: [{ text: 'Hi' }] }]);
  });

  it('maps roles and merges consecutive messages of one role', async () => {
    const request = await build({
      messages: [
        { role: 'user', content: 'First' },
        { role: 'user', content: [{ type: 'text', text: 'Second' }] },
        { role: 'assistant', content: 'Answer' },
        { role: 'assistant', content: [{ type: 'refusal', refusal: 'But not that.' }] },
        { role: 'user', content: '' },
        { role: 'user', content: 'Third' },
      ],
    });
    expect(request.contents).toEqual([
      { role: 'user', parts: [{ text: 'First' }, { text: 'Second' }] },
      { role: 'model', parts: [{ text: 'Answer' }, { text: 'But not that.' }] },
      { role: 'user', parts: [{ text: 'Third' }] },
    ]);
  });

  it('maps generation parameters and JSON mode', async () => {
    const request = await build({
      messages: [user],
      max_tokens: 100,
      max_completion_tokens: 256,
      temperature: 1.4,
      top_p: 0.8,
      stop: 'END',
      n: 2,
      seed: 3,
      presence_penalty: 0,
      frequency_penalty: 0.5,
      user: 'ignored',
      response_format: {
        type: 'json_schema',
        json_schema: {
          name: 'answer',
          strict: true,
          schema: {
            type: 'object',
            additionalProperties: false,
            properties: { a: { type: 'string' } },
            required: ['a'],
          },
        },
      },
    });
    expect(request.generationConfig).toEqual({
      maxOutputTokens: 256,
      temperature: 1.4,
      topP: 0.8,
      stopSequences: ['END'],
      candidateCount: 2,
      seed: 3,
      frequencyPenalty: 0.5,
      responseMimeType: 'application/json',
      responseSchema: { type: 'object', properties: { a: { type: 'string' } }, required: ['a'] },
    });
    expect((await build({ messages: [user], response_format: { type: 'json_object' } })).generationConfig).toEqual({
      responseMimeType: 'application/json',
    });
    expect((await build({ messages: [user], stop: ['a', 'b'], n: 1 })).generationConfig).toEqual({
      stopSequences: ['a', 'b'],
    });
  });

  it('sends data-URL images inline and fetches http(s) images through the engine, once per URL', async () => {
    const fetched: string[] = [];
    const fetchImage = jest.fn(async (url: string): Promise<FetchedImage> => {
      fetched.push(url);
      return { mimeType: 'image/jpeg', data: `b64-of-${url.slice(-5)}` };
    });
    const request = await build(
      {
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is in these?' },
              { type: 'image_url', image_url: { url: 'data:image/webp;base64,UklGRg==' } },
              { type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } },
              { type: 'image_url', image_url: { url: 'https://example.com/b.jpg' } },
            ],
          },
          { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://example.com/a.jpg' } }] },
        ],
      },
      context(fetchImage),
    );
    expect(fetchImage).toHaveBeenCalledTimes(2);
    expect(fetched).toEqual(['https://example.com/a.jpg', 'https://example.com/b.jpg']);
    expect(request.contents).toEqual([
      {
        role: 'user',
        parts: [
          { text: 'What is in these?' },
          { inline_data: { mime_type: 'image/webp', data: 'UklGRg==' } },
          { inline_data: { mime_type: 'image/jpeg', data: 'b64-of-a.jpg' } },
          { inline_data: { mime_type: 'image/jpeg', data: 'b64-of-b.jpg' } },
          { inline_data: { mime_type: 'image/jpeg', data: 'b64-of-a.jpg' } },
        ],
      },
    ]);
  });

  it('does not fetch images for a request it refuses, and passes fetch failures through', async () => {
    const fetchImage = jest.fn(async (): Promise<FetchedImage> => ({ mimeType: 'image/png', data: 'x' }));
    const image = { type: 'image_url' as const, image_url: { url: 'https://example.com/a.png' } };
    await expect(
      build({ messages: [{ role: 'user', content: [image] }], logprobs: true }, context(fetchImage)),
    ).rejects.toThrow(TranslationError);
    await expect(
      build(
        { messages: [{ role: 'user', content: [image, { type: 'file', file: { file_id: 'file-1' } }] }] },
        context(fetchImage),
      ),
    ).rejects.toThrow(TranslationError);
    expect(fetchImage).not.toHaveBeenCalled();
    const failure = new Error('image too large');
    await expect(
      build(
        { messages: [{ role: 'user', content: [image] }] },
        context(() => Promise.reject(failure)),
      ),
    ).rejects.toBe(failure);
  });

  it('sends audio and PDF input inline', async () => {
    const request = await build({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'input_audio', input_audio: { data: 'UklGRiQ=', format: 'wav' } },
            { type: 'input_audio', input_audio: { data: 'SUQz', format: 'mp3' } },
            { type: 'file', file: { file_data: 'data:application/pdf;base64,JVBERi0=' } },
          ],
        },
      ],
    });
    expect(request.contents).toEqual([
      {
        role: 'user',
        parts: [
          { inline_data: { mime_type: 'audio/wav', data: 'UklGRiQ=' } },
          { inline_data: { mime_type: 'audio/mp3', data: 'SUQz' } },
          { inline_data: { mime_type: 'application/pdf', data: 'JVBERi0=' } },
        ],
      },
    ]);
  });

  it('declares tools with Gemini-compatible schemas and maps tool_choice', async () => {
    const tools: ChatCompletionCreateParams['tools'] = [
      {
        type: 'function',
        function: {
          name: 'search',
          description: 'Search the web',
          parameters: {
            $schema: 'http://json-schema.org/draft-07/schema#',
            type: 'object',
            additionalProperties: false,
            properties: {
              query: { type: 'string' },
              filters: {
                type: ['object', 'null'],
                additionalProperties: false,
                properties: { site: { type: 'string', format: 'hostname' } },
              },
            },
            required: ['query'],
          },
        },
      },
      { type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } },
    ];
    const request = await build({ messages: [user], tools });
    expect(request.tools).toEqual([
      {
        functionDeclarations: [
          {
            name: 'search',
            description: 'Search the web',
            parameters: {
              type: 'object',
              properties: {
                query: { type: 'string' },
                filters: { type: 'object', nullable: true, properties: { site: { type: 'string' } } },
              },
              required: ['query'],
            },
          },
          { name: 'now' },
        ],
      },
    ]);
    expect(request.toolConfig).toBeUndefined();
    const config = async (toolChoice: ChatCompletionCreateParams['tool_choice']): Promise<unknown> =>
      (await build({ messages: [user], tools, tool_choice: toolChoice })).toolConfig;
    expect(await config('none')).toEqual({ functionCallingConfig: { mode: 'NONE' } });
    expect(await config('auto')).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
    expect(await config('required')).toEqual({ functionCallingConfig: { mode: 'ANY' } });
    expect(await config({ type: 'function', function: { name: 'now' } })).toEqual({
      functionCallingConfig: { mode: 'ANY', allowedFunctionNames: ['now'] },
    });
    const allowed = await build({
      messages: [user],
      tools,
      tool_choice: {
        type: 'allowed_tools',
        allowed_tools: { mode: 'auto', tools: [{ type: 'function', function: { name: 'now' } }] },
      },
    });
    expect(allowed.tools).toEqual([{ functionDeclarations: [{ name: 'now' }] }]);
    expect(allowed.toolConfig).toEqual({ functionCallingConfig: { mode: 'AUTO' } });
  });

  describe('refuses what Gemini cannot take', () => {
    it.each<[string, Partial<ChatCompletionCreateParams>, string | undefined]>([
      ['logprobs', { messages: [user], top_logprobs: 2 }, 'top_logprobs'],
      ['audio output', { messages: [user], audio: { format: 'mp3', voice: 'alloy' } }, 'audio'],
      ['custom tools', { messages: [user], tools: [{ type: 'custom', custom: { name: 'g' } }] }, 'tools[0]'],
      ['legacy function_call', { messages: [user], function_call: 'auto' }, 'function_call'],
      [
        'a non-base64 data URL',
        {
          messages: [
            { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/svg+xml,<svg/>' } }] },
          ],
        },
        'messages[0].content[0].image_url',
      ],
      [
        'a file reference',
        { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }] },
        'messages[0].content[0]',
      ],
      [
        'a tool result for an unknown call',
        { messages: [user, { role: 'tool', tool_call_id: 'call_9', content: 'x' }] },
        'messages[1].tool_call_id',
      ],
      [
        'tool call arguments that are not a JSON object',
        {
          messages: [
            user,
            {
              role: 'assistant',
              tool_calls: [{ id: 'c', type: 'function', function: { name: 'f', arguments: '[1]' } }],
            },
          ],
        },
        'messages[1].tool_calls[0].function.arguments',
      ],
      [
        'a named tool without tools',
        { messages: [user], tool_choice: { type: 'function', function: { name: 'f' } } },
        'tool_choice',
      ],
      ['no messages', { messages: [] }, 'messages'],
    ])('%s', async (_name, body, param) => {
      expect((await buildError(body)).param).toBe(param);
    });
  });
});

describe('geminiTranslator.parseResponse', () => {
  it('translates a text response, joining its parts', () => {
    expect(geminiTranslator.parseResponse(jsonFixture('text-response.json'), RESPONSE_CTX)).toEqual({
      id: 'chatcmpl-gem1',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'gemini-flash',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello! How can I help you today?', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 8,
        completion_tokens: 10,
        total_tokens: 18,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
  });

  it.each([
    ['STOP', 'stop'],
    ['MAX_TOKENS', 'length'],
    ['SAFETY', 'content_filter'],
    ['RECITATION', 'content_filter'],
    ['BLOCKLIST', 'content_filter'],
    ['PROHIBITED_CONTENT', 'content_filter'],
    ['SPII', 'content_filter'],
    ['OTHER', 'stop'],
    ['MALFORMED_FUNCTION_CALL', 'stop'],
    [undefined, 'stop'],
  ])('maps finishReason %s to finish_reason %s', (reason, expected) => {
    const response = {
      candidates: [{ content: { role: 'model', parts: [{ text: 'x' }] }, finishReason: reason, index: 0 }],
    };
    expect(geminiTranslator.parseResponse(response, RESPONSE_CTX).choices[0].finish_reason).toBe(expected);
  });

  it('answers a blocked prompt with one empty choice filtered for content', () => {
    const completion = geminiTranslator.parseResponse(jsonFixture('blocked-prompt-response.json'), RESPONSE_CTX);
    expect(completion.choices).toEqual([
      {
        index: 0,
        message: { role: 'assistant', content: null, refusal: null },
        logprobs: null,
        finish_reason: 'content_filter',
      },
    ]);
    expect(completion.usage).toEqual({
      prompt_tokens: 12,
      completion_tokens: 0,
      total_tokens: 12,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('reads a missing candidate index as 0, as proto3 JSON leaves out default values', () => {
    const response = {
      candidates: [
        { content: { role: 'model', parts: [{ text: 'B' }] }, finishReason: 'STOP', index: 1 },
        { content: { role: 'model', parts: [{ text: 'A' }] }, finishReason: 'STOP' },
      ],
    };
    expect(
      geminiTranslator.parseResponse(response, RESPONSE_CTX).choices.map((choice) => choice.message.content),
    ).toEqual(['A', 'B']);
  });

  it('returns every candidate as a choice, in index order', () => {
    const response = {
      candidates: [
        { content: { role: 'model', parts: [{ text: 'B' }] }, finishReason: 'STOP', index: 1 },
        { content: { role: 'model', parts: [{ text: 'A' }] }, finishReason: 'MAX_TOKENS', index: 0 },
      ],
    };
    const { choices } = geminiTranslator.parseResponse(response, RESPONSE_CTX);
    expect(choices.map((choice) => [choice.index, choice.message.content, choice.finish_reason])).toEqual([
      [0, 'A', 'length'],
      [1, 'B', 'stop'],
    ]);
  });
});

describe('a tool call round trip', () => {
  it('reads functionCall parts as tool_calls with synthesized ids and sends results back as functionResponse parts', async () => {
    const tools: ChatCompletionCreateParams['tools'] = [
      {
        type: 'function',
        function: { name: 'get_weather', parameters: { type: 'object', properties: { location: { type: 'string' } } } },
      },
      {
        type: 'function',
        function: { name: 'get_time', parameters: { type: 'object', properties: { timezone: { type: 'string' } } } },
      },
    ];
    const first = await build({
      messages: [{ role: 'user', content: 'Weather and time in Boston?' }],
      tools,
      tool_choice: 'auto',
    });
    expect((first.tools as Array<{ functionDeclarations: unknown[] }>)[0].functionDeclarations).toHaveLength(2);

    const completion = geminiTranslator.parseResponse(jsonFixture('function-call-response.json'), RESPONSE_CTX);
    const message = completion.choices[0].message;
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(message.content).toBe('Let me look that up.'); // the thought summary is not part of the answer
    expect(message.tool_calls).toEqual([
      {
        id: 'call_0',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"Boston, MA","unit":"celsius"}' },
      },
      { id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{"timezone":"America/New_York"}' } },
    ]);
    expect(completion.usage).toEqual({
      prompt_tokens: 70,
      completion_tokens: 80,
      total_tokens: 150,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 50 },
    });
    // deterministic: the same response gives the same ids
    expect(geminiTranslator.parseResponse(jsonFixture('function-call-response.json'), RESPONSE_CTX)).toEqual(
      completion,
    );

    const followUp = await build({
      tools,
      messages: [
        { role: 'user', content: 'Weather and time in Boston?' },
        { role: 'assistant', content: message.content, tool_calls: message.tool_calls },
        { role: 'tool', tool_call_id: 'call_0', content: '{"temperature":21,"sky":"clear"}' },
        { role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: '14:05' }] },
      ],
    });
    expect(followUp.contents).toEqual([
      { role: 'user', parts: [{ text: 'Weather and time in Boston?' }] },
      {
        role: 'model',
        parts: [
          { text: 'Let me look that up.' },
          {
            functionCall: { name: 'get_weather', args: { location: 'Boston, MA', unit: 'celsius' } },
            thoughtSignature: GEMINI_SKIP_THOUGHT_SIGNATURE,
          },
          { functionCall: { name: 'get_time', args: { timezone: 'America/New_York' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          { functionResponse: { name: 'get_weather', response: { temperature: 21, sky: 'clear' } } },
          { functionResponse: { name: 'get_time', response: { content: '14:05' } } },
        ],
      },
    ]);
  });

  it('finds the name of a reused id in the nearest earlier assistant message', async () => {
    const call = (name: string) => ({
      role: 'assistant' as const,
      tool_calls: [{ id: 'call_0', type: 'function' as const, function: { name, arguments: '{}' } }],
    });
    const request = await build({
      messages: [
        user,
        call('first'),
        { role: 'tool', tool_call_id: 'call_0', content: 'a' },
        call('second'),
        { role: 'tool', tool_call_id: 'call_0', content: 'b' },
      ],
    });
    const names = (request.contents as Array<{ parts: Array<{ functionResponse?: { name: string } }> }>)
      .flatMap((content) => content.parts)
      .flatMap((part) => (part.functionResponse ? [part.functionResponse.name] : []));
    expect(names).toEqual(['first', 'second']);
  });
});

describe('geminiTranslator streams', () => {
  const SEEDS = [0, 1, 2, 3, 42, 1234];

  it('streams text with usage, whatever the slicing of the upstream bytes', () => {
    const { chunks, stream } = runStream(fixture('stream-text.sse'), 9);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({
        id: 'chatcmpl-gem1',
        object: 'chat.completion.chunk',
        created: 1_700_000_000,
        model: 'gemini-flash',
      });
    }
    expect(chunks[0].choices).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
    ]);
    expect(contentOf(chunks)).toBe('Bonjour à tous 👋, 世界!');
    expect(chunks[chunks.length - 2].choices).toEqual([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]);
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({
      prompt_tokens: 9,
      completion_tokens: 8,
      total_tokens: 17,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    expect(stream.usage).toEqual({ prompt_tokens: 9, completion_tokens: 8, total_tokens: 17 });
    expect(stream.error).toBeNull();

    const reference = JSON.stringify(runStream(fixture('stream-text.sse'), 0).chunks);
    for (const seed of SEEDS)
      expect(JSON.stringify(runStream(fixture('stream-text.sse'), seed).chunks)).toBe(reference);
    // the fixture uses CRLF, as Gemini does; LF-only streams give the same result
    expect(JSON.stringify(runStream(fixture('stream-text.sse').replace(/\r\n/g, '\n'), 4).chunks)).toBe(reference);
  });

  it('streams function calls as whole tool_call deltas with synthesized ids', () => {
    const reference = runStream(fixture('stream-function-call.sse'), 0).chunks;
    for (const seed of SEEDS) expect(runStream(fixture('stream-function-call.sse'), seed).chunks).toEqual(reference);
    expect(contentOf(reference)).toBe('Checking both.');
    expect(reference.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? [])).toEqual([
      {
        index: 0,
        id: 'call_0',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"Zürich"}' },
      },
      {
        index: 1,
        id: 'call_1',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"Paris"}' },
      },
    ]);
    expect(reference[reference.length - 2].choices[0].finish_reason).toBe('tool_calls');
    expect(reference[reference.length - 1].usage).toEqual({
      prompt_tokens: 60,
      completion_tokens: 25,
      total_tokens: 85,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('reports an error event in the middle of the stream', () => {
    const { chunks, stream } = runStream(fixture('stream-error.sse'), 5);
    expect(contentOf(chunks)).toBe('Partial');
    expect(stream.error).toEqual({
      status: 503,
      message: 'The model is overloaded. Please try again later.',
      type: 'server_error',
      code: 'unavailable',
    });
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason)).toBe(false);
    expect(stream.usage).toEqual({ prompt_tokens: 5, completion_tokens: 0, total_tokens: 5 });
  });

  it('finishes a blocked prompt with content_filter', () => {
    const stream = geminiTranslator.createStream({ ...RESPONSE_CTX, includeUsage: false });
    const chunks = [
      ...stream.push({ data: JSON.stringify(jsonFixture('blocked-prompt-response.json')) }),
      ...stream.finish(),
    ];
    expect(chunks.map((chunk) => chunk.choices[0].finish_reason)).toEqual([null, 'content_filter']);
  });

  it('streams several candidates as several choices, each with its own role and finish chunk', () => {
    const stream = geminiTranslator.createStream({ ...RESPONSE_CTX, includeUsage: false });
    const event = (candidates: unknown[]) => ({ data: JSON.stringify({ candidates }) });
    const chunks = [
      ...stream.push(
        event([
          { index: 0, content: { parts: [{ text: 'A1' }] } },
          { index: 1, content: { parts: [{ text: 'B1' }] } },
        ]),
      ),
      ...stream.push(event([{ index: 1, content: { parts: [{ text: 'B2' }] }, finishReason: 'MAX_TOKENS' }])),
      ...stream.push(event([{ index: 0, content: { parts: [{ text: 'A2' }] }, finishReason: 'STOP' }])),
      ...stream.finish(),
    ];
    expect(contentOf(chunks, 0)).toBe('A1A2');
    expect(contentOf(chunks, 1)).toBe('B1B2');
    const finishes = chunks.flatMap((chunk) =>
      chunk.choices.filter((choice) => choice.finish_reason).map((choice) => [choice.index, choice.finish_reason]),
    );
    expect(finishes).toEqual([
      [1, 'length'],
      [0, 'stop'],
    ]);
    expect(
      chunks.filter((chunk) => chunk.choices[0].delta.role === 'assistant').map((chunk) => chunk.choices[0].index),
    ).toEqual([0, 1]);
  });

  it('finishes a stream that never gave a finishReason, once', () => {
    const stream = geminiTranslator.createStream({ ...RESPONSE_CTX, includeUsage: true });
    stream.push({ data: '{"candidates":[{"content":{"parts":[{"text":"cut"}]},"index":0}]}' });
    const chunks = stream.finish();
    // No usage from the upstream: no usage chunk (zeros would bill nothing; the gateway bills its estimate).
    expect(chunks.map((chunk) => chunk.choices[0]?.finish_reason ?? 'usage')).toEqual(['stop']);
    expect(stream.usage).toBeNull();
    expect(stream.finish()).toEqual([]);
  });
});

describe('geminiTranslator.parseError', () => {
  it('treats an invalid key as an authentication error', () => {
    expect(geminiTranslator.parseError(400, fixture('error-invalid-key.json'))).toEqual({
      status: 401,
      message: 'API key not valid. Please pass a valid API key.',
      type: 'authentication_error',
      code: 'invalid_api_key',
    });
  });

  it('maps RESOURCE_EXHAUSTED to a rate limit error, without the URLs of the message', () => {
    expect(geminiTranslator.parseError(429, fixture('error-resource-exhausted.json'))).toEqual({
      status: 429,
      message:
        'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: [url]',
      type: 'rate_limit_error',
      code: 'resource_exhausted',
    });
  });

  it.each([
    [400, 'INVALID_ARGUMENT', 'invalid_request_error'],
    [400, 'FAILED_PRECONDITION', 'invalid_request_error'],
    [401, 'UNAUTHENTICATED', 'authentication_error'],
    [403, 'PERMISSION_DENIED', 'permission_error'],
    [404, 'NOT_FOUND', 'not_found_error'],
    [500, 'INTERNAL', 'server_error'],
    [503, 'UNAVAILABLE', 'server_error'],
    [504, 'DEADLINE_EXCEEDED', 'server_error'],
  ])('HTTP %i %s → %s', (status, grpcStatus, type) => {
    const body = JSON.stringify({ error: { code: status, message: 'm', status: grpcStatus } });
    expect(geminiTranslator.parseError(status, body)).toEqual({
      status,
      message: 'm',
      type,
      code: grpcStatus.toLowerCase(),
    });
  });

  it('reads array-wrapped errors and copes with bodies that are not JSON', () => {
    const wrapped = JSON.stringify([
      { error: { code: 404, message: 'models/nope is not found', status: 'NOT_FOUND' } },
    ]);
    expect(geminiTranslator.parseError(404, wrapped).type).toBe('not_found_error');
    expect(geminiTranslator.parseError(404, '<html>The requested URL /v1beta/models/x was not found</html>')).toEqual({
      status: 404,
      message: 'The upstream provider answered with HTTP 404.',
      type: 'not_found_error',
      code: null,
    });
  });
});
