import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { ApiError, GoogleGenAI, Type } from '@google/genai';
import { fakeProviders } from '../../../../../test/support/local-server';
import { startTestApp, type TestApp, uniqueEmail } from '../../../../../test/support/test-app';
import { ReservationService, UsageRecorder } from '../../../usage';

/**
 * Gemini's generateContent API on the gateway (docs/gemini.md), through Google's own SDK (@google/genai) against the
 * booted app: any chat model behind it (an OpenAI-compatible one, a Gemini one translated twice, the demo model),
 * streaming, tools (function calls and their responses), countTokens, errors in Google's shape, and each call's
 * ledger debit and usage record equal to price × usage, like every other face's.
 */
const fixture = (name: string) =>
  readFileSync(join(__dirname, '..', '..', 'providers', 'gemini', 'fixtures', name), 'utf8');

const chunk = (delta: object, finish: string | null = null) => ({
  id: 'chatcmpl-g',
  object: 'chat.completion.chunk',
  created: 1,
  model: 'up',
  choices: [{ index: 0, delta, finish_reason: finish }],
});
const USAGE = {
  prompt_tokens: 1000,
  completion_tokens: 60,
  total_tokens: 1060,
  prompt_tokens_details: { cached_tokens: 400 },
};
const sse = (chunks: object[]) => chunks.map((c) => `data: ${JSON.stringify(c)}\n\n`).join('') + 'data: [DONE]\n\n';

/** The OpenAI-compatible provider's stream: text, or a tool call; then the usage chunk. */
function openAiStream(tools: boolean): string {
  const usage = { ...chunk({}), choices: [], usage: USAGE };
  if (!tools)
    return sse([
      chunk({ role: 'assistant', content: '' }),
      chunk({ content: 'Hello ' }),
      chunk({ content: 'from a stream.' }),
      chunk({}, 'stop'),
      usage,
    ]);
  return sse([
    chunk({ role: 'assistant', content: '' }),
    chunk({ tool_calls: [{ index: 0, id: 'call_w', type: 'function', function: { name: 'weather', arguments: '' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: '{"city"' } }] }),
    chunk({ tool_calls: [{ index: 0, function: { arguments: ':"Paris"}' } }] }),
    chunk({}, 'tool_calls'),
    usage,
  ]);
}

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
}

function fakeUpstreams() {
  const seen: Seen[] = [];
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const part of req) raw += part;
    const body = JSON.parse(raw || '{}');
    seen.push({ path: req.url!, headers: req.headers, body });
    const send = (status: number, type: string, text: string) => {
      res.writeHead(status, { 'content-type': type });
      res.end(text);
    };
    if (req.url!.startsWith('/ge/v1beta/models/gemini-broken:streamGenerateContent'))
      return send(200, 'text/event-stream', fixture('stream-error.sse'));
    if (req.url!.startsWith('/ge/v1beta/models/gemini-test:streamGenerateContent'))
      return send(200, 'text/event-stream', fixture('stream-text.sse'));
    if (req.url!.startsWith('/ge/v1beta/models/gemini-test:generateContent'))
      return send(200, 'application/json', fixture('text-response.json'));
    if (req.url !== '/oa/v1/chat/completions') return send(404, 'application/json', '{"error":{"message":"no"}}');
    // A tool call until the conversation carries its result, then an answer.
    const tools =
      Array.isArray(body.tools) && body.tools.length > 0 && !body.messages.some((m: any) => m.role === 'tool');
    if (body.stream) return send(200, 'text/event-stream', openAiStream(tools));
    send(
      200,
      'application/json',
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: 'up',
        choices: [
          {
            index: 0,
            finish_reason: tools ? 'tool_calls' : 'stop',
            message: tools
              ? {
                  role: 'assistant',
                  content: null,
                  tool_calls: [
                    { id: 'call_9', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
                  ],
                }
              : { role: 'assistant', content: 'Hello from OpenAI.' },
          },
        ],
        usage: USAGE,
      }),
    );
  };
  return { answer, seen };
}

