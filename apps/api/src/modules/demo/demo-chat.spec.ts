import { DemoProvider } from './demo-provider';
import { countTokens } from './tokenizer';

const NOW = Date.UTC(2025, 0, 1);
const provider = new DemoProvider({ chunkDelayMs: 0, now: () => NOW });
const chat = (json: any, p = provider) => p.handle({ method: 'chat_completions', publicModel: 'demo-chat', json });
const user = (content: string) => [{ role: 'user', content }];

/** Every read of the body, with the time it arrived. */
async function reads(response: Response): Promise<Array<{ text: string; at: number }>> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  const out: Array<{ text: string; at: number }> = [];
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return out;
    out.push({ text: decoder.decode(value), at: Date.now() });
  }
}

/** The `data:` payloads of an SSE body ([DONE] kept as a string). */
async function sseData(response: Response): Promise<any[]> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((event) =>
      event
        .split('\n')
        .find((line) => line.startsWith('data: '))!
        .slice(6),
    )
    .map((data) => (data === '[DONE]' ? data : JSON.parse(data)));
}

describe('demo chat completions', () => {
  it('answers a chat.completion object with real usage', async () => {
    const response = await chat({
      model: 'x',
      messages: [{ role: 'system', content: 'Be brief.' }, ...user('Hi there')],
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json');
    const body = (await response.json()) as any;
    expect(body).toMatchObject({
      object: 'chat.completion',
      created: NOW / 1000,
      model: 'demo-chat',
      system_fingerprint: 'switchyard-demo',
      choices: [
        {
          index: 0,
          finish_reason: 'stop',
          logprobs: null,
          message: { role: 'assistant', refusal: null, annotations: [] },
        },
      ],
    });
    expect(body.id).toMatch(/^chatcmpl-demo-[0-9a-f]{24}$/);
    const text: string = body.choices[0].message.content;
    expect(text).toContain(`You said: "Hi there".`);
    expect(body.usage.prompt_tokens).toBe(countTokens('Be brief.') + countTokens('Hi there'));
    expect(body.usage.completion_tokens).toBe(countTokens(text));
    expect(body.usage.total_tokens).toBe(body.usage.prompt_tokens + body.usage.completion_tokens);
    expect(body.usage.completion_tokens_details).toEqual({
      reasoning_tokens: 0,
      audio_tokens: 0,
      accepted_prediction_tokens: 0,
      rejected_prediction_tokens: 0,
    });
  });

  it('is deterministic: same request, same id and text', async () => {
    const a = (await (await chat({ messages: user('same') })).json()) as any;
    const b = (await (await chat({ messages: user('same') })).json()) as any;
    expect(a).toEqual(b);
  });

  it('counts image parts at a fixed 85 tokens and mentions them', async () => {
    const body = (await (
      await chat({
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } },
            ],
          },
        ],
      })
    ).json()) as any;
    expect(body.usage.prompt_tokens).toBe(countTokens('What is this?') + 85);
    expect(body.choices[0].message.content).toContain('I also received 1 attachment.');
  });

  it('truncates the quote of a long message to 200 characters', async () => {
    const long = 'x'.repeat(500);
    const body = (await (await chat({ messages: user(long) })).json()) as any;
    expect(body.choices[0].message.content).toContain(`"${'x'.repeat(200)}…"`);
  });

  it('honours max_tokens and max_completion_tokens with finish_reason length', async () => {
    for (const limit of [{ max_tokens: 5 }, { max_completion_tokens: 5 }]) {
      const body = (await (await chat({ messages: user('Hello'), ...limit })).json()) as any;
      expect(body.choices[0].finish_reason).toBe('length');
      expect(body.usage.completion_tokens).toBe(5);
      expect(countTokens(body.choices[0].message.content)).toBe(5);
    }
  });

  it('honours stop sequences', async () => {
    const body = (await (await chat({ messages: user('Hello'), stop: ['demo'] })).json()) as any;
    expect(body.choices[0].message.content).toBe("Hello from Switchyard's ");
    expect(body.choices[0].finish_reason).toBe('stop');
  });

  it('returns n different choices', async () => {
    const body = (await (await chat({ messages: user('Hello'), n: 3 })).json()) as any;
    expect(body.choices.map((c: any) => c.index)).toEqual([0, 1, 2]);
    expect(new Set(body.choices.map((c: any) => c.message.content)).size).toBe(3);
    const single = body.choices.map((c: any) => countTokens(c.message.content)).reduce((a: number, b: number) => a + b);
    expect(body.usage.completion_tokens).toBe(single);
  });

  it('answers JSON built from the schema for response_format json_schema', async () => {
    const body = (await (
      await chat({
        messages: user('Give me a person'),
        response_format: {
          type: 'json_schema',
          json_schema: {
            name: 'person',
            schema: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                age: { type: 'integer', minimum: 18 },
                tags: { type: 'array', items: { type: 'string' } },
              },
              required: ['name', 'age', 'tags'],
            },
          },
        },
      })
    ).json()) as any;
    expect(JSON.parse(body.choices[0].message.content)).toEqual({ name: 'demo-name', age: 18, tags: ['demo-tags'] });
  });

  describe('tools', () => {
    const weatherTool = {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Current weather',
        parameters: {
          type: 'object',
          properties: {
            location: { type: 'string' },
            unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
            days: { type: 'integer' },
          },
          required: ['location', 'unit'],
        },
      },
    };

    it('calls the tool when the user asks about the weather', async () => {
      const body = (await (
        await chat({ messages: user('What is the weather in Paris?'), tools: [weatherTool] })
      ).json()) as any;
      const choice = body.choices[0];
      expect(choice.finish_reason).toBe('tool_calls');
      expect(choice.message.content).toBeNull();
      expect(choice.message.tool_calls).toHaveLength(1);
      const call = choice.message.tool_calls[0];
      expect(call.id).toMatch(/^call_demo_[0-9a-f]{24}$/);
      expect(call.type).toBe('function');
      expect(call.function.name).toBe('get_weather');
      expect(JSON.parse(call.function.arguments)).toEqual({ location: 'demo-location', unit: 'celsius' });
      expect(body.usage.completion_tokens).toBe(countTokens('get_weather') + countTokens(call.function.arguments));
    });

    it('answers in text without the keyword, and never calls with tool_choice none', async () => {
      const a = (await (await chat({ messages: user('Hello'), tools: [weatherTool] })).json()) as any;
      expect(a.choices[0].finish_reason).toBe('stop');
      const b = (await (
        await chat({ messages: user('weather?'), tools: [weatherTool], tool_choice: 'none' })
      ).json()) as any;
      expect(b.choices[0].finish_reason).toBe('stop');
    });

    it('calls a tool for tool_choice required or a named function', async () => {
      const other = {
        type: 'function',
        function: {
          name: 'lookup',
          parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] },
        },
      };
      const a = (await (
        await chat({ messages: user('Hello'), tools: [other, weatherTool], tool_choice: 'required' })
      ).json()) as any;
      expect(a.choices[0].message.tool_calls[0].function.name).toBe('get_weather');
      const b = (await (
        await chat({
          messages: user('Hello'),
          tools: [other, weatherTool],
          tool_choice: { type: 'function', function: { name: 'lookup' } },
        })
      ).json()) as any;
      expect(b.choices[0].message.tool_calls[0].function).toEqual({ name: 'lookup', arguments: '{"q":"demo-q"}' });
    });

    it('calls the tool a coding agent is told to use, past its context parts and a system message after the question', async () => {
      const read = {
        type: 'function',
        function: {
          name: 'Read',
          parameters: { type: 'object', properties: { file_path: { type: 'string' } }, required: ['file_path'] },
        },
      };
      const question = [
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>context</system-reminder>' },
            { type: 'text', text: 'Use the read tool, please' },
          ],
        },
        { role: 'system', content: 'Available agent types: …' },
      ];
      const asked = (await (await chat({ messages: question, tools: [weatherTool, read] })).json()) as any;
      expect(asked.choices[0].message.tool_calls[0].function).toEqual({
        name: 'Read',
        arguments: '{"file_path":"demo-file_path"}',
      });
      // A tool it was not offered is no call; the quoted text is the question's last part.
      const unknown = (await (
        await chat({
          messages: [
            { ...question[0], content: [question[0].content[0], { type: 'text', text: 'Use the Grep tool' }] },
          ],
          tools: [read],
        })
      ).json()) as any;
      expect(unknown.choices[0].message.content).toMatch(
        /^Hello from Switchyard's demo model\. You said: "Use the Grep tool"\./,
      );
      // The tool result, followed by the agent's own text part, gets the text answer: the loop ends.
      const answered = (await (
        await chat({
          tools: [read],
          messages: [
            ...question,
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'c1', type: 'function', function: { name: 'Read', arguments: '{}' } }],
            },
            { role: 'tool', tool_call_id: 'c1', content: 'File does not exist.' },
            { role: 'user', content: [{ type: 'text', text: '<system-reminder>more context</system-reminder>' }] },
          ],
        })
      ).json()) as any;
      expect(answered.choices[0].message.content).toMatch(/^The Read tool returned: "File does not exist\."/);
    });

    it('answers a tool result with a text that quotes it', async () => {
      const body = (await (
        await chat({
          tools: [weatherTool],
          messages: [
            ...user('What is the weather in Paris?'),
            {
              role: 'assistant',
              content: null,
              tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }],
            },
            { role: 'tool', tool_call_id: 'call_1', content: '{"temperature":21}' },
          ],
        })
      ).json()) as any;
      expect(body.choices[0].finish_reason).toBe('stop');
      expect(body.choices[0].message.content).toContain('The get_weather tool returned: "{"temperature":21}"');
    });

    it('rejects an unknown named function', async () => {
      const response = await chat({
        messages: user('x'),
        tools: [weatherTool],
        tool_choice: { type: 'function', function: { name: 'nope' } },
      });
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).error.param).toBe('tool_choice');
    });
  });

  describe('validation', () => {
    it.each([
      [{}, 'messages', 'missing_required_parameter'],
      [{ messages: [] }, 'messages', 'empty_array'],
      [{ messages: 'hi' }, 'messages', 'invalid_type'],
      [{ messages: [{ role: 'robot', content: 'x' }] }, 'messages[0].role', 'invalid_value'],
      [{ messages: [{ role: 'user' }] }, 'messages[0].content', 'missing_required_parameter'],
      [{ messages: user('x'), n: 0 }, 'n', 'integer_below_min_value'],
      [{ messages: user('x'), max_tokens: 1.5 }, 'max_tokens', 'invalid_type'],
      [{ messages: user('x'), stream_options: { include_usage: true } }, 'stream_options', 'invalid_value'],
      [{ messages: user('x'), stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop', 'array_above_max_length'],
    ])('rejects %j (param %s)', async (json, param, code) => {
      const response = await chat(json);
      expect(response.status).toBe(400);
      const body = (await response.json()) as any;
      expect(body).toEqual({ error: { message: expect.any(String), type: 'invalid_request_error', param, code } });
    });

    it('rejects a body that is not an object', async () => {
      expect((await chat('nope')).status).toBe(400);
    });
  });

  describe('streaming', () => {
    it('streams chunk by chunk with pauses between reads', async () => {
      const slow = new DemoProvider({ chunkDelayMs: 20, now: () => NOW });
      const response = await chat({ messages: user('Tell me something'), stream: true }, slow);
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
      const got = await reads(response);
      expect(got.length).toBeGreaterThanOrEqual(5);
      // One SSE event per read: the body is not one buffered string.
      for (const read of got) expect(read.text.match(/\n\n/g)).toHaveLength(1);
      const elapsed = got[got.length - 1].at - got[0].at;
      expect(elapsed).toBeGreaterThanOrEqual(20 * (got.length - 1) - 5);
      expect(got[got.length - 1].text).toBe('data: [DONE]\n\n');
    });

    it('sends role first, content pieces, then finish_reason, then [DONE]', async () => {
      const events = await sseData(await chat({ messages: user('Hello'), stream: true }));
      expect(events[events.length - 1]).toBe('[DONE]');
      const chunks = events.slice(0, -1);
      for (const chunk of chunks) {
        expect(chunk).toMatchObject({
          object: 'chat.completion.chunk',
          model: 'demo-chat',
          created: NOW / 1000,
          system_fingerprint: 'switchyard-demo',
        });
        expect(chunk).not.toHaveProperty('usage');
      }
      expect(chunks[0].choices[0].delta).toEqual({ role: 'assistant', content: '', refusal: null });
      expect(chunks[chunks.length - 1].choices[0]).toEqual({
        index: 0,
        delta: {},
        logprobs: null,
        finish_reason: 'stop',
      });
      const text = chunks
        .slice(1, -1)
        .map((c) => c.choices[0].delta.content)
        .join('');
      const whole = (await (await chat({ messages: user('Hello') })).json()) as any;
      expect(text).toBe(whole.choices[0].message.content);
      expect(chunks.length - 2).toBe(Math.ceil(countTokens(text) / 3));
    });

    it('adds usage: null to every chunk and a final usage chunk with include_usage', async () => {
      const events = await sseData(
        await chat({ messages: user('Hello'), stream: true, stream_options: { include_usage: true }, max_tokens: 7 }),
      );
      const chunks = events.slice(0, -1);
      const last = chunks[chunks.length - 1];
      expect(last.choices).toEqual([]);
      expect(last.usage).toMatchObject({ completion_tokens: 7, prompt_tokens: 1, total_tokens: 8 });
      for (const chunk of chunks.slice(0, -1)) expect(chunk.usage).toBeNull();
      expect(chunks[chunks.length - 2].choices[0].finish_reason).toBe('length');
    });

    it('streams tool calls as tool_calls deltas', async () => {
      const tools = [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
          },
        },
      ];
      const events = await sseData(await chat({ messages: user('weather please'), tools, stream: true }));
      const chunks = events.slice(0, -1);
      const first = chunks[0].choices[0].delta;
      expect(first.tool_calls[0]).toMatchObject({
        index: 0,
        type: 'function',
        function: { name: 'get_weather', arguments: '' },
      });
      expect(first.tool_calls[0].id).toMatch(/^call_demo_/);
      const args = chunks
        .slice(1, -1)
        .map((c) => c.choices[0].delta.tool_calls[0].function.arguments)
        .join('');
      expect(JSON.parse(args)).toEqual({ city: 'demo-city' });
      expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('tool_calls');
    });

    it('interleaves n choices', async () => {
      const events = await sseData(await chat({ messages: user('Hello'), stream: true, n: 2 }));
      const indexes = events.slice(0, 4).map((c) => c.choices[0].index);
      expect(indexes).toEqual([0, 1, 0, 1]);
    });

    it('stops promptly when the signal aborts', async () => {
      const slow = new DemoProvider({ chunkDelayMs: 30 });
      const controller = new AbortController();
      const response = await slow.handle(
        { method: 'chat_completions', publicModel: 'm', json: { messages: user('Hello'), stream: true } },
        controller.signal,
      );
      const reader = response.body!.getReader();
      await reader.read();
      await reader.read();
      const started = Date.now();
      const pending = reader.read();
      controller.abort();
      await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
      expect(Date.now() - started).toBeLessThan(25);
      await expect(reader.read()).rejects.toMatchObject({ name: 'AbortError' });
    });

    it('honours the consumer cancelling the stream', async () => {
      const slow = new DemoProvider({ chunkDelayMs: 30 });
      const response = await chat({ messages: user('Hello'), stream: true }, slow);
      const reader = response.body!.getReader();
      await reader.read();
      await reader.cancel();
      await expect(reader.closed).resolves.toBeUndefined();
    });

    it('rejects a call whose signal is already aborted', async () => {
      const controller = new AbortController();
      controller.abort();
      await expect(
        provider.handle(
          { method: 'chat_completions', publicModel: 'm', json: { messages: user('x') } },
          controller.signal,
        ),
      ).rejects.toMatchObject({ name: 'AbortError' });
    });
  });
});

