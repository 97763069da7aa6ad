import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import { freePort, OAuthTestKit } from '../../../../../test/support/oauth-flow';
import { fakeProviders } from '../../../../../test/support/local-server';
import { startTestApp, TestApp, uniqueEmail } from '../../../../../test/support/test-app';
import { ReservationService, UsageRecorder } from '../../../usage';

/**
 * Anthropic's Messages API on the gateway (docs/anthropic.md), through the official @anthropic-ai/sdk against the
 * booted app: a model on an Anthropic provider served natively, models on an OpenAI-compatible provider (and the
 * demo provider) translated both ways; each call charged exactly price × usage on the same money path as every
 * other call; every error in Anthropic's shape. The fake upstreams speak the providers' wire formats.
 */
const fixture = (name: string, provider = 'anthropic') =>
  readFileSync(join(__dirname, '..', '..', 'providers', provider, 'fixtures', name), 'utf8');
const sse = (events: [string, unknown][]) =>
  events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');

/** A Claude-Code-style turn streamed by Anthropic: thinking with its signature, text, a tool call, cache usage. */
const CLAUDE_CODE_STREAM = sse([
  [
    'message_start',
    {
      type: 'message_start',
      message: {
        id: 'msg_cc',
        type: 'message',
        role: 'assistant',
        model: 'claude-upstream',
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: 50, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300, output_tokens: 1 },
      },
    },
  ],
  ['ping', { type: 'ping' }],
  [
    'content_block_start',
    { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'List the files.' } },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig-abc' } },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  ['content_block_start', { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }],
  ['content_block_delta', { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Listing.' } }],
  ['content_block_stop', { type: 'content_block_stop', index: 1 }],
  [
    'content_block_start',
    {
      type: 'content_block_start',
      index: 2,
      content_block: { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: {} },
    },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"command":' } },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: ' "ls"}' } },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 2 }],
  [
    'message_delta',
    {
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { input_tokens: 50, cache_read_input_tokens: 2000, cache_creation_input_tokens: 300, output_tokens: 80 },
    },
  ],
  ['message_stop', { type: 'message_stop' }],
]);

/** An OpenAI-compatible stream: reasoning, text, a tool call whose arguments come in pieces, then usage. */
function openAiToolStream(): string {
  const chunk = (delta: object, finish: string | null = null) => ({
    id: 'chatcmpl-x',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'up',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const chunks = [
    chunk({ role: 'assistant', content: '' }),
    chunk({ reasoning_content: 'Think first.' }),
    chunk({ content: 'Let me look.' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'Bash', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"command"' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: ':"ls"}' } }] }),
    chunk({}, 'tool_calls'),
    {
      id: 'chatcmpl-x',
      object: 'chat.completion.chunk',
      created: 1,
      model: 'up',
      choices: [],
      usage: {
        prompt_tokens: 1000,
        completion_tokens: 60,
        total_tokens: 1060,
        prompt_tokens_details: { cached_tokens: 400 },
      },
    },
  ];
  return chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';
}

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  closedEarly: boolean;
}

function fakeUpstreams() {
  const seen: Seen[] = [];
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw || '{}');
    const entry: Seen = { path: req.url!, headers: req.headers, body, closedEarly: false };
    seen.push(entry);
    res.on('close', () => {
      if (!res.writableFinished) entry.closedEarly = true;
    });
    const send = (status: number, type: string, text: string) => {
      res.writeHead(status, { 'content-type': type });
      res.end(text);
    };
    const json = 'application/json';
    const stream = 'text/event-stream';
    const tools = Array.isArray(body.tools) && body.tools.length > 0;
    if (req.url!.startsWith('/ge/v1beta/models/gemini-test:streamGenerateContent'))
      return send(200, stream, fixture('stream-text.sse', 'gemini'));
    if (req.url!.startsWith('/ge/v1beta/models/gemini-test:generateContent'))
      return send(200, json, fixture('text-response.json', 'gemini'));
    switch (req.url) {
      case '/an/v1/messages':
        if (body.model === 'claude-overloaded') return send(529, json, fixture('error-overloaded.json'));
        if (body.model === 'claude-stream-error') return send(200, stream, fixture('stream-error.sse'));
        if (body.stream) return send(200, stream, tools ? CLAUDE_CODE_STREAM : fixture('stream-cache.sse'));
        return send(200, json, fixture(tools ? 'tool-use-response.json' : 'cache-response.json'));
      case '/an/v1/messages/count_tokens':
        return send(200, json, JSON.stringify({ input_tokens: 1234 }));
      case '/oa/v1/chat/completions':
        if (body.model === 'slow') {
          res.writeHead(200, { 'content-type': stream });
          let n = 0;
          const timer = setInterval(() => {
            if (res.destroyed || n++ > 100) return clearInterval(timer);
            res.write(
              `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 1, model: 'slow', choices: [{ index: 0, delta: { content: 'word ' }, finish_reason: null }] })}\n\n`,
            );
          }, 50);
          return;
        }
        if (body.stream) return send(200, stream, openAiToolStream());
        return send(
          200,
          json,
          JSON.stringify({
            id: 'chatcmpl-1',
            object: 'chat.completion',
            created: 1,
            model: 'up',
            choices: [
              {
                index: 0,
                finish_reason: tools ? 'tool_calls' : 'stop',
                message: {
                  role: 'assistant',
                  content: tools ? null : 'Hello from OpenAI.',
                  ...(tools
                    ? {
                        tool_calls: [
                          {
                            id: 'call_9',
                            type: 'function',
                            function: { name: 'Bash', arguments: '{"command":"pwd"}' },
                          },
                        ],
                      }
                    : {}),
                },
              },
            ],
            usage: { prompt_tokens: 500, completion_tokens: 20, total_tokens: 520 },
          }),
        );
      default:
        send(404, json, '{"error":{"message":"not found"}}');
    }
  };
  return { answer, seen };
}

/** Claude's prices (docs/pricing.md): input 3, output 15, cache read 0.3, 5-minute write 3.75, 1-hour write 6, per MTok. */
const CLAUDE = {
  inputPerMTok: 3,
  outputPerMTok: 15,
  cacheReadPerMTok: 0.3,
  cacheWritePerMTok: 3.75,
  cacheWrite1hPerMTok: 6,
};
const OPENAI = { inputPerMTok: 2, outputPerMTok: 8, cacheReadPerMTok: 0.5 };

const CLAUDE_CODE_REQUEST = {
  system: [
    { type: 'text' as const, text: 'You are Claude Code.', cache_control: { type: 'ephemeral' as const } },
    { type: 'text' as const, text: 'Work in /repo.' },
  ],
  tools: [
    {
      name: 'Bash',
      description: 'Run a command',
      input_schema: { type: 'object' as const, properties: { command: { type: 'string' } }, required: ['command'] },
    },
  ],
  messages: [
    { role: 'user' as const, content: 'What is in the repo?' },
    {
      role: 'assistant' as const,
      content: [
        { type: 'thinking' as const, thinking: 'Earlier thought.', signature: 'sig-earlier' },
        { type: 'tool_use' as const, id: 'toolu_1', name: 'Bash', input: { command: 'pwd' } },
      ],
    },
    {
      role: 'user' as const,
      content: [
        { type: 'tool_result' as const, tool_use_id: 'toolu_1', content: '/repo' },
        { type: 'text' as const, text: 'Now list it.' },
      ],
    },
  ],
  thinking: { type: 'enabled' as const, budget_tokens: 2000 },
};

describe('the Anthropic Messages API, through the official @anthropic-ai/sdk', () => {
  const fake = fakeUpstreams();
  let app: TestApp;
  let providers: Awaited<ReturnType<typeof fakeProviders>> | undefined;
  let key: string;
  let session: string;
  let client: Anthropic;

  beforeAll(async () => {
    providers = await fakeProviders(fake.answer, (base) => {
      const chat = (id: string, provider: string, upstreamModel: string, pricing: object) => ({
        id,
        provider,
        upstreamModel,
        type: 'text',
        methods: ['chat_completions'],
        maxOutputTokens: 8192,
        pricing,
      });
      return {
        providers: [
          { id: 'an', type: 'anthropic', baseUrl: `${base}/an/v1`, apiKey: 'anthropic-upstream-key' },
          { id: 'oa', type: 'openai', baseUrl: `${base}/oa/v1`, apiKey: 'openai-upstream-key' },
          { id: 'ge', type: 'gemini', baseUrl: `${base}/ge/v1beta`, apiKey: 'gemini-upstream-key' },
          { id: 'demo', type: 'demo' },
        ],
        models: [
          chat('claude', 'an', 'claude-upstream', CLAUDE),
          chat('claude-overloaded', 'an', 'claude-overloaded', CLAUDE),
          chat('claude-stream-error', 'an', 'claude-stream-error', CLAUDE),
          chat('gpt', 'oa', 'up', OPENAI),
          chat('gemini', 'ge', 'gemini-test', OPENAI),
          chat('slow', 'oa', 'slow', OPENAI),
          chat('demo-chat', 'demo', 'demo-chat', { inputPerMTok: 0.5, outputPerMTok: 1.5 }),
        ],
      };
    });
    // PUBLIC_URL matches the port: it is the OAuth issuer the OAuth test's client discovers.
    const port = await freePort();
    app = await startTestApp({
      port,
      publicUrl: `http://127.0.0.1:${port}`,
      modelsConfig: providers.catalogPath,
      signupCredit: 5,
    });
    session = (
      await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('msg'), password: 'messages for all' } })
    ).body.data.token;
    key = (await app.http('/api/v1/keys', { token: session, body: { name: 'k' } })).body.data.key;
    client = new Anthropic({ baseURL: app.url, apiKey: key, maxRetries: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await providers?.close();
  });

  /** A call's ledger debit and usage record, once settled and written. */
  async function books(where: { callId?: string; requestId?: string }) {
    const db = app.database.dataSource;
    // A stream's call ends just after its last event reached the client: wait for its record.
    let record: any;
    for (let tries = 0; !record && tries < 40; tries += 1) {
      if (tries) await new Promise((resolve) => setTimeout(resolve, 50));
      await app.app.get(ReservationService).flushSettlements();
      await app.app.get(UsageRecorder).flush();
      [record] = await db.query(
        `SELECT call_id, method, status, prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens,
              cache_write_1h_tokens, cost_micros::bigint AS cost
         FROM usage_records WHERE ${where.callId ? 'call_id' : 'request_id'} = $1`,
        [where.callId ?? where.requestId],
      );
    }
    await app.app.get(ReservationService).flushSettlements();
    const [debit] = await db.query(
      `SELECT -amount_micros::bigint AS micros FROM ledger_entries WHERE idempotency_key = $1`,
      [`usage:${record.call_id}`],
    );
    return { debit: Number(debit?.micros ?? 0), record: { ...record, cost: Number(record.cost) } };
  }

  const lastSeen = (path: string) => [...fake.seen].reverse().find((entry) => entry.path === path)!;

  describe('an Anthropic model, natively', () => {
    it('messages.create: the body passes through but for the model and the bound; thinking and its signature come back; billed exactly with cache fields', async () => {
      const { data: message, response } = await client.messages
        .create({
          model: 'claude',
          max_tokens: 1000,
          messages: [{ role: 'user', content: 'Summarise' }],
          ...({ top_k: 5 } as object),
        })
        .withResponse();
      expect(message.model).toBe('claude');
      expect(message.content[0]).toEqual({
        type: 'thinking',
        thinking: 'The user wants a summary of the cached document.',
        signature: 'EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds',
      });
      expect(message.usage).toMatchObject({ input_tokens: 21, cache_read_input_tokens: 12000, output_tokens: 393 });
      const sent = lastSeen('/an/v1/messages');
      expect(sent.body).toEqual({
        model: 'claude-upstream',
        max_tokens: 1000,
        messages: [{ role: 'user', content: 'Summarise' }],
        top_k: 5,
      });
      expect(sent.headers['x-api-key']).toBe('anthropic-upstream-key');
      // The caller's anthropic-version (the SDK's) is passed on.
      expect(sent.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      expect(sent.headers.authorization).toBeUndefined();
      // 21 × 3 + 12,000 × 0.3 + 1,000 × 3.75 + 2,000 × 6 + 393 × 15
      const books_ = await books({ callId: response.headers.get('x-switchyard-call-id')! });
      expect(books_.debit).toBe(25_308);
      expect(books_.record).toMatchObject({
        method: 'messages',
        status: 'success',
        cost: 25_308,
        prompt_tokens: 15021,
        cache_read_tokens: 12000,
        cache_write_tokens: 1000,
        cache_write_1h_tokens: 2000,
        completion_tokens: 393,
      });
      expect(response.headers.get('x-switchyard-cost')).toBe('0.025308');
    });

    it('messages.stream with text: events relayed as the provider sent them, the model renamed, billed exactly', async () => {
      const stream = client.messages.stream({
        model: 'claude',
        max_tokens: 1000,
        messages: [{ role: 'user', content: 'Summarise' }],
      });
      const events: string[] = [];
      stream.on('streamEvent', (event) => events.push(event.type));
      const message = await stream.finalMessage();
      expect(message.model).toBe('claude');
      expect(message.content.map((block) => block.type)).toEqual(['thinking', 'text']);
      expect(events[0]).toBe('message_start');
      expect(events.slice(-2)).toEqual(['message_delta', 'message_stop']);
      const { response } = await stream.withResponse();
      const books_ = await books({ callId: response.headers.get('x-switchyard-call-id')! });
      expect(books_.debit).toBe(25_308);
      expect(books_.record).toMatchObject({ method: 'messages', cost: 25_308, cache_write_1h_tokens: 2000 });
    });

    it('a Claude-Code-style session (system blocks, tools, a tool result, thinking, streaming): signatures untouched both ways, billed exactly', async () => {
      const stream = client.messages.stream({ model: 'claude', max_tokens: 4000, ...CLAUDE_CODE_REQUEST });
      const message = await stream.finalMessage();
      expect(message.content).toEqual([
        { type: 'thinking', thinking: 'List the files.', signature: 'sig-abc' },
        { type: 'text', text: 'Listing.' },
        { type: 'tool_use', id: 'toolu_2', name: 'Bash', input: { command: 'ls' } },
      ]);
      expect(message.stop_reason).toBe('tool_use');
      const sent = lastSeen('/an/v1/messages').body;
      expect(sent.messages[1].content[0]).toEqual({
        type: 'thinking',
        thinking: 'Earlier thought.',
        signature: 'sig-earlier',
      });
      expect(sent.system[0].cache_control).toEqual({ type: 'ephemeral' });
      expect(sent.thinking).toEqual({ type: 'enabled', budget_tokens: 2000 });
      expect(sent.max_tokens).toBe(4000);
      const { response } = await stream.withResponse();
      // 50 × 3 + 2,000 × 0.3 + 300 × 3.75 + 80 × 15
      const books_ = await books({ callId: response.headers.get('x-switchyard-call-id')! });
      expect(books_.debit).toBe(3_075);
      expect(books_.record).toMatchObject({ cost: 3_075, cache_read_tokens: 2000, cache_write_tokens: 300 });
    });

    it('countTokens: the provider’s own count, free of charge', async () => {
      const before = await balance();
      const counted = await client.messages.countTokens({
        model: 'claude',
        messages: [{ role: 'user', content: 'How many?' }],
      });
      expect(counted).toEqual({ input_tokens: 1234 });
      expect(lastSeen('/an/v1/messages/count_tokens').body.model).toBe('claude-upstream');
      expect(await balance()).toBe(before);
    });

    it('a provider’s failure (here overloaded, 529) is the gateway’s 502 api_error', async () => {
      const failure = await client.messages
        .create({ model: 'claude-overloaded', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] })
        .catch((error: unknown) => error);
      expect(failure).toBeInstanceOf(Anthropic.InternalServerError);
      expect((failure as InstanceType<typeof Anthropic.APIError>).status).toBe(502);
      expect((failure as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
        type: 'error',
        error: { type: 'api_error' },
      });
    });
  });

  describe('an OpenAI-compatible model, translated', () => {
    it('messages.create: system blocks, an image, tools and a tool result become a chat request; the tool call comes back as tool_use', async () => {
      const { data: message, response } = await client.messages
        .create({
          model: 'gpt',
          max_tokens: 300,
          system: [{ type: 'text', text: 'Be brief.' }],
          tools: CLAUDE_CODE_REQUEST.tools,
          tool_choice: { type: 'any' },
          stop_sequences: ['END'],
          // Typed out of the SDK's newest parameters, still on the wire: passed as sent.
          ...({ temperature: 0.5 } as object),
          metadata: { user_id: 'end-user-1' },
          messages: [
            {
              role: 'user',
              content: [
                { type: 'text', text: 'What is this?' },
                { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } },
                { type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } },
              ],
            },
            {
              role: 'assistant',
              content: [{ type: 'tool_use', id: 'call_1', name: 'Bash', input: { command: 'pwd' } }],
            },
            {
              role: 'user',
              content: [{ type: 'tool_result', tool_use_id: 'call_1', content: [{ type: 'text', text: '/repo' }] }],
            },
          ],
        })
        .withResponse();
      expect(message).toMatchObject({
        type: 'message',
        role: 'assistant',
        model: 'gpt',
        stop_reason: 'tool_use',
        content: [{ type: 'tool_use', id: 'call_9', name: 'Bash', input: { command: 'pwd' } }],
        usage: { input_tokens: 500, output_tokens: 20 },
      });
      const sent = lastSeen('/oa/v1/chat/completions');
      expect(sent.headers.authorization).toBe('Bearer openai-upstream-key');
      expect(sent.body).toEqual({
        model: 'up',
        max_tokens: 300,
        messages: [
          { role: 'system', content: 'Be brief.' },
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } },
              { type: 'image_url', image_url: { url: 'https://example.com/a.png' } },
            ],
          },
          {
            role: 'assistant',
            content: null,
            tool_calls: [
              { id: 'call_1', type: 'function', function: { name: 'Bash', arguments: '{"command":"pwd"}' } },
            ],
          },
          { role: 'tool', tool_call_id: 'call_1', content: '/repo' },
        ],
        tools: [
          {
            type: 'function',
            function: {
              name: 'Bash',
              description: 'Run a command',
              parameters: CLAUDE_CODE_REQUEST.tools[0].input_schema,
            },
          },
        ],
        tool_choice: 'required',
        stop: ['END'],
        temperature: 0.5,
        user: 'end-user-1',
      });
      // 500 × 2 + 20 × 8
      const books_ = await books({ callId: response.headers.get('x-switchyard-call-id')! });
      expect(books_.debit).toBe(1_160);
      expect(books_.record).toMatchObject({
        method: 'messages',
        cost: 1_160,
        prompt_tokens: 500,
        completion_tokens: 20,
      });
    });

    it('a Claude-Code-style session streamed: reasoning, text and streamed tool arguments become Anthropic events, billed exactly', async () => {
      const stream = client.messages.stream({ model: 'gpt', max_tokens: 4000, ...CLAUDE_CODE_REQUEST });
      const events: string[] = [];
      stream.on('streamEvent', (event) => {
        events.push(event.type === 'content_block_delta' ? event.delta.type : event.type);
      });
      const message = await stream.finalMessage();
      expect(message.content).toEqual([
        { type: 'thinking', thinking: 'Think first.', signature: '' },
        { type: 'text', text: 'Let me look.' },
        { type: 'tool_use', id: 'call_1', name: 'Bash', input: { command: 'ls' } },
      ]);
      expect(message.stop_reason).toBe('tool_use');
      expect(message.usage).toMatchObject({ input_tokens: 600, cache_read_input_tokens: 400, output_tokens: 60 });
      expect(events).toEqual([
        'message_start',
        'content_block_start',
        'thinking_delta',
        'content_block_stop',
        'content_block_start',
        'text_delta',
        'content_block_stop',
        'content_block_start',
        'input_json_delta',
        'input_json_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ]);
      const sent = lastSeen('/oa/v1/chat/completions').body;
      expect(sent.stream_options).toEqual({ include_usage: true });
      expect(sent.thinking).toBeUndefined();
      expect(sent.messages[0]).toEqual({ role: 'system', content: 'You are Claude Code.\nWork in /repo.' });
      expect(sent.messages.slice(-2)).toEqual([
        { role: 'tool', tool_call_id: 'toolu_1', content: '/repo' },
        { role: 'user', content: [{ type: 'text', text: 'Now list it.' }] },
      ]);
      // 600 × 2 + 400 × 0.5 + 60 × 8
      const { response } = await stream.withResponse();
      const books_ = await books({ callId: response.headers.get('x-switchyard-call-id')! });
      expect(books_.debit).toBe(1_880);
      expect(books_.record).toMatchObject({ method: 'messages', cost: 1_880, cache_read_tokens: 400 });
    });

    it('a stream whose usage costs more than the call held still ends in order, and is charged exactly', async () => {
      // The provider reports 1,000 input and 60 output tokens for a prompt of a few bytes and max_tokens 1: the
      // charge above the hold is settled before the usage goes out, and the stream's last chunk waits for it.
      const stream = client.messages.stream({
        model: 'gpt',
        max_tokens: 1,
        messages: [{ role: 'user', content: 'x' }],
      });
      const message = await stream.finalMessage();
      expect(message.usage).toMatchObject({ input_tokens: 600, cache_read_input_tokens: 400, output_tokens: 60 });
      const { response } = await stream.withResponse();
      const books_ = await books({ callId: response.headers.get('x-switchyard-call-id')! });
      expect(books_.debit).toBe(1_880);
      expect(books_.record.cost).toBe(1_880);
    });

    it('the demo provider, through the same translation, plain and streamed', async () => {
      const message = await client.messages.create({
        model: 'demo-chat',
        max_tokens: 50,
        messages: [{ role: 'user', content: 'Hello demo' }],
      });
      expect(message.content[0].type).toBe('text');
      expect(message.usage.input_tokens).toBeGreaterThan(0);
      const streamed = await client.messages
        .stream({ model: 'demo-chat', max_tokens: 50, messages: [{ role: 'user', content: 'Hello demo' }] })
        .finalMessage();
      expect(streamed.content[0].type).toBe('text');
      expect(streamed.usage.output_tokens).toBeGreaterThan(0);
    });

    it('a Gemini model, through its translator, plain and streamed', async () => {
      const message = await client.messages.create({
        model: 'gemini',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'Hello Gemini' }],
      });
      expect(message).toMatchObject({ model: 'gemini', stop_reason: 'end_turn' });
      expect(message.content[0].type).toBe('text');
      expect(message.usage.input_tokens).toBeGreaterThan(0);
      const streamed = await client.messages
        .stream({ model: 'gemini', max_tokens: 100, messages: [{ role: 'user', content: 'Hello Gemini' }] })
        .finalMessage();
      expect(streamed.content[0].type).toBe('text');
      expect(streamed.usage.output_tokens).toBeGreaterThan(0);
      expect(lastSeen('/ge/v1beta/models/gemini-test:streamGenerateContent?alt=sse').headers['x-goog-api-key']).toBe(
        'gemini-upstream-key',
      );
    });

    it('countTokens: the gateway’s estimate, free of charge', async () => {
      const before = await balance();
      const counted = await client.messages.countTokens({
        model: 'gpt',
        system: 'Be brief.',
        messages: [{ role: 'user', content: 'x'.repeat(400) }],
      });
      expect(counted.input_tokens).toBeGreaterThan(100);
      expect(await balance()).toBe(before);
    });

    it('a client that leaves mid-stream is billed for what was relayed', async () => {
      const controller = new AbortController();
      const response = await fetch(`${app.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': 'msg-gone-mid-stream' },
        body: JSON.stringify({
          model: 'slow',
          max_tokens: 500,
          stream: true,
          messages: [{ role: 'user', content: 'count' }],
        }),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      let received = '';
      while ((received.match(/word/g) ?? []).length < 3)
        received += new TextDecoder().decode((await reader.read()).value);
      expect(received).toContain('event: message_start');
      controller.abort();
      const deadline = Date.now() + 5000;
      while (!lastSeen('/oa/v1/chat/completions').closedEarly && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 100));
      const { record, debit } = await books({ requestId: 'msg-gone-mid-stream' });
      expect(record).toMatchObject({ status: 'client_closed', method: 'messages' });
      expect(record.completion_tokens).toBeGreaterThanOrEqual(3);
      expect(record.cost).toBeGreaterThan(0);
      expect(debit).toBe(record.cost);
    });
  });

  it.each([
    ['an Anthropic model', 'claude'],
    ['an OpenAI-compatible model', 'gpt'],
  ])(
    'works with the Vercel AI SDK’s Anthropic provider against %s (generateText, streamText with a tool)',
    async (_kind, model) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [join(__dirname, '../../../../../test/support/ai-sdk-anthropic-check.mjs')],
        {
          env: { ...process.env, NODE_OPTIONS: '', BASE_URL: `${app.url}/v1`, API_KEY: key, MODEL: model },
          timeout: 30_000,
        },
      );
      const result = JSON.parse(stdout.trim().split('\n').at(-1)!);
      expect(result.generatedText.length).toBeGreaterThan(0);
      expect(result.generatedUsage.inputTokens).toBeGreaterThan(0);
      expect(result.streamedParts).toEqual(
        expect.arrayContaining(['reasoning-delta', 'text-delta', 'tool-call', 'finish']),
      );
      expect(result.toolCalls).toEqual([{ name: 'Bash', input: { command: 'ls' } }]);
      expect(result.streamedUsage.outputTokens).toBe(model === 'claude' ? 80 : 60);
    },
  );

  describe('errors, in Anthropic’s shape', () => {
    it('an error after the stream began is an event: error (the provider’s own, natively); the call is billed what it relayed', async () => {
      const res = await fetch(`${app.url}/v1/messages`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-request-id': 'msg-stream-error' },
        body: JSON.stringify({
          model: 'claude-stream-error',
          max_tokens: 100,
          stream: true,
          messages: [{ role: 'user', content: 'x' }],
        }),
      });
      expect(res.status).toBe(200);
      const text = await res.text();
      expect(text).toContain('"text":"Partial"');
      const last = text.trim().split('\n\n').at(-1)!;
      expect(last.split('\n')[0]).toBe('event: error');
      expect(JSON.parse(last.split('\n')[1].slice('data: '.length))).toMatchObject({
        type: 'error',
        error: { type: 'overloaded_error' },
      });
      const { record, debit } = await books({ requestId: 'msg-stream-error' });
      expect(record).toMatchObject({ status: 'upstream_error', method: 'messages' });
      expect(record.cost).toBeGreaterThan(0);
      expect(debit).toBe(record.cost);
      const failing = client.messages.stream({
        model: 'claude-stream-error',
        max_tokens: 100,
        messages: [{ role: 'user', content: 'x' }],
      });
      await expect(failing.finalMessage()).rejects.toBeInstanceOf(Anthropic.APIError);
    });

    const raw = (body: unknown, headers: Record<string, string> = { 'x-api-key': key }, path = '/v1/messages') =>
      app.http(path, { headers, body });

    it.each([
      ['missing', undefined],
      ['zero', 0],
      ['negative', -5],
      ['a string', '100'],
      ['a fraction', 1.5],
    ])('refuses max_tokens %s with 400 invalid_request_error, before anything is forwarded', async (_name, max) => {
      const before = fake.seen.length;
      const res = await raw({ model: 'claude', max_tokens: max, messages: [{ role: 'user', content: 'x' }] });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect(res.body.error.message).toMatch(/max_tokens/);
      expect(fake.seen.length).toBe(before);
    });

    it('the SDK reads each error class', async () => {
      const fails = (promise: Promise<unknown>) => promise.catch((error: unknown) => error);
      const ask = { max_tokens: 10, messages: [{ role: 'user' as const, content: 'x' }] };
      expect(
        await fails(client.messages.create({ model: 'claude', max_tokens: 0, messages: ask.messages })),
      ).toBeInstanceOf(Anthropic.BadRequestError);
      const unknown = await fails(client.messages.create({ model: 'no-such-model', ...ask }));
      expect(unknown).toBeInstanceOf(Anthropic.NotFoundError);
      expect((unknown as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({
        type: 'error',
        error: { type: 'not_found_error' },
      });
      const stranger = new Anthropic({ baseURL: app.url, apiKey: 'sy-' + 'x'.repeat(48), maxRetries: 0 });
      const badKey = await fails(stranger.messages.create({ model: 'claude', ...ask }));
      expect(badKey).toBeInstanceOf(Anthropic.AuthenticationError);
      const none = await raw({ model: 'claude', ...ask }, {});
      expect(none.status).toBe(401);
      expect(none.body).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
    });

    it('takes the key as a bearer token too, and answers on the aliases; API keys are not taken on /oauth2/v1', async () => {
      const ask = { model: 'gpt', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] };
      expect((await raw(ask, { authorization: `Bearer ${key}` })).status).toBe(200);
      expect((await raw(ask, { 'x-api-key': key }, '/apikey/v1/messages')).status).toBe(200);
      const oauth = await raw(ask, { 'x-api-key': key }, '/oauth2/v1/messages');
      expect(oauth.status).toBe(401);
      expect(oauth.body.error.type).toBe('authentication_error');
      const versioned = await raw(
        { ...ask, model: 'claude' },
        {
          'x-api-key': key,
          'anthropic-version': '2023-06-01',
          'anthropic-beta': 'interleaved-thinking-2025-05-14, tools-2024-04-04,prompt-caching-2024-07-31',
        },
      );
      expect(versioned.status).toBe(200);
      // Only the documented betas go on (policy/anthropic-beta.ts); the others are dropped.
      expect(lastSeen('/an/v1/messages').headers).toMatchObject({
        'anthropic-version': '2023-06-01',
        'anthropic-beta': 'interleaved-thinking-2025-05-14,prompt-caching-2024-07-31',
      });
      // Claude Code calls the beta routes: /v1/messages?beta=true and /v1/messages/count_tokens?beta=true.
      expect((await raw(ask, { 'x-api-key': key }, '/v1/messages?beta=true')).status).toBe(200);
      const counted = await raw(
        { model: 'gpt', messages: ask.messages },
        { 'x-api-key': key },
        '/v1/messages/count_tokens?beta=true',
      );
      expect(counted.status).toBe(200);
      expect(counted.body.input_tokens).toBeGreaterThan(0);
    });

    it('takes an app’s OAuth access token with the client-id header, as on /v1; without the header 400', async () => {
      const kit = await OAuthTestKit.start(app);
      const oauthClient = await kit.createClient({ clientName: 'Claude-style app' });
      const tokens = await kit.tokensFor(oauthClient);
      const ask = { model: 'gpt', max_tokens: 10, messages: [{ role: 'user' as const, content: 'x' }] };
      const app_ = new Anthropic({
        baseURL: app.url,
        authToken: tokens.access_token,
        apiKey: null,
        defaultHeaders: { 'X-Service-OAuth-Client-Id': oauthClient.clientId },
        maxRetries: 0,
      });
      expect((await app_.messages.create(ask)).content[0]).toMatchObject({ type: 'text', text: 'Hello from OpenAI.' });
      const headerless = await raw(ask, { authorization: `Bearer ${tokens.access_token}` });
      expect(headerless.status).toBe(400);
      expect(headerless.body.error.type).toBe('invalid_request_error');
    });

    it('refuses thinking budgets at or above max_tokens, or below 1,024', async () => {
      for (const budget of [1000, 100_000_000, 1023]) {
        const res = await raw({
          model: 'claude',
          max_tokens: 1000,
          thinking: { type: 'enabled', budget_tokens: budget },
          messages: [{ role: 'user', content: 'x' }],
        });
        expect(res.status).toBe(400);
        expect(res.body.error.type).toBe('invalid_request_error');
      }
    });

    it('bounds a huge max_tokens by the model’s output limit, and sends that bound upstream', async () => {
      const res = await raw({ model: 'claude', max_tokens: 1_000_000_000, messages: [{ role: 'user', content: 'x' }] });
      expect(res.status).toBe(200);
      expect(lastSeen('/an/v1/messages').body.max_tokens).toBe(8192);
    });

    it('answers an oversized image (a body over 20 MB) with 413 request_too_large', async () => {
      const res = await raw({
        model: 'claude',
        max_tokens: 10,
        messages: [
          {
            role: 'user',
            content: [
              {
                type: 'image',
                source: { type: 'base64', media_type: 'image/png', data: 'A'.repeat(21 * 1024 * 1024) },
              },
            ],
          },
        ],
      });
      expect(res.status).toBe(413);
      expect(res.body.error.type).toBe('request_too_large');
    });

    it('refuses a call the budget cannot cover with 403 permission_error before any byte is streamed, and lowers the bound (and the thinking budget) to what it covers', async () => {
      const { key: poor, id } = (await app.http('/api/v1/keys', { token: session, body: { name: 'poor' } })).body.data;
      await app.http(`/api/v1/keys/${id}/limits`, { method: 'PUT', token: session, body: { perRequest: 0.000001 } });
      const refused = await raw(
        { model: 'claude', max_tokens: 100, stream: true, messages: [{ role: 'user', content: 'x' }] },
        {
          'x-api-key': poor,
        },
      );
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
      expect(refused.body).toMatchObject({ type: 'error', error: { type: 'permission_error' } });
      // 0.04 covers the input and about 2,500 output tokens at 15 per MTok.
      await app.http(`/api/v1/keys/${id}/limits`, { method: 'PUT', token: session, body: { perRequest: 0.04 } });
      const capped = await raw(
        {
          model: 'claude',
          max_tokens: 8000,
          thinking: { type: 'enabled', budget_tokens: 6000 },
          messages: [{ role: 'user', content: 'x' }],
        },
        { 'x-api-key': poor },
      );
      expect(capped.status).toBe(200);
      const bound = Number(capped.headers.get('x-switchyard-max-tokens-capped'));
      expect(bound).toBeLessThan(8000);
      const sent = lastSeen('/an/v1/messages').body;
      expect(sent.max_tokens).toBe(bound);
      expect(sent.thinking.budget_tokens).toBe(bound - 1);
    });

    it('bills another user’s calls to that user only, and keeps each call of a repeated request id apart', async () => {
      const other = (
        await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('msg2'), password: 'messages for all' } })
      ).body.data.token;
      const otherKey = (await app.http('/api/v1/keys', { token: other, body: { name: 'k' } })).body.data.key;
      const mine = await balance();
      const ask = { model: 'gpt', max_tokens: 10, messages: [{ role: 'user', content: 'x' }] };
      const headers = { 'x-api-key': otherKey, 'x-request-id': 'msg-repeated' };
      const first = await raw(ask, headers);
      const second = await raw(ask, headers);
      expect([first.status, second.status]).toEqual([200, 200]);
      expect(await balance()).toBe(mine);
      await app.app.get(ReservationService).flushSettlements();
      await app.app.get(UsageRecorder).flush();
      const rows = await app.database.dataSource.query(
        `SELECT call_id, cost_micros::bigint AS cost FROM usage_records WHERE request_id = 'msg-repeated'`,
      );
      expect(rows).toHaveLength(2);
      expect(new Set(rows.map((row: { call_id: string }) => row.call_id)).size).toBe(2);
      expect(rows.every((row: { cost: string }) => Number(row.cost) === 1_160)).toBe(true);
    });
  });

  /** The signed-in user's remaining balance, in micro-units, once settlements are written. */
  async function balance(): Promise<number> {
    await app.app.get(ReservationService).flushSettlements();
    const summary = (await app.http('/api/v1/usage/me/summary', { token: session })).body.data;
    return Math.round(summary.remaining * 1e6);
  }
});