/** Prices per million tokens: micro-units per token (input 2, cached 0.5, output 10). */
const PRICES = { inputPerMTok: 2, cacheReadPerMTok: 0.5, outputPerMTok: 10 };
/** 600 × 2 + 400 × 0.5 + 60 × 10. */
const COST = 2_000;

describe('the Gemini API, through Google’s own SDK (@google/genai)', () => {
  const fake = fakeUpstreams();
  let app: TestApp;
  let providers: Awaited<ReturnType<typeof fakeProviders>> | undefined;
  let session: string;
  let key: string;
  let ai: GoogleGenAI;

  beforeAll(async () => {
    providers = await fakeProviders(fake.answer, (base) => {
      const chat = (id: string, provider: string, upstreamModel: string) => ({
        id,
        provider,
        upstreamModel,
        type: 'text',
        methods: ['chat_completions'],
        maxOutputTokens: 8192,
        contextLength: 128_000,
        pricing: PRICES,
      });
      return {
        providers: [
          { id: 'oa', type: 'openai', baseUrl: `${base}/oa/v1`, apiKey: 'openai-upstream-key' },
          { id: 'ge', type: 'gemini', baseUrl: `${base}/ge/v1beta`, apiKey: 'gemini-upstream-key' },
          { id: 'demo', type: 'demo' },
        ],
        models: [
          chat('gpt', 'oa', 'up'),
          chat('gemini', 'ge', 'gemini-test'),
          chat('gemini-broken', 'ge', 'gemini-broken'),
          { ...chat('demo-chat', 'demo', 'demo-chat'), pricing: { inputPerMTok: 0.5, outputPerMTok: 1.5 } },
          { id: 'embed', provider: 'oa', type: 'embedding', methods: ['embeddings'], pricing: { inputPerMTok: 1 } },
        ],
      };
    });
    app = await startTestApp({ modelsConfig: providers.catalogPath, signupCredit: 5 });
    session = (
      await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('gem'), password: 'gemini for all' } })
    ).body.data.token;
    key = (await app.http('/api/v1/keys', { token: session, body: { name: 'k' } })).body.data.key;
    ai = new GoogleGenAI({ apiKey: key, httpOptions: { baseUrl: app.url } });
  });
  afterAll(async () => {
    await app?.close();
    await providers?.close();
  });

  /** A call's ledger debit and usage record, once settled and written. */
  async function books(callId: string) {
    const db = app.database.dataSource;
    let record: any;
    for (let tries = 0; !record && tries < 40; tries += 1) {
      if (tries) await new Promise((resolve) => setTimeout(resolve, 50));
      await app.app.get(ReservationService).flushSettlements();
      await app.app.get(UsageRecorder).flush();
      [record] = await db.query(
        `SELECT call_id, method, model, status, stream, prompt_tokens, completion_tokens, cache_read_tokens,
                cost_micros::bigint AS cost
           FROM usage_records WHERE call_id = $1`,
        [callId],
      );
    }
    await app.app.get(ReservationService).flushSettlements();
    const [debit] = await db.query(
      `SELECT -amount_micros::bigint AS micros FROM ledger_entries WHERE idempotency_key = $1`,
      [`usage:${callId}`],
    );
    return { debit: Number(debit?.micros ?? 0), record: { ...record, cost: Number(record.cost) } };
  }

  const callIdOf = (response: { sdkHttpResponse?: { headers?: Record<string, string> } }) =>
    response.sdkHttpResponse!.headers!['x-switchyard-call-id'];
  const lastSeen = () => fake.seen.at(-1)!;

  /** A request as curl would send it, for what the SDK never sends. */
  async function raw(path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': key }) {
    const res = await fetch(`${app.url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
    const text = await res.text();
    let json: any;
    try {
      json = JSON.parse(text);
    } catch {
      json = null;
    }
    return { status: res.status, headers: res.headers, text, body: json };
  }

  async function apiError(call: Promise<unknown>): Promise<{ status: number; body: any }> {
    try {
      await call;
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      const failure = error as ApiError;
      return { status: failure.status, body: JSON.parse(failure.message.slice(failure.message.indexOf('{'))) };
    }
    throw new Error('expected an ApiError');
  }

  it('generateContent: translated into a chat completion, answered in Gemini’s shape, billed exactly like any call', async () => {
    const response = await ai.models.generateContent({
      model: 'gpt',
      contents: 'Say hello',
      config: { systemInstruction: 'Be brief.', maxOutputTokens: 100, temperature: 0.5, stopSequences: ['END'] },
    });
    expect(response.text).toBe('Hello from OpenAI.');
    expect(response.candidates![0].finishReason).toBe('STOP');
    expect(response.usageMetadata).toEqual({
      promptTokenCount: 1000,
      cachedContentTokenCount: 400,
      candidatesTokenCount: 60,
      totalTokenCount: 1060,
    });
    expect(response.modelVersion).toBe('gpt');
    const sent = lastSeen();
    expect(sent.headers.authorization).toBe('Bearer openai-upstream-key');
    expect(sent.headers['x-goog-api-key']).toBeUndefined();
    expect(sent.body).toEqual({
      model: 'up',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'Say hello' }] },
      ],
      max_tokens: 100,
      temperature: 0.5,
      stop: ['END'],
    });
    const { debit, record } = await books(callIdOf(response));
    expect(debit).toBe(COST);
    expect(record).toMatchObject({
      method: 'generate_content',
      model: 'gpt',
      status: 'success',
      stream: false,
      prompt_tokens: 1000,
      cache_read_tokens: 400,
      completion_tokens: 60,
      cost: COST,
    });
    expect(response.sdkHttpResponse!.headers!['x-switchyard-cost']).toBe('0.002');
  });

  it('generateContentStream: text as it arrives, the usage on the last chunk, billed exactly', async () => {
    const stream = await ai.models.generateContentStream({ model: 'gpt', contents: 'Say hello' });
    const chunks = [];
    for await (const part of stream) chunks.push(part);
    expect(chunks.map((part) => part.text ?? '').join('')).toBe('Hello from a stream.');
    const last = chunks.at(-1)!;
    expect(last.candidates![0].finishReason).toBe('STOP');
    expect(last.usageMetadata).toMatchObject({ promptTokenCount: 1000, candidatesTokenCount: 60 });
    expect(lastSeen().body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const { debit, record } = await books(callIdOf(chunks[0]));
    expect(debit).toBe(COST);
    expect(record).toMatchObject({ method: 'generate_content', stream: true, cost: COST });
  });

  it('tools: a function declaration (Gemini’s schema) becomes a chat tool, its call comes back whole, and the response goes back as its tool message', async () => {
    const weather = {
      name: 'weather',
      description: 'The weather in a city',
      parameters: {
        type: Type.OBJECT,
        properties: {
          city: { type: Type.STRING, description: 'A city' },
          days: { type: Type.INTEGER, nullable: true },
        },
        required: ['city'],
      },
    };
    const config = { tools: [{ functionDeclarations: [weather] }] };
    const asked = await ai.models.generateContent({ model: 'gpt', contents: 'Weather in Paris?', config });
    expect(asked.functionCalls).toEqual([{ name: 'weather', args: { city: 'Paris' }, id: 'call_9' }]);
    expect(asked.candidates![0].finishReason).toBe('STOP');
    expect(lastSeen().body.tools).toEqual([
      {
        type: 'function',
        function: {
          name: 'weather',
          description: 'The weather in a city',
          parameters: {
            type: 'object',
            properties: { city: { type: 'string', description: 'A city' }, days: { type: ['integer', 'null'] } },
            required: ['city'],
          },
        },
      },
    ]);
    const answered = await ai.models.generateContent({
      model: 'gpt',
      contents: [
        { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
        { role: 'model', parts: [{ functionCall: asked.functionCalls![0] }] },
        { role: 'user', parts: [{ functionResponse: { name: 'weather', id: 'call_9', response: { sky: 'clear' } } }] },
      ],
      config,
    });
    expect(answered.text).toBe('Hello from OpenAI.');
    expect(lastSeen().body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_9', content: '{"sky":"clear"}' },
    ]);
    const { debit } = await books(callIdOf(answered));
    expect(debit).toBe(COST);
  });

  it('tools, streamed: the function call comes whole on the last chunk, with the usage', async () => {
    const stream = await ai.models.generateContentStream({
      model: 'gpt',
      contents: 'Weather in Paris?',
      config: {
        tools: [{ functionDeclarations: [{ name: 'weather', parametersJsonSchema: { type: 'object' } }] }],
        toolConfig: { functionCallingConfig: { mode: 'ANY' as never } },
      },
    });
    const chunks = [];
    for await (const part of stream) chunks.push(part);
    expect(chunks.at(-1)!.functionCalls).toEqual([{ name: 'weather', args: { city: 'Paris' }, id: 'call_w' }]);
    expect(lastSeen().body).toMatchObject({
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object' } } }],
      tool_choice: 'required',
    });
  });

  it('serves a Gemini model (translated there and back) and the demo model', async () => {
    const viaGemini = await ai.models.generateContent({ model: 'gemini', contents: 'Hello' });
    expect(viaGemini.text).toBeTruthy();
    expect(lastSeen().path).toBe('/ge/v1beta/models/gemini-test:generateContent');
    const stream = await ai.models.generateContentStream({ model: 'gemini', contents: 'Hello' });
    let text = '';
    for await (const part of stream) text += part.text ?? '';
    expect(text.length).toBeGreaterThan(0);
    const demo = await ai.models.generateContent({ model: 'demo-chat', contents: 'Hello' });
    expect(demo.text).toBeTruthy();
    const { record } = await books(callIdOf(demo));
    expect(record).toMatchObject({ method: 'generate_content', model: 'demo-chat', status: 'success' });
    expect(record.cost).toBeGreaterThan(0);
  });

  it('countTokens: the gateway’s estimate of the input, free of charge', async () => {
    const before = await app.database.dataSource.query(`SELECT count(*)::int AS n FROM usage_records`);
    const counted = await ai.models.countTokens({ model: 'gpt', contents: 'How many tokens is this sentence?' });
    expect(counted.totalTokens).toBeGreaterThan(3);
    await app.app.get(UsageRecorder).flush();
    const after = await app.database.dataSource.query(`SELECT count(*)::int AS n FROM usage_records`);
    expect(after[0].n).toBe(before[0].n);
  });

  it('takes the key in x-goog-api-key, as Google’s ?key=, or as a bearer token', async () => {
    const body = { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] };
    expect((await raw('/v1beta/models/gpt:generateContent', body)).status).toBe(200);
    expect((await raw(`/v1beta/models/gpt:generateContent?key=${key}`, body, {})).status).toBe(200);
    expect((await raw('/v1beta/models/gpt:generateContent', body, { authorization: `Bearer ${key}` })).status).toBe(
      200,
    );
    const none = await raw('/v1beta/models/gpt:generateContent', body, {});
    expect(none.status).toBe(401);
    expect(none.body.error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    expect(none.body.error.message).toMatch(/x-goog-api-key/);
  });

  describe('errors, in Google’s shape', () => {
    it('a bad key: 400 INVALID_ARGUMENT with reason API_KEY_INVALID, as Google answers one', async () => {
      const bad = new GoogleGenAI({ apiKey: 'sy-not-a-key', httpOptions: { baseUrl: app.url } });
      const { status, body } = await apiError(bad.models.generateContent({ model: 'gpt', contents: 'hi' }));
      expect(status).toBe(400);
      expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      expect(body.error.details[0]).toMatchObject({ reason: 'API_KEY_INVALID' });
    });

    it('an unknown model: 404 NOT_FOUND; a model without chat: 400', async () => {
      const unknown = await apiError(ai.models.generateContent({ model: 'nope', contents: 'hi' }));
      expect(unknown.status).toBe(404);
      expect(unknown.body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
      const embed = await apiError(ai.models.generateContent({ model: 'embed', contents: 'hi' }));
      expect(embed.status).toBe(400);
      expect(embed.body.error.details[0].reason).toBe('UNSUPPORTED_METHOD');
    });

    it('a budget that cannot cover the call: 403 PERMISSION_DENIED before anything is forwarded, streamed or not', async () => {
      const { key: poor, id } = (await app.http('/api/v1/keys', { token: session, body: { name: 'poor' } })).body.data;
      await app.http(`/api/v1/keys/${id}/limits`, { method: 'PUT', token: session, body: { perRequest: 0.000001 } });
      const client = new GoogleGenAI({ apiKey: poor, httpOptions: { baseUrl: app.url } });
      const forwarded = fake.seen.length;
      const refused = await apiError(client.models.generateContent({ model: 'gpt', contents: 'hi' }));
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
      const streamed = await apiError(client.models.generateContentStream({ model: 'gpt', contents: 'hi' }));
      expect(streamed.status).toBe(403);
      expect(fake.seen.length).toBe(forwarded);
      // A key with nothing left gets no count either (a count spends the operator's provider rate limit).
      await app.http(`/api/v1/keys/${id}/limits`, { method: 'PUT', token: session, body: { perRequest: 0 } });
      const count = await raw(
        '/v1beta/models/gpt:countTokens',
        { contents: [{ parts: [{ text: 'hi' }] }] },
        { 'x-goog-api-key': poor },
      );
      expect(count.status).toBe(403);
      expect(count.body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
    });

    it('bad requests: 400 INVALID_ARGUMENT naming the field, and tools Google would run are refused', async () => {
      const empty = await raw('/v1beta/models/gpt:generateContent', { contents: [] });
      expect(empty.status).toBe(400);
      expect(empty.body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      expect(empty.body.error.message).toMatch(/^contents:/);
      const search = await apiError(
        ai.models.generateContent({ model: 'gpt', contents: 'news?', config: { tools: [{ googleSearch: {} }] } }),
      );
      expect(search.status).toBe(400);
      expect(search.body.error.message).toMatch(/^tools\[0\]\.googleSearch:/);
      const cached = await raw('/v1beta/models/gpt:generateContent', {
        contents: [{ parts: [{ text: 'x' }] }],
        cachedContent: 'cachedContents/1',
      });
      expect(cached.body.error.message).toMatch(/^cachedContent:/);
      const noSse = await raw('/v1beta/models/gpt:streamGenerateContent', { contents: [{ parts: [{ text: 'x' }] }] });
      expect(noSse.status).toBe(400);
      expect(noSse.body.error.message).toMatch(/alt=sse/);
      const json = await fetch(`${app.url}/v1beta/models/gpt:generateContent`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-goog-api-key': key },
        body: '{"contents": [',
      });
      expect(json.status).toBe(400);
      expect(((await json.json()) as any).error.status).toBe('INVALID_ARGUMENT');
    });

    it('a failure once the stream began: an error chunk the SDK throws, and the call is billed what was relayed', async () => {
      const stream = await ai.models.generateContentStream({ model: 'gemini-broken', contents: 'hi' });
      const failure = await apiError(
        (async () => {
          for await (const part of stream) void part;
        })(),
      );
      expect(failure.status).toBe(502);
      expect(failure.body.error).toMatchObject({ code: 502, status: 'UNAVAILABLE' });
      await app.app.get(UsageRecorder).flush();
      const [{ call_id: callId }] = await app.database.dataSource.query(
        `SELECT call_id FROM usage_records WHERE model = 'gemini-broken' ORDER BY started_at DESC LIMIT 1`,
      );
      const { debit, record } = await books(callId);
      expect(record).toMatchObject({ method: 'generate_content', status: 'upstream_error', stream: true });
      expect(debit).toBe(record.cost);
    });

    it('paths off the allowlist under /v1beta/models/ answer 403 in Google’s shape', async () => {
      const res = await raw('/v1beta/models/gpt:embedContent', { content: { parts: [{ text: 'x' }] } });
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
    });
  });
});
