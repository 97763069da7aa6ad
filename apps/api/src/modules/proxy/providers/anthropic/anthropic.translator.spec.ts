import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChatCompletionChunk, ChatCompletionCreateParams } from 'openai/resources/chat/completions';
import { TranslationError, TranslatorContext } from '../translator.types';
import { ANTHROPIC_DEFAULT_MAX_TOKENS, anthropicTranslator } from './anthropic.translator';
import { runStream as runSharedStream, translationErrorOf } from '../../../../../test/support/translator-stream';

const fixture = (name: string): string => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const jsonFixture = (name: string): unknown => JSON.parse(fixture(name));

const CTX: TranslatorContext = {
  upstreamModel: 'claude-sonnet-4-20250514',
  apiKey: 'sk-ant-test-key',
  fetchImage: () => Promise.reject(new Error('Anthropic fetches image URLs itself')),
};
const RESPONSE_CTX = { publicModel: 'claude-sonnet', id: 'chatcmpl-test123', created: 1_700_000_000 };

async function build(body: Partial<ChatCompletionCreateParams>): Promise<Record<string, unknown>> {
  const spec = await anthropicTranslator.buildRequest({ model: 'claude-sonnet', messages: [], ...body }, CTX);
  return JSON.parse(spec.body) as Record<string, unknown>;
}

function buildError(body: Partial<ChatCompletionCreateParams>): Promise<TranslationError> {
  return translationErrorOf(build(body), TranslationError);
}

function runStream(sse: string, seed: number, includeUsage = true) {
  return runSharedStream(anthropicTranslator, RESPONSE_CTX, sse, seed, includeUsage);
}

const contentOf = (chunks: ChatCompletionChunk[]): string =>
  chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join('');

