import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fakeProviders } from '../../../test/support/local-server';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { ReservationService, UsageRecorder } from '../usage';

/**
 * Prices that match the providers (docs/pricing.md): a call through each provider kind whose usage has cache reads,
 * cache writes and reasoning is charged exactly Σ component × its price — in usage.cost, x-switchyard-cost, the
 * ledger's debit and the usage record alike. The fake upstreams answer with the providers' wire-format fixtures.
 */
const fixture = (kind: string, name: string) =>
  readFileSync(join(__dirname, 'providers', kind, 'fixtures', name), 'utf8');

function fakeUpstreams() {
  const paths: string[] = [];
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw || '{}');
    paths.push(req.url!);
    const send = (type: string, text: string) => {
      res.writeHead(200, { 'content-type': type });
      res.end(text);
    };
    const sse = 'text/event-stream';
    const json = 'application/json';
    const url = req.url!;
    if (url === '/openai/v1/chat/completions') {
      if (body.model === 'usage-write') return send(json, fixture('openai', 'chat-cache-write.json'));
      return body.stream
        ? send(sse, fixture('openai', 'stream-cache-reasoning.sse'))
        : send(json, fixture('openai', 'chat-cache-reasoning.json'));
    }
    if (url === '/openai/v1/responses') return send(json, fixture('openai', 'responses-cache-reasoning.json'));
    if (url === '/anthropic/v1/messages') {
      if (!body.stream) return send(json, fixture('anthropic', 'cache-response.json'));
      return send(
        sse,
        fixture(
          'anthropic',
          body.model === 'usage-claude-delta' ? 'stream-cache-read-in-delta.sse' : 'stream-cache.sse',
        ),
      );
    }
    if (url.startsWith('/gemini/v1beta/models/usage-gemini:streamGenerateContent'))
      return send(sse, fixture('gemini', 'stream-thinking.sse'));
    if (url.startsWith('/gemini/v1beta/models/usage-gemini:generateContent'))
      return send(json, fixture('gemini', 'thinking-cache-response.json'));
    res.writeHead(404).end();
  };
  return { answer, paths };
}

const OPENAI = { inputPerMTok: 1.1, outputPerMTok: 4.4, cacheReadPerMTok: 0.275, perRequest: 0.0001 };
const WRITES = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };
const CLAUDE = {
  inputPerMTok: 3,
  outputPerMTok: 15,
  cacheReadPerMTok: 0.3,
  cacheWritePerMTok: 3.75,
  cacheWrite1hPerMTok: 6,
  perRequest: 0.0001,
};
const GEMINI = { inputPerMTok: 0.3, outputPerMTok: 2.5, cacheReadPerMTok: 0.03 };
const GEMINI_TIERED = {
  inputPerMTok: 1.25,
  outputPerMTok: 10,
  cacheReadPerMTok: 0.125,
  tierAboveTokens: 10_000,
  inputAbovePerMTok: 2.5,
  outputAbovePerMTok: 15,
};