describe('demo legacy completions', () => {
  const complete = (json: any) => provider.handle({ method: 'completions', publicModel: 'demo-instruct', json });

  it('answers a text_completion with the 16-token default limit', async () => {
    const body = (await (await complete({ prompt: 'Once upon a time' })).json()) as any;
    expect(body).toMatchObject({ object: 'text_completion', model: 'demo-instruct', created: NOW / 1000 });
    expect(body.id).toMatch(/^cmpl-demo-/);
    expect(body.choices[0]).toMatchObject({ index: 0, logprobs: null, finish_reason: 'length' });
    expect(body.usage).toEqual({ prompt_tokens: 4, completion_tokens: 16, total_tokens: 20 });
  });

  it('takes an array of prompts, n, echo and a larger max_tokens', async () => {
    const body = (await (await complete({ prompt: ['A', 'B'], n: 2, max_tokens: 200, echo: true })).json()) as any;
    expect(body.choices.map((c: any) => c.index)).toEqual([0, 1, 2, 3]);
    expect(body.choices[0].text.startsWith('A\n\n')).toBe(true);
    expect(body.choices[2].text.startsWith('B\n\n')).toBe(true);
    expect(body.choices[0].finish_reason).toBe('stop');
  });

  it('accepts token-id prompts', async () => {
    const body = (await (await complete({ prompt: [1, 2, 3] })).json()) as any;
    expect(body.usage.prompt_tokens).toBe(3);
  });

  it('streams text_completion chunks and [DONE]', async () => {
    const events = await sseData(
      await complete({ prompt: 'Hi', stream: true, stream_options: { include_usage: true } }),
    );
    expect(events[events.length - 1]).toBe('[DONE]');
    const chunks = events.slice(0, -1);
    expect(chunks.every((c) => c.object === 'text_completion')).toBe(true);
    expect(chunks[chunks.length - 1]).toMatchObject({ choices: [], usage: { completion_tokens: 16 } });
    expect(chunks[chunks.length - 2].choices[0].finish_reason).toBe('length');
    const text = chunks
      .slice(0, -2)
      .map((c) => c.choices[0].text)
      .join('');
    expect(countTokens(text)).toBe(16);
  });

  it('requires a prompt', async () => {
    const response = await complete({});
    expect(response.status).toBe(400);
    expect(((await response.json()) as any).error.param).toBe('prompt');
  });
});