describe('anthropicTranslator.buildRequest', () => {
  it('translates a plain chat into a Messages API request', async () => {
    const spec = await anthropicTranslator.buildRequest(
      { model: 'claude-sonnet', messages: [{ role: 'user', content: 'Hello' }] },
      CTX,
    );
    expect(spec.path).toBe('/messages');
    expect(spec.method).toBe('POST');
    expect(spec.headers).toEqual({
      'x-api-key': 'sk-ant-test-key',
      'anthropic-version': '2023-06-01',
      'content-type': 'application/json',
    });
    expect(JSON.parse(spec.body)).toEqual({
      model: 'claude-sonnet-4-20250514',
      max_tokens: ANTHROPIC_DEFAULT_MAX_TOKENS,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    });
  });

  it('moves system and developer messages, wherever they are, to the top-level system prompt', async () => {
    const request = await build({
      messages: [
        { role: 'system', content: 'You are terse.' },
        {
          role: 'developer',
          content: [
            { type: 'text', text: 'Answer in ' },
            { type: 'text', text: 'French.' },
          ],
        },
        { role: 'user', content: 'Hi' },
        { role: 'system', content: 'Never mention the weather.' },
      ],
    });
    expect(request.system).toBe('You are terse.\n\nAnswer in French.\n\nNever mention the weather.');
    expect(request.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }]);
  });

  it('merges consecutive messages of one role into one turn and skips empty ones', async () => {
    const request = await build({
      messages: [
        { role: 'user', content: 'First' },
        { role: 'user', content: [{ type: 'text', text: 'Second' }] },
        { role: 'assistant', content: 'Answer one' },
        { role: 'assistant', content: '' },
        { role: 'assistant', content: [{ type: 'text', text: 'Answer two' }] },
        { role: 'user', content: 'Third' },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'First' },
          { type: 'text', text: 'Second' },
        ],
      },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Answer one' },
          { type: 'text', text: 'Answer two' },
        ],
      },
      { role: 'user', content: [{ type: 'text', text: 'Third' }] },
    ]);
  });

  it('maps sampling parameters, stop sequences, streaming and the end-user id', async () => {
    const request = await build({
      messages: [{ role: 'user', content: 'Hi' }],
      max_tokens: 100,
      max_completion_tokens: 200,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['END', ''],
      stream: true,
      user: 'user-42',
      // hints without an Anthropic counterpart are ignored
      seed: 7,
      presence_penalty: 0.5,
    });
    expect(request).toEqual({
      model: 'claude-sonnet-4-20250514',
      max_tokens: 200,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'Hi' }] }],
      temperature: 0.2,
      top_p: 0.9,
      stop_sequences: ['END'],
      stream: true,
      metadata: { user_id: 'user-42' },
    });
    expect(
      (await build({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 50, stop: 'STOP' })).stop_sequences,
    ).toEqual(['STOP']);
    expect((await build({ messages: [{ role: 'user', content: 'Hi' }], max_tokens: 50 })).max_tokens).toBe(50);
  });

  it('sends data-URL images as base64 and http(s) images as URL sources', async () => {
    const request = await build({
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'Compare these:' },
            { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=', detail: 'high' } },
            { type: 'image_url', image_url: { url: 'https://upload.wikimedia.org/cat.jpg' } },
          ],
        },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Compare these:' },
          { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
          { type: 'image', source: { type: 'url', url: 'https://upload.wikimedia.org/cat.jpg' } },
        ],
      },
    ]);
  });

  it('sends PDF files as document blocks', async () => {
    const request = await build({
      messages: [
        {
          role: 'user',
          content: [{ type: 'file', file: { filename: 'a.pdf', file_data: 'data:application/pdf;base64,JVBERi0=' } }],
        },
      ],
    });
    expect(request.messages).toEqual([
      {
        role: 'user',
        content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: 'JVBERi0=' } }],
      },
    ]);
  });

  it('trims trailing whitespace from a final assistant prefill, which Anthropic rejects', async () => {
    const request = await build({
      messages: [
        { role: 'user', content: 'Write JSON' },
        { role: 'assistant', content: '{\n  ' },
      ],
    });
    expect(request.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Write JSON' }] },
      { role: 'assistant', content: [{ type: 'text', text: '{' }] },
    ]);
  });

  it('maps tool_choice and parallel_tool_calls', async () => {
    const tools: ChatCompletionCreateParams['tools'] = [
      {
        type: 'function',
        function: { name: 'a', parameters: { type: 'object', properties: { x: { type: 'string' } } } },
      },
      { type: 'function', function: { name: 'b', description: 'no parameters' } },
    ];
    const base = { messages: [{ role: 'user' as const, content: 'Hi' }], tools };
    const converted = await build(base);
    expect(converted.tools).toEqual([
      { name: 'a', input_schema: { type: 'object', properties: { x: { type: 'string' } } } },
      { name: 'b', description: 'no parameters', input_schema: { type: 'object', properties: {} } },
    ]);
    expect(converted.tool_choice).toBeUndefined();
    expect((await build({ ...base, tool_choice: 'none' })).tool_choice).toEqual({ type: 'none' });
    expect((await build({ ...base, tool_choice: 'auto' })).tool_choice).toEqual({ type: 'auto' });
    expect((await build({ ...base, tool_choice: 'required' })).tool_choice).toEqual({ type: 'any' });
    expect((await build({ ...base, tool_choice: { type: 'function', function: { name: 'b' } } })).tool_choice).toEqual({
      type: 'tool',
      name: 'b',
    });
    expect((await build({ ...base, parallel_tool_calls: false })).tool_choice).toEqual({
      type: 'auto',
      disable_parallel_tool_use: true,
    });
    expect((await build({ ...base, tool_choice: 'required', parallel_tool_calls: false })).tool_choice).toEqual({
      type: 'any',
      disable_parallel_tool_use: true,
    });
    const allowed = await build({
      ...base,
      tool_choice: {
        type: 'allowed_tools',
        allowed_tools: { mode: 'required', tools: [{ type: 'function', function: { name: 'b' } }] },
      },
    });
    expect(allowed.tool_choice).toEqual({ type: 'any' });
    expect((allowed.tools as Array<{ name: string }>).map((tool) => tool.name)).toEqual(['b']);
  });

  it('declares tools used in the history, forbidding their use, when the client sends none', async () => {
    const request = await build({
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'toolu_1', content: 'Sunny' },
        { role: 'user', content: 'Summarize.' },
      ],
    });
    expect(request.tools).toEqual([{ name: 'get_weather', input_schema: { type: 'object' } }]);
    expect(request.tool_choice).toEqual({ type: 'none' });
  });

  it('puts tool results first in their user turn, before text the client added', async () => {
    const request = await build({
      messages: [
        { role: 'user', content: 'Weather?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'w', arguments: '' } }],
        },
        { role: 'user', content: 'Also, be brief.' },
        { role: 'tool', tool_call_id: 'toolu_1', content: [{ type: 'text', text: 'Sunny' }] },
      ],
      tools: [{ type: 'function', function: { name: 'w' } }],
    });
    expect((request.messages as unknown[])[1]).toEqual({
      role: 'assistant',
      content: [{ type: 'tool_use', id: 'toolu_1', name: 'w', input: {} }],
    });
    expect((request.messages as unknown[])[2]).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' },
        { type: 'text', text: 'Also, be brief.' },
      ],
    });
  });

  describe('refuses what Anthropic cannot take', () => {
    const user = { role: 'user' as const, content: 'Hi' };
    it.each<[string, Partial<ChatCompletionCreateParams>, string | undefined]>([
      ['n > 1', { messages: [user], n: 2 }, 'n'],
      [
        'audio input',
        {
          messages: [
            { role: 'user', content: [{ type: 'input_audio', input_audio: { data: 'AAA=', format: 'wav' } }] },
          ],
        },
        'messages[0].content[0]',
      ],
      ['audio output', { messages: [user], modalities: ['text', 'audio'] }, 'modalities'],
      ['temperature above 1', { messages: [user], temperature: 1.5 }, 'temperature'],
      ['JSON mode', { messages: [user], response_format: { type: 'json_object' } }, 'response_format'],
      ['logprobs', { messages: [user], logprobs: true }, 'logprobs'],
      ['legacy functions', { messages: [user], functions: [{ name: 'f' }] }, 'functions'],
      ['custom tools', { messages: [user], tools: [{ type: 'custom', custom: { name: 'grammar' } }] }, 'tools[0]'],
      [
        'an unsupported image type',
        {
          messages: [
            { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:image/tiff;base64,AAAA' } }] },
          ],
        },
        'messages[0].content[0].image_url',
      ],
      [
        'a non-http image URL',
        { messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'ftp://host/cat.png' } }] }] },
        'messages[0].content[0].image_url',
      ],
      [
        'a file_id',
        { messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-abc' } }] }] },
        'messages[0].content[0]',
      ],
      [
        'tool call arguments that are not JSON',
        {
          messages: [
            user,
            {
              role: 'assistant',
              tool_calls: [{ id: 't', type: 'function', function: { name: 'f', arguments: '{oops' } }],
            },
          ],
        },
        'messages[1].tool_calls[0].function.arguments',
      ],
      [
        'the legacy function role',
        { messages: [user, { role: 'function', name: 'f', content: 'x' }] },
        'messages[1].role',
      ],
      [
        'a conversation without content',
        { messages: [{ role: 'system', content: 'Only a system prompt' }] },
        'messages',
      ],
      ['a required tool without tools', { messages: [user], tool_choice: 'required' }, 'tool_choice'],
    ])('%s', async (_name, body, param) => {
      const error = await buildError(body);
      expect(error.param).toBe(param);
      expect(error.message).not.toHaveLength(0);
    });
  });
});

