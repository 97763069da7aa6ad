import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CatalogModel } from '../../catalog/catalog.types';
import { messagesPolicy } from './messages-policy';
import { GatewayException } from '../../errors/gateway.exception';
import { MessagesStreamTranslator, stopReason, toAnthropicMessage } from './messages-answer';
import { checkMessagesRequest, fitThinking, toChatRequest } from './messages-request';

/** The Messages face's request policy: native for a model on an Anthropic provider, translated for the others. */
const requestPolicy = (_route: 'messages', model: CatalogModel, json: Record<string, unknown>, _form: null) =>
  messagesPolicy(model, json, model.provider.type === 'anthropic');

const model = { maxTokensParam: 'max_completion_tokens' } as CatalogModel;
const events = (text: string) =>
  text
    .trim()
    .split('\n\n')
    .map((frame) => {
      const [name, data] = frame.split('\n');
      return { name: name.slice('event: '.length), data: JSON.parse(data.slice('data: '.length)) };
    });

describe('Messages requests', () => {
  const base = { model: 'm', messages: [{ role: 'user', content: 'x' }] };

  it.each([undefined, null, 0, -1, 1.5, '10', Infinity])('refuses max_tokens %p', (max) => {
    expect(() => checkMessagesRequest({ ...base, max_tokens: max })).toThrow(GatewayException);
  });

  it('refuses no messages, and thinking budgets below 1,024 or at max_tokens', () => {
    expect(() => checkMessagesRequest({ ...base, messages: [], max_tokens: 10 })).toThrow(/messages/);
    for (const budget_tokens of [1023, 2000, 2001, '1500'])
      expect(() =>
        checkMessagesRequest({ ...base, max_tokens: 2000, thinking: { type: 'enabled', budget_tokens } }),
      ).toThrow(/budget_tokens/);
    expect(() =>
      checkMessagesRequest({ ...base, max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 1999 } }),
    ).not.toThrow();
    expect(() => checkMessagesRequest({ ...base, max_tokens: 10, thinking: { type: 'disabled' } })).not.toThrow();
  });

  it('keeps a thinking budget below a lowered max_tokens, or says it cannot', () => {
    const json: Record<string, unknown> = { thinking: { type: 'enabled', budget_tokens: 5000 } };
    expect(fitThinking(json, 3000)).toBe(true);
    expect(json.thinking).toEqual({ type: 'enabled', budget_tokens: 2999 });
    expect(fitThinking(json, 1024)).toBe(false);
    expect(fitThinking({}, 5)).toBe(true);
  });

  it('writes max_tokens into the model’s own field, keeps tool order, and refuses what a chat model cannot take', () => {
    const chat = toChatRequest(
      {
        ...base,
        max_tokens: 50,
        messages: [
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 't1', is_error: true, content: 'boom' },
              {
                type: 'tool_result',
                tool_use_id: 't2',
                content: [{ type: 'image', source: { type: 'url', url: 'https://x.test/i.png' } }],
              },
            ],
          },
        ],
      },
      model,
    );
    expect(chat.max_completion_tokens).toBe(50);
    expect(chat.messages).toEqual([
      { role: 'tool', tool_call_id: 't1', content: 'Error: boom' },
      { role: 'tool', tool_call_id: 't2', content: '' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/i.png' } }] },
    ]);
    const refuse = (json: Record<string, unknown>) => () => toChatRequest({ ...base, max_tokens: 5, ...json }, model);
    expect(refuse({ messages: [{ role: 'user', content: [{ type: 'document', source: {} }] }] })).toThrow(/document/);
    expect(refuse({ tools: [{ type: 'web_search_20250305', name: 'web_search' }] })).toThrow(/custom tools/);
    expect(refuse({ messages: [{ role: 'tool', content: 'x' }] })).toThrow(/role/);
    expect(refuse({ tool_choice: { type: 'weird' }, tools: [{ name: 'a', input_schema: {} }] })).toThrow(/tool_choice/);
    expect(refuse({ messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file' } }] }] })).toThrow(
      /image source/,
    );
  });
});