describe('prices that match the providers: each provider kind charged exactly the formula', () => {
  const fake = fakeUpstreams();
  let app: TestApp;
  let providers: Awaited<ReturnType<typeof fakeProviders>> | undefined;
  let key: string;
  let session: string;

  beforeAll(async () => {
    providers = await fakeProviders(fake.answer, (base) => {
      const chat = (
        id: string,
        provider: string,
        upstreamModel: string,
        pricing?: object,
        methods = ['chat_completions'],
      ) => ({
        id,
        provider,
        upstreamModel,
        type: 'text',
        methods,
        ...(pricing ? { pricing } : {}),
      });
      return {
        providers: [
          { id: 'oa', type: 'openai', baseUrl: `${base}/openai/v1`, apiKey: 'k' },
          { id: 'an', type: 'anthropic', baseUrl: `${base}/anthropic/v1`, apiKey: 'k' },
          { id: 'ge', type: 'gemini', baseUrl: `${base}/gemini/v1beta`, apiKey: 'k' },
        ],
        models: [
          chat('oa-cache', 'oa', 'usage-chat', OPENAI),
          chat('oa-write', 'oa', 'usage-write', WRITES),
          chat('oa-resp', 'oa', 'usage-responses', OPENAI, ['responses']),
          chat('an-cache', 'an', 'usage-claude', CLAUDE),
          chat('an-delta', 'an', 'usage-claude-delta', CLAUDE),
          chat('ge-cache', 'ge', 'usage-gemini', GEMINI),
          chat('ge-tier', 'ge', 'usage-gemini', GEMINI_TIERED),
          chat('unpriced', 'oa', 'usage-chat'),
        ],
      };
    });
    app = await startTestApp({ modelsConfig: providers.catalogPath, signupCredit: 5 });
    session = (
      await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('price'), password: 'prices that match' } })
    ).body.data.token;
    key = (await app.http('/api/v1/keys', { token: session, body: { name: 'k' } })).body.data.key;
  });
  afterAll(async () => {
    await app?.close();
    await providers?.close();
  });

  async function call(path: string, body: Record<string, unknown>) {
    const response = await fetch(`${app.url}/v1${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    const usage = body.stream
      ? text
          .split('\n\n')
          .map((event) => event.replace(/^data: /, ''))
          .filter((data) => data.startsWith('{'))
          .map((data) => JSON.parse(data))
          .find((chunk) => chunk.usage)?.usage
      : JSON.parse(text).usage;
    return {
      status: response.status,
      headers: response.headers,
      usage,
      text,
      callId: response.headers.get('x-switchyard-call-id')!,
    };
  }

  /** The call's ledger debit and usage record, once settled and written. */
  async function books(callId: string) {
    await app.app.get(ReservationService).flushSettlements();
    await app.app.get(UsageRecorder).flush();
    const db = app.database.dataSource;
    const [debit] = await db.query(
      `SELECT -amount_micros::bigint AS micros FROM ledger_entries WHERE idempotency_key = $1`,
      [`usage:${callId}`],
    );
    const [record] = await db.query(
      `SELECT prompt_tokens, completion_tokens, cache_read_tokens, cache_write_tokens, cache_write_1h_tokens, reasoning_tokens, cost_micros::bigint AS cost
         FROM usage_records WHERE call_id = $1`,
      [callId],
    );
    return { debit: Number(debit?.micros), record: { ...record, cost: Number(record.cost) } };
  }

  const cases: [string, string, Record<string, unknown>, number, Record<string, number>][] = [
    // 1,760 × 1.1 + 10,240 × 0.275 + 1,400 × 4.4 (1,024 of them reasoning) + 100 for the request
    [
      'OpenAI-compatible, JSON',
      '/chat/completions',
      { model: 'oa-cache' },
      11_012,
      {
        prompt_tokens: 12000,
        completion_tokens: 1400,
        cache_read_tokens: 10240,
        cache_write_tokens: 0,
        cache_write_1h_tokens: 0,
        reasoning_tokens: 1024,
      },
    ],
    [
      'OpenAI-compatible, streamed',
      '/chat/completions',
      { model: 'oa-cache', stream: true, stream_options: { include_usage: true } },
      11_012,
      { cache_read_tokens: 10240, reasoning_tokens: 1024 },
    ],
    // 21 × 3 + 12,000 × 0.3 + 3,000 × 3.75 + 393 × 15
    [
      'OpenAI-compatible with cache writes',
      '/chat/completions',
      { model: 'oa-write' },
      20_808,
      { prompt_tokens: 15021, cache_read_tokens: 12000, cache_write_tokens: 3000 },
    ],
    [
      'OpenAI Responses',
      '/responses',
      { model: 'oa-resp', input: 'Summarise' },
      11_012,
      { prompt_tokens: 12000, cache_read_tokens: 10240, reasoning_tokens: 1024 },
    ],
    // 21 × 3 + 12,000 × 0.3 + 1,000 × 3.75 + 2,000 × 6 + 393 × 15 + 100
    [
      'Anthropic, JSON',
      '/chat/completions',
      { model: 'an-cache' },
      25_408,
      {
        prompt_tokens: 15021,
        completion_tokens: 393,
        cache_read_tokens: 12000,
        cache_write_tokens: 1000,
        cache_write_1h_tokens: 2000,
      },
    ],
    [
      'Anthropic, streamed',
      '/chat/completions',
      { model: 'an-cache', stream: true, stream_options: { include_usage: true } },
      25_408,
      { prompt_tokens: 15021, cache_write_1h_tokens: 2000 },
    ],
    // 40 × 3 + 8,000 × 0.3 (reported in message_delta only) + 120 × 15 + 100
    [
      'Anthropic, cache reads in message_delta only',
      '/chat/completions',
      { model: 'an-delta', stream: true },
      4_420,
      { prompt_tokens: 8040, cache_read_tokens: 8000, completion_tokens: 120 },
    ],
    // 2,500 × 0.3 + 8,000 × 0.03 + 1,400 × 2.5 (1,100 of them thoughts)
    [
      'Gemini, JSON',
      '/chat/completions',
      { model: 'ge-cache' },
      4_490,
      { prompt_tokens: 10500, completion_tokens: 1400, cache_read_tokens: 8000, reasoning_tokens: 1100 },
    ],
    [
      'Gemini, streamed (thoughts missing from the last chunk)',
      '/chat/completions',
      { model: 'ge-cache', stream: true, stream_options: { include_usage: true } },
      4_490,
      { reasoning_tokens: 1100 },
    ],
    // Above the 10,000-token tier: 2,500 × 2.5 + 8,000 × 0.25 (the cache price doubled with the input's) + 1,400 × 15
    [
      'Gemini above its long-context threshold',
      '/chat/completions',
      { model: 'ge-tier' },
      29_250,
      { prompt_tokens: 10500, cache_read_tokens: 8000 },
    ],
  ];

  it.each(cases)('%s', async (_, path, request, expected, components) => {
    const body = { messages: [{ role: 'user', content: 'Summarise the document' }], ...request };
    if (path === '/responses') delete (body as Record<string, unknown>).messages;
    const answer = await call(path, body);
    expect(answer.status).toBe(200);
    if (request.stream && !(request.stream_options as { include_usage?: boolean } | undefined)?.include_usage)
      expect(answer.usage).toBeUndefined();
    else {
      expect(answer.usage.cost).toBe(expected / 1e6);
      const details = answer.usage.cost_details as Record<string, number>;
      expect(Object.values(details).reduce((sum, value) => sum + value, 0)).toBeCloseTo(expected / 1e6, 12);
    }
    if (!request.stream) expect(answer.headers.get('x-switchyard-cost')).toBe(String(expected / 1e6));
    const { debit, record } = await books(answer.callId);
    expect(debit).toBe(expected);
    expect(record.cost).toBe(expected);
    expect(record).toMatchObject(components);
  });

  it('writes the components into a translated answer’s usage, beside the cost and its breakdown', async () => {
    const answer = await call('/chat/completions', {
      model: 'an-cache',
      messages: [{ role: 'user', content: 'Summarise' }],
    });
    expect(answer.usage).toEqual({
      prompt_tokens: 15021,
      completion_tokens: 393,
      total_tokens: 15414,
      prompt_tokens_details: { cached_tokens: 12000, cache_write_tokens: 3000, cache_write_1h_tokens: 2000 },
      completion_tokens_details: { reasoning_tokens: 0 },
      cost: 0.025408,
      cost_details: {
        input: 0.000063,
        cache_read: 0.0036,
        cache_write: 0.00375,
        cache_write_1h: 0.012,
        output: 0.005895,
        request: 0.0001,
      },
    });
  });

  it('returns the components in the activity', async () => {
    const answer = await call('/chat/completions', {
      model: 'ge-cache',
      messages: [{ role: 'user', content: 'Summarise' }],
    });
    await books(answer.callId);
    const page = (await app.http(`/api/v1/usage/me/activity?limit=5`, { token: session })).body.data;
    const item = page.items.find((entry: { id: string }) => entry.id === answer.callId);
    expect(item).toMatchObject({
      promptTokens: 10500,
      completionTokens: 1400,
      cacheReadTokens: 8000,
      cacheWriteTokens: 0,
      cacheWrite1hTokens: 0,
      reasoningTokens: 1100,
      cost: 0.00449,
    });
  });

  it('refuses a model with no price from the config or the catalog, before anything reaches the provider, and shows where prices came from', async () => {
    const before = fake.paths.length;
    const answer = await call('/chat/completions', { model: 'unpriced', messages: [{ role: 'user', content: 'x' }] });
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.text).error).toMatchObject({ code: 'model_not_priced', param: 'model' });
    expect(fake.paths.length).toBe(before);
    const models = (await fetch(`${app.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } }).then((r) =>
      r.json(),
    )) as { data: { id: string; pricing: unknown }[] };
    expect(models.data.find((model) => model.id === 'an-cache')!.pricing).toEqual({ ...CLAUDE, source: 'config' });
    expect(models.data.find((model) => model.id === 'unpriced')!.pricing).toEqual({});
  });
});
