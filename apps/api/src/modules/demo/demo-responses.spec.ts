import { DemoProvider } from './demo-provider';
import { countTokens } from './tokenizer';

const NOW = Date.UTC(2025, 0, 1);
const provider = new DemoProvider({ chunkDelayMs: 0, now: () => NOW });
const respond = (json: unknown) => provider.handle({ method: 'responses', publicModel: 'demo-responses', json });

/** The typed events of a Responses stream: `event:` name and parsed `data:`. */
async function events(response: Response): Promise<Array<{ event: string; data: any }>> {
  const text = await response.text();
  return text
    .split('\n\n')
    .filter(Boolean)
    .map((block) => {
      const lines = block.split('\n');
      return {
        event: lines.find((l) => l.startsWith('event: '))!.slice(7),
        data: JSON.parse(lines.find((l) => l.startsWith('data: '))!.slice(6)),
      };
    });
}

describe('demo responses', () => {
  it('answers a completed Response object', async () => {
    const response = await respond({ model: 'x', input: 'Hi there', instructions: 'Be kind.' });
    expect(response.status).toBe(200);
    const body = (await response.json()) as any;
    expect(body).toMatchObject({
      object: 'response',
      status: 'completed',
      created_at: NOW / 1000,
      completed_at: NOW / 1000,
      error: null,
      incomplete_details: null,
      instructions: 'Be kind.',
      model: 'demo-responses',
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
      metadata: {},
    });
    expect(body.id).toMatch(/^resp_demo_[0-9a-f]{32}$/);
    expect(body.output).toHaveLength(1);
    const item = body.output[0];
    expect(item).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' });
    expect(item.id).toMatch(/^msg_demo_/);
    expect(item.content).toEqual([
      { type: 'output_text', text: expect.stringContaining('You said: "Hi there"'), annotations: [], logprobs: [] },
    ]);
    expect(body.usage).toEqual({
      input_tokens: countTokens('Be kind.') + countTokens('Hi there'),
      input_tokens_details: { cached_tokens: 0, cache_write_tokens: 0 },
      output_tokens: countTokens(item.content[0].text),
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: countTokens('Be kind.') + countTokens('Hi there') + countTokens(item.content[0].text),
    });
  });

  it('reads an input item list with image parts', async () => {
    const body = (await (
      await respond({
        input: [
          { role: 'user', content: 'first' },
          { role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] },
          {
            type: 'message',
            role: 'user',
            content: [
              { type: 'input_text', text: 'second' },
              { type: 'input_image', image_url: 'data:,' },
            ],
          },
        ],
      })
    ).json()) as any;
    expect(body.output[0].content[0].text).toContain('You said: "second"');
    expect(body.usage.input_tokens).toBe(3 + 85);
  });

  it('is incomplete when max_output_tokens cuts the text', async () => {
    const body = (await (await respond({ input: 'Hello', max_output_tokens: 16 })).json()) as any;
    expect(body.status).toBe('incomplete');
    expect(body.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(body.completed_at).toBeNull();
    expect(body.output[0].status).toBe('incomplete');
    expect(body.usage.output_tokens).toBe(16);
  });

  it('calls a function tool and answers its output', async () => {
    const tools = [
      {
        type: 'function',
        name: 'get_weather',
        parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
      },
    ];
    const first = (await (await respond({ input: 'What is the weather?', tools })).json()) as any;
    const call = first.output[0];
    expect(call).toMatchObject({
      type: 'function_call',
      status: 'completed',
      name: 'get_weather',
      arguments: '{"city":"demo-city"}',
    });
    expect(call.call_id).toMatch(/^call_demo_/);
    const second = (await (
      await respond({
        tools,
        input: [
          { role: 'user', content: 'What is the weather?' },
          { type: 'function_call', call_id: call.call_id, name: 'get_weather', arguments: call.arguments },
          { type: 'function_call_output', call_id: call.call_id, output: 'sunny' },
        ],
      })
    ).json()) as any;
    expect(second.output[0].content[0].text).toContain('The get_weather tool returned: "sunny"');
  });

  it('validates input and max_output_tokens', async () => {
    for (const [json, param] of [
      [{}, 'input'],
      [{ input: 5 }, 'input'],
      [{ input: 'x', max_output_tokens: 3 }, 'max_output_tokens'],
      [{ input: [{ role: 'robot', content: 'x' }] }, 'input[0].role'],
    ] as const) {
      const response = await respond(json);
      expect(response.status).toBe(400);
      expect(((await response.json()) as any).error).toMatchObject({ type: 'invalid_request_error', param });
    }
  });

  it('streams the typed event sequence with sequence numbers and no [DONE]', async () => {
    const response = await respond({ input: 'Hello', stream: true });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const list = await events(response);
    const types = list.map((e) => e.event);
    expect(types.slice(0, 4)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
    ]);
    expect(types.slice(-4)).toEqual([
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ]);
    const deltas = list.filter((e) => e.event === 'response.output_text.delta');
    expect(deltas.length).toBeGreaterThan(3);
    list.forEach((e, i) => {
      expect(e.data.type).toBe(e.event);
      expect(e.data.sequence_number).toBe(i);
    });
    expect(list[0].data.response).toMatchObject({ status: 'in_progress', output: [], usage: null });
    const text = deltas.map((e) => e.data.delta).join('');
    const done = list.find((e) => e.event === 'response.output_text.done')!.data;
    expect(done.text).toBe(text);
    const completed = list[list.length - 1].data.response;
    expect(completed.status).toBe('completed');
    expect(completed.output[0].content[0].text).toBe(text);
    const whole = (await (await respond({ input: 'Hello' })).json()) as any;
    expect(completed).toEqual(whole);
  });

  it('streams function calls and ends with response.incomplete when cut', async () => {
    const tools = [
      { type: 'function', name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } },
    ];
    const calls = (await events(await respond({ input: 'x', tools, tool_choice: 'required', stream: true }))).map(
      (e) => e.event,
    );
    expect(calls).toContain('response.function_call_arguments.delta');
    expect(calls).toContain('response.function_call_arguments.done');
    const cut = await events(await respond({ input: 'Hello', max_output_tokens: 16, stream: true }));
    expect(cut[cut.length - 1].event).toBe('response.incomplete');
  });
});