describe('Claude Code’s request (fixtures/claude-code-request.json, captured from Claude Code 2.1.197)', () => {
  const captured = JSON.parse(readFileSync(join(__dirname, 'fixtures', 'claude-code-request.json'), 'utf8'));
  const body = () => structuredClone(captured.body) as Record<string, unknown>;
  const chatModel = { maxTokensParam: 'max_tokens', capabilities: ['tools'] } as unknown as CatalogModel;

  it('is a request the checks accept: adaptive thinking, a system message among the messages, 32,000 max_tokens', () => {
    const json = body();
    expect(json.thinking).toEqual({ type: 'adaptive' });
    expect((json.messages as { role: string }[]).map((message) => message.role)).toEqual(['user', 'system']);
    expect(() => checkMessagesRequest(json)).not.toThrow();
  });

  it('translates for a chat model: system prompt first, the system message where it was, every field it cannot carry dropped by name', () => {
    const dropped: string[][] = [];
    const chat = toChatRequest(body(), chatModel, (fields) => dropped.push(fields));
    const messages = chat.messages as { role: string; content: unknown }[];
    expect(messages.map((message) => message.role)).toEqual(['system', 'user', 'system']);
    expect(messages[0].content).toMatch(/^x-anthropic-billing-header[^]*Claude Agent SDK/);
    expect(messages[2].content).toMatch(/^Available agent types/);
    expect(chat).toMatchObject({ max_tokens: 32000, stream: true, stream_options: { include_usage: true } });
    expect(chat.user).toMatch(/device_id/);
    expect((chat.tools as { function: { name: string } }[]).map((tool) => tool.function.name)).toEqual([
      'Bash',
      'Read',
      'WebSearch',
    ]);
    expect(dropped).toEqual([['thinking', 'context_management', 'output_config']]);
    expect(chat).not.toHaveProperty('reasoning_effort');
  });

  it('gives a reasoning model the effort as reasoning_effort (max becomes high)', () => {
    const reasoning = { ...chatModel, capabilities: ['reasoning'] };
    const dropped: string[][] = [];
    expect(toChatRequest(body(), reasoning, (fields) => dropped.push(fields)).reasoning_effort).toBe('high');
    expect(dropped).toEqual([['thinking', 'context_management']]);
    const max = { ...body(), output_config: { effort: 'max' } };
    expect(toChatRequest(max, reasoning).reasoning_effort).toBe('high');
  });

  it('passes the request policy as it is, natively and translated', () => {
    const anthropic = {
      id: 'claude',
      provider: { type: 'anthropic' },
      features: { webSearch: null, documentUrls: false },
      imagePrices: null,
      contextLength: 200000,
    } as unknown as CatalogModel;
    expect(requestPolicy('messages', anthropic, body(), null)).toMatchObject({
      inputAtContextLength: null,
      webSearch: null,
    });
    expect(() =>
      requestPolicy('messages', { ...chatModel, provider: { type: 'openai' } } as CatalogModel, body(), null),
    ).not.toThrow();
  });
});

describe('Messages answers', () => {
  it('maps finish reasons to stop reasons', () => {
    expect(['stop', 'length', 'tool_calls', 'content_filter', null].map(stopReason)).toEqual([
      'end_turn',
      'max_tokens',
      'tool_use',
      'refusal',
      'end_turn',
    ]);
  });

  it('keeps tool arguments that are no JSON object, and counts cache reads apart from input', () => {
    const message = toAnthropicMessage(
      {
        choices: [
          {
            finish_reason: 'tool_calls',
            message: { tool_calls: [{ id: 'c', function: { name: 'f', arguments: 'not json' } }] },
          },
        ],
        usage: { prompt_tokens: 100, completion_tokens: 5, prompt_tokens_details: { cached_tokens: 30 } },
      },
      'pub',
    );
    expect(message).toMatchObject({
      model: 'pub',
      stop_reason: 'tool_use',
      content: [{ type: 'tool_use', id: 'c', name: 'f', input: { arguments: 'not json' } }],
      usage: { input_tokens: 70, cache_read_input_tokens: 30, output_tokens: 5 },
    });
  });

  it('streams two tool calls as two blocks, and ends once even without [DONE]', () => {
    const stream = new MessagesStreamTranslator('pub');
    const chunk = (delta: object, finish: string | null = null) =>
      JSON.stringify({ choices: [{ index: 0, delta, finish_reason: finish }] });
    let out = stream.push(chunk({ tool_calls: [{ index: 0, id: 'a', function: { name: 'f', arguments: '{}' } }] }));
    out += stream.push(chunk({ tool_calls: [{ index: 1, id: 'b', function: { name: 'g', arguments: '{"x"' } }] }));
    out += stream.push(chunk({ tool_calls: [{ index: 1, function: { arguments: ':1}' } }] }, 'tool_calls'));
    out += stream.push('not json');
    out += stream.end() + stream.end();
    const seen = events(out);
    expect(seen.map((event) => event.name)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      'content_block_delta',
      'content_block_stop',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    expect(seen[5].data).toMatchObject({ index: 1, content_block: { type: 'tool_use', id: 'b', name: 'g' } });
    expect(seen[9].data.delta).toEqual({ stop_reason: 'tool_use', stop_sequence: null });
  });
});