describe('anthropicTranslator.parseResponse', () => {
  it('translates a text message', () => {
    expect(anthropicTranslator.parseResponse(jsonFixture('text-response.json'), RESPONSE_CTX)).toEqual({
      id: 'chatcmpl-test123',
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'claude-sonnet',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: 'Hello! How can I help you today?', refusal: null },
          logprobs: null,
          finish_reason: 'stop',
        },
      ],
      usage: {
        prompt_tokens: 21,
        completion_tokens: 12,
        total_tokens: 33,
        prompt_tokens_details: { cached_tokens: 0 },
        completion_tokens_details: { reasoning_tokens: 0 },
      },
    });
  });

  it.each([
    ['end_turn', 'stop'],
    ['stop_sequence', 'stop'],
    ['pause_turn', 'stop'],
    ['max_tokens', 'length'],
    ['model_context_window_exceeded', 'length'],
    ['tool_use', 'tool_calls'],
    ['refusal', 'content_filter'],
    [null, 'stop'],
  ])('maps stop_reason %s to finish_reason %s', (stopReason, expected) => {
    const response = { ...(jsonFixture('text-response.json') as object), stop_reason: stopReason };
    expect(anthropicTranslator.parseResponse(response, RESPONSE_CTX).choices[0].finish_reason).toBe(expected);
  });

  it('gives null content when there is no text block', () => {
    const response = {
      type: 'message',
      content: [],
      stop_reason: 'end_turn',
      usage: { input_tokens: 1, output_tokens: 0 },
    };
    expect(anthropicTranslator.parseResponse(response, RESPONSE_CTX).choices[0].message.content).toBeNull();
  });

  it('refuses something that is not a Messages response', () => {
    expect(() => anthropicTranslator.parseResponse('nope', RESPONSE_CTX)).toThrow(/Anthropic response/);
  });
});

describe('a tool call round trip', () => {
  it('sends tools, reads tool_use blocks back as tool_calls, and sends the results as tool_result blocks', async () => {
    const tools: ChatCompletionCreateParams['tools'] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          description: 'Current weather',
          parameters: {
            type: 'object',
            properties: { location: { type: 'string' }, unit: { type: 'string', enum: ['celsius', 'fahrenheit'] } },
            required: ['location'],
          },
        },
      },
    ];
    const first = await build({
      messages: [{ role: 'user', content: 'Weather in SF and Paris?' }],
      tools,
      tool_choice: 'auto',
    });
    expect(first.tools).toEqual([
      {
        name: 'get_weather',
        description: 'Current weather',
        input_schema: tools[0].type === 'function' ? tools[0].function.parameters : {},
      },
    ]);
    expect(first.tool_choice).toEqual({ type: 'auto' });

    const completion = anthropicTranslator.parseResponse(jsonFixture('tool-use-response.json'), RESPONSE_CTX);
    const message = completion.choices[0].message;
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(message.content).toBe("I'll check the weather in both cities.");
    expect(message.tool_calls).toEqual([
      {
        id: 'toolu_01A09q90qw90lq917835lq9',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"San Francisco, CA","unit":"celsius"}' },
      },
      {
        id: 'toolu_01B7fe8c2d3e4f5a6b7c8d9e',
        type: 'function',
        function: { name: 'get_weather', arguments: '{"location":"Paris, France"}' },
      },
    ]);
    // cache reads and writes are input tokens too
    expect(completion.usage).toEqual({
      prompt_tokens: 472 + 100 + 2048,
      completion_tokens: 91,
      total_tokens: 472 + 100 + 2048 + 91,
      prompt_tokens_details: { cached_tokens: 2048, cache_write_tokens: 100 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });

    const followUp = await build({
      tools,
      messages: [
        { role: 'user', content: 'Weather in SF and Paris?' },
        { role: 'assistant', content: message.content, tool_calls: message.tool_calls },
        { role: 'tool', tool_call_id: 'toolu_01A09q90qw90lq917835lq9', content: '{"temperature":18}' },
        { role: 'tool', tool_call_id: 'toolu_01B7fe8c2d3e4f5a6b7c8d9e', content: '{"temperature":22}' },
      ],
    });
    expect(followUp.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Weather in SF and Paris?' }] },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: "I'll check the weather in both cities." },
          {
            type: 'tool_use',
            id: 'toolu_01A09q90qw90lq917835lq9',
            name: 'get_weather',
            input: { location: 'San Francisco, CA', unit: 'celsius' },
          },
          {
            type: 'tool_use',
            id: 'toolu_01B7fe8c2d3e4f5a6b7c8d9e',
            name: 'get_weather',
            input: { location: 'Paris, France' },
          },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'toolu_01A09q90qw90lq917835lq9', content: '{"temperature":18}' },
          { type: 'tool_result', tool_use_id: 'toolu_01B7fe8c2d3e4f5a6b7c8d9e', content: '{"temperature":22}' },
        ],
      },
    ]);
  });
});

describe('anthropicTranslator streams', () => {
  const SEEDS = [0, 1, 2, 3, 42, 1234];

  it('streams text with usage, whatever the slicing of the upstream bytes', () => {
    const { chunks, stream } = runStream(fixture('stream-text.sse'), 7);
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({
        id: 'chatcmpl-test123',
        object: 'chat.completion.chunk',
        created: 1_700_000_000,
        model: 'claude-sonnet',
      });
    }
    expect(chunks[0].choices).toEqual([
      { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
    ]);
    expect(contentOf(chunks)).toBe('Bonjour à tous 👋, 世界!');
    const finish = chunks[chunks.length - 2];
    expect(finish.choices).toEqual([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]);
    expect(finish.usage).toBeNull();
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage).toEqual({
      prompt_tokens: 25,
      completion_tokens: 15,
      total_tokens: 40,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
    expect(stream.usage).toEqual({ prompt_tokens: 25, completion_tokens: 15, total_tokens: 40 });
    expect(stream.error).toBeNull();

    const reference = JSON.stringify(runStream(fixture('stream-text.sse'), 0).chunks);
    for (const seed of SEEDS)
      expect(JSON.stringify(runStream(fixture('stream-text.sse'), seed).chunks)).toBe(reference);
    expect(JSON.stringify(runStream(fixture('stream-text.sse').replace(/\n/g, '\r\n'), 5).chunks)).toBe(reference);
  });

  it('leaves usage out of the chunks when the client did not ask for it', () => {
    const { chunks, stream } = runStream(fixture('stream-text.sse'), 3, false);
    expect(chunks.every((chunk) => chunk.usage === undefined && chunk.choices.length === 1)).toBe(true);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
    expect(stream.usage).toEqual({ prompt_tokens: 25, completion_tokens: 15, total_tokens: 40 });
  });

  it('streams tool call argument deltas, numbering tool calls among tool calls only', () => {
    const reference = runStream(fixture('stream-tool-use.sse'), 0).chunks;
    for (const seed of SEEDS) expect(runStream(fixture('stream-tool-use.sse'), seed).chunks).toEqual(reference);

    const toolDeltas = reference.flatMap((chunk) => chunk.choices[0]?.delta.tool_calls ?? []);
    expect(toolDeltas[0]).toEqual({
      index: 0,
      id: 'toolu_01T1x1fJ34qAmk2tNTrN7Up6',
      type: 'function',
      function: { name: 'get_weather', arguments: '' },
    });
    const args = (index: number): string =>
      toolDeltas
        .filter((delta) => delta.index === index)
        .map((delta) => delta.function?.arguments ?? '')
        .join('');
    expect(JSON.parse(args(0))).toEqual({ location: 'San Francisco, CA', unit: 'celsius' });
    expect(JSON.parse(args(1))).toEqual({ location: 'Zürich' });
    expect(toolDeltas.find((delta) => delta.index === 1)?.id).toBe('toolu_02Ab3cD4eF5gH6iJ7kL8mN9o');
    expect(toolDeltas.some((delta) => delta.function?.arguments === '' && delta.id === undefined)).toBe(false);
    expect(contentOf(reference)).toBe('Let me check both cities.');
    expect(reference[reference.length - 2].choices[0].finish_reason).toBe('tool_calls');
    expect(reference[reference.length - 1].usage).toEqual({
      prompt_tokens: 472,
      completion_tokens: 89,
      total_tokens: 561,
      prompt_tokens_details: { cached_tokens: 0 },
      completion_tokens_details: { reasoning_tokens: 0 },
    });
  });

  it('reports a mid-stream error event and does not invent a finish chunk', () => {
    const { chunks, stream } = runStream(fixture('stream-error.sse'), 11);
    expect(contentOf(chunks)).toBe('Partial');
    expect(stream.error).toEqual({
      status: 503,
      message: 'Overloaded',
      type: 'server_error',
      code: 'overloaded_error',
    });
    expect(chunks.some((chunk) => chunk.choices[0]?.finish_reason)).toBe(false);
    expect(stream.usage).toEqual({ prompt_tokens: 10, completion_tokens: 1, total_tokens: 11 });
  });

  it('finishes a stream that ended early without an error, and only once', () => {
    const stream = anthropicTranslator.createStream({ ...RESPONSE_CTX, includeUsage: false });
    expect(stream.usage).toBeNull();
    const chunks = stream.finish();
    expect(chunks.map((chunk) => chunk.choices[0].delta)).toEqual([{ role: 'assistant', content: '' }, {}]);
    expect(chunks[1].choices[0].finish_reason).toBe('stop');
    expect(stream.finish()).toEqual([]);
  });

  it('finishes with tool_calls a stream cut after a tool call started', () => {
    const cut = fixture('stream-tool-use.sse').split('event: message_delta')[0];
    const { chunks } = runStream(cut, 2, false);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('tool_calls');
  });

  it('ignores pings, unknown events and data that is not JSON', () => {
    const stream = anthropicTranslator.createStream({ ...RESPONSE_CTX, includeUsage: false });
    expect(stream.push({ event: 'ping', data: '{"type":"ping"}' })).toEqual([]);
    expect(stream.push({ event: 'future_event', data: '{"type":"future_event"}' })).toEqual([]);
    expect(stream.push({ data: 'not json' })).toEqual([]);
  });
});

describe('anthropicTranslator.parseError', () => {
  it('maps an error body to an OpenAI error type', () => {
    expect(anthropicTranslator.parseError(400, fixture('error-invalid-request.json'))).toEqual({
      status: 400,
      message: 'max_tokens: Field required',
      type: 'invalid_request_error',
      code: 'invalid_request_error',
    });
    expect(anthropicTranslator.parseError(529, fixture('error-overloaded.json'))).toEqual({
      status: 503,
      message: 'Overloaded',
      type: 'server_error',
      code: 'overloaded_error',
    });
  });

  it.each([
    [401, 'authentication_error', 'authentication_error'],
    [403, 'permission_error', 'permission_error'],
    [404, 'not_found_error', 'not_found_error'],
    [413, 'request_too_large', 'invalid_request_error'],
    [429, 'rate_limit_error', 'rate_limit_error'],
    [500, 'api_error', 'server_error'],
  ])('HTTP %i %s → %s', (status, anthropicType, openAiType) => {
    const info = anthropicTranslator.parseError(
      status,
      JSON.stringify({ type: 'error', error: { type: anthropicType, message: 'x' } }),
    );
    expect(info).toEqual({ status, message: 'x', type: openAiType, code: anthropicType });
  });

  it('copes with a body that is not JSON and never repeats URLs', () => {
    expect(anthropicTranslator.parseError(502, '<html>Bad gateway</html>')).toEqual({
      status: 502,
      message: 'The upstream provider answered with HTTP 502.',
      type: 'server_error',
      code: null,
    });
    const info = anthropicTranslator.parseError(
      404,
      JSON.stringify({
        type: 'error',
        error: { type: 'not_found_error', message: 'Not found: https://api.anthropic.com/v1/messages?key=secret' },
      }),
    );
    expect(info.message).toBe('Not found: [url]');
  });
});
