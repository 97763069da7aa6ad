import type { IncomingMessage, ServerResponse } from 'node:http';
import { LedgerService, ReconciliationService, ReservationService, UsageRecorder } from '../src/modules/usage';
import { fakeProviders } from './support/local-server';
import { freePort, OAuthTestKit } from './support/oauth-flow';
import { startTestApp, TestApp, uniqueEmail } from './support/test-app';

/**
 * The money-attack suite's request-policy rules (issue 25, findings 2 to 4; docs/gateway.md, "Nothing forwarded
 * that the hold does not bound"): what a provider would fetch, run or charge on the caller's behalf is refused by
 * name before anything is reserved or forwarded, unless the catalog prices and bounds it, and then it is held and
 * billed. Each test is the attacker's request, failing on the code the review attacked; the fake providers record
 * what reached them. Prices: 1 µ per input token, 2 µ per output token.
 */
const ANTHROPIC_USAGE = { input_tokens: 100, output_tokens: 10 };
const SEARCH_PRICE = 0.01;

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, any>;
}

function upstream(seen: Seen[]) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = raw.startsWith('{') ? JSON.parse(raw) : { multipart: raw };
    seen.push({ path: req.url!, headers: req.headers, body });
    const json = (payload: unknown) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    switch (req.url) {
      case '/an/v1/messages/count_tokens':
        return json({ input_tokens: 42 });
      case '/an/v1/messages': {
        // A model that searched twice, as Anthropic reports it: two server_tool_use blocks and the usage's count.
        const searches = (body.tools ?? []).some((tool: { type?: string }) => tool.type?.startsWith('web_search'));
        const searched = searches
          ? [1, 2].flatMap((n) => [
              { type: 'server_tool_use', id: `srvtoolu_${n}`, name: 'web_search', input: { query: `q${n}` } },
              { type: 'web_search_tool_result', tool_use_id: `srvtoolu_${n}`, content: [] },
            ])
          : [];
        return json({
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: body.model,
          content: [...searched, { type: 'text', text: 'Done.' }],
          stop_reason: 'end_turn',
          stop_sequence: null,
          usage: { ...ANTHROPIC_USAGE, ...(searches ? { server_tool_use: { web_search_requests: 2 } } : {}) },
        });
      }
      case '/oa/v1/chat/completions':
        return json({
          id: 'c',
          object: 'chat.completion',
          created: 1,
          model: body.model,
          choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: 'ok' } }],
          usage: { prompt_tokens: 100, completion_tokens: 10, total_tokens: 110 },
        });
      case '/oa/v1/responses':
        return json({
          id: 'resp_1',
          object: 'response',
          status: 'completed',
          model: body.model,
          output: [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'ok' }] }],
          usage: { input_tokens: 100, output_tokens: 10, total_tokens: 110 },
        });
      case '/oa/v1/images/generations':
        return json({ created: 1, data: [{ b64_json: 'iVBORw0KGgo=' }] });
      default:
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end('{"error":{"message":"not found"}}');
    }
  };
}

const PRICES = { inputPerMTok: 1, outputPerMTok: 2 };

function catalog(origin: string) {
  const claude = (id: string, extra: Record<string, unknown> = {}) => ({
    id,
    provider: 'an',
    upstreamModel: 'claude-up',
    type: 'text',
    methods: ['chat_completions'],
    maxOutputTokens: 100,
    contextLength: 100_000,
    pricing: PRICES,
    ...extra,
  });
  return {
    providers: [
      { id: 'an', type: 'anthropic', baseUrl: `${origin}/an/v1`, apiKey: 'sk-ant' },
      { id: 'oa', type: 'openai', baseUrl: `${origin}/oa/v1`, apiKey: 'sk-oa' },
    ],
    models: [
      claude('claude'),
      claude('claude-search', { features: { webSearch: { perSearch: SEARCH_PRICE, maxUses: 3 } } }),
      claude('claude-docs', { features: { documentUrls: true } }),
      {
        id: 'gpt',
        provider: 'oa',
        type: 'text',
        methods: ['chat_completions', 'responses'],
        maxOutputTokens: 100,
        pricing: PRICES,
      },
    ],
  };
}

/** An image model priced by quality and size (a catalog of its own: the code the review attacked refused the table). */
function imageCatalog(origin: string) {
  return {
    providers: [{ id: 'oa', type: 'openai', baseUrl: `${origin}/oa/v1`, apiKey: 'sk-oa' }],
    models: [
      {
        id: 'img',
        provider: 'oa',
        type: 'image',
        methods: ['image_generation'],
        pricing: { perImage: { low: { '1024x1024': 0.01 }, high: { '1024x1024': 0.2, '1024x1536': 0.3 } } },
      },
    ],
  };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('money attacks: nothing forwarded that the hold does not bound', () => {
  const seen: Seen[] = [];
  let providers: Awaited<ReturnType<typeof fakeProviders>>;
  let app: TestApp;

  beforeAll(async () => {
    providers = await fakeProviders(upstream(seen), catalog);
    // A known port, so the OAuth issuer (PUBLIC_URL) is the app itself (count_tokens is checked with an app's token).
    const port = await freePort();
    app = await startTestApp({
      signupCredit: 0,
      modelsConfig: providers.catalogPath,
      countTokensRpm: 5,
      port,
      publicUrl: `http://127.0.0.1:${port}`,
    });
  });
  afterAll(async () => {
    await app?.close();
    await providers?.close();
  });

  async function newUser(creditMicros: number, limits: Record<string, unknown> = {}) {
    const registered = await app.http('/api/v1/auth/register', {
      body: { email: uniqueEmail('policy'), password: 'attack password' },
    });
    const session = registered.body.data.token as string;
    const userId = registered.body.data.user.id as string;
    if (creditMicros > 0)
      await app.app.get(LedgerService).credit(userId, creditMicros, 'admin_adjustment', 'test', `test:${userId}`);
    const key = (await app.http('/api/v1/keys', { token: session, body: { name: 'attack key', ...limits } })).body.data
      .key as string;
    return { session, userId, key };
  }

  /** What the user was debited, once every settlement is written and nothing is held. */
  async function debited(userId: string) {
    for (let i = 0; i < 200 && app.app.get(ReservationService).unwrittenSettlements > 0; i += 1) await sleep(25);
    await app.app.get(ReservationService).flushSettlements();
    await app.app.get(UsageRecorder).flush();
    const read = async () =>
      (
        await app.database.dataSource.query(
          'SELECT debits_micros::bigint AS debits, reserved_micros::bigint AS reserved FROM balances WHERE user_id = $1',
          [userId],
        )
      )[0];
    let balance = await read();
    for (let i = 0; i < 100 && Number(balance?.reserved ?? 0) > 0; i += 1) {
      await sleep(50);
      balance = await read();
    }
    expect(Number(balance?.reserved ?? 0)).toBe(0);
    const report = await app.app.get(ReconciliationService).reconcile(null, userId);
    expect(report.drifts).toEqual([]);
    return Number(balance?.debits ?? 0);
  }

  const messages = (key: string, body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    app.http('/v1/messages', {
      body: { model: 'claude', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }], ...body },
      headers: { 'x-api-key': key, ...headers },
    });
  const reached = (path: string) => seen.filter((request) => request.path === path).length;
  const block = (content: unknown) => ({ messages: [{ role: 'user', content: [content] }] });

  it('refuses provider-side fetching and tools on /v1/messages by name, in Anthropic’s shape, and never forwards them', async () => {
    const user = await newUser(5_000_000);
    const attacks: [string, Record<string, unknown>][] = [
      [
        'messages[0].content[0].source',
        block({ type: 'document', source: { type: 'url', url: 'https://big.example/1gb.pdf' } }),
      ],
      [
        'messages[0].content[0].source',
        block({ type: 'document', source: { type: 'file', file_id: 'file_other_tenant' } }),
      ],
      [
        'messages[0].content[0].source',
        block({ type: 'image', source: { type: 'file', file_id: 'file_other_tenant' } }),
      ],
      ['mcp_servers', { mcp_servers: [{ type: 'url', url: 'https://mcp.example/sse', name: 'x' }] }],
      ['container', { container: 'container_of_another_tenant' }],
      ['tools[0]', { tools: [{ type: 'web_fetch_20250910', name: 'web_fetch', max_uses: 50 }] }],
      ['tools[0]', { tools: [{ type: 'code_execution_20250825', name: 'code_execution' }] }],
      ['tools[0]', { tools: [{ type: 'web_search_20250305', name: 'web_search', max_uses: 5 }] }],
      ['speed', { speed: 'fast' }],
      ['service_tier', { service_tier: 'priority' }],
    ];
    const before = reached('/an/v1/messages');
    for (const [param, attack] of attacks) {
      const res = await messages(user.key, attack);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      expect(res.body.error.message.startsWith(`${param}:`)).toBe(true);
    }
    expect(reached('/an/v1/messages')).toBe(before);
    expect(await debited(user.userId)).toBe(0);
  });

  it('refuses paid provider features on the OpenAI face with the field as param, and never forwards them', async () => {
    const user = await newUser(5_000_000);
    const chat = (body: Record<string, unknown>) =>
      app.http('/v1/chat/completions', {
        token: user.key,
        body: { model: 'gpt', messages: [{ role: 'user', content: 'hi' }], ...body },
      });
    const responses = (body: Record<string, unknown>) =>
      app.http('/v1/responses', { token: user.key, body: { model: 'gpt', input: 'hi', ...body } });
    const attacks: [string, Promise<{ status: number; body: any }>][] = [
      ['web_search_options', chat({ web_search_options: { search_context_size: 'high' } })],
      ['service_tier', chat({ service_tier: 'priority' })],
      ['store', chat({ store: true, metadata: { run: 'x' } })],
      ['messages[0].content[0].file.file_id', chat(block({ type: 'file', file: { file_id: 'file-other-tenant' } }))],
      ['tools[0]', responses({ tools: [{ type: 'web_search' }] })],
      ['tools[0]', responses({ tools: [{ type: 'code_interpreter', container: { type: 'auto' } }] })],
      ['tools[0]', responses({ tools: [{ type: 'image_generation' }] })],
      [
        'tools[1]',
        responses({
          tools: [
            { type: 'function', name: 'f', parameters: {} },
            { type: 'file_search', vector_store_ids: ['vs_other'] },
          ],
        }),
      ],
      ['tools[0]', responses({ tools: [{ type: 'mcp', server_label: 'x', server_url: 'https://mcp.example' }] })],
      ['service_tier', responses({ service_tier: 'priority' })],
    ];
    for (const [param, pending] of attacks) {
      const res = await pending;
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ type: 'invalid_request_error', code: 'invalid_request', param });
    }
    expect(reached('/oa/v1/chat/completions') + reached('/oa/v1/responses')).toBe(0);
    expect(await debited(user.userId)).toBe(0);
  });

  it('holds web search at its price × max_uses where the catalog prices it, and bills each search reported', async () => {
    const search = (uses?: number) => ({
      model: 'claude-search',
      tools: [{ type: 'web_search_20250305', name: 'web_search', ...(uses ? { max_uses: uses } : {}) }],
    });
    const user = await newUser(5_000_000);
    expect((await messages(user.key, search())).status).toBe(400);
    expect((await messages(user.key, search(4))).status).toBe(400);
    const served = await messages(user.key, search(3));
    expect(served.status).toBe(200);
    expect(seen.at(-1)!.body.tools[0]).toMatchObject({ type: 'web_search_20250305', max_uses: 3 });
    const searchMicros = 2 * SEARCH_PRICE * 1e6;
    const tokenMicros = ANTHROPIC_USAGE.input_tokens * 1 + ANTHROPIC_USAGE.output_tokens * 2;
    expect(Math.round(served.body.usage.cost * 1e6)).toBe(tokenMicros + searchMicros);
    expect(await debited(user.userId)).toBe(tokenMicros + searchMicros);
    // A budget that covers the tokens but not three searches is refused before anything is forwarded.
    const poor = await newUser(20_000);
    const before = reached('/an/v1/messages');
    const refused = await messages(poor.key, search(3));
    expect(refused.status).toBe(403);
    expect(refused.body.error.type).toBe('permission_error');
    expect(reached('/an/v1/messages')).toBe(before);
    expect(await debited(poor.userId)).toBe(0);
  });

  it('holds a URL document at the model’s context length where the catalog enables it', async () => {
    const url = block({ type: 'document', source: { type: 'url', url: 'https://docs.example/report.pdf' } });
    const poor = await newUser(90_000); // below 100,000 tokens × 1 µ
    const before = reached('/an/v1/messages');
    expect((await messages(poor.key, { model: 'claude-docs', ...url })).status).toBe(403);
    expect(reached('/an/v1/messages')).toBe(before);
    const user = await newUser(5_000_000);
    const served = await messages(user.key, { model: 'claude-docs', ...url });
    expect(served.status).toBe(200);
    expect(seen.at(-1)!.body.messages[0].content[0].source.url).toBe('https://docs.example/report.pdf');
    expect(await debited(user.userId)).toBe(120);
  });

  it('never forwards an anthropic-beta value off the documented list', async () => {
    const user = await newUser(5_000_000);
    const res = await messages(
      user.key,
      {},
      {
        'anthropic-beta':
          'code-execution-2025-05-22,files-api-2025-04-14,interleaved-thinking-2025-05-14,mcp-client-2025-04-04',
      },
    );
    expect(res.status).toBe(200);
    expect(seen.at(-1)!.headers['anthropic-beta']).toBe('interleaved-thinking-2025-05-14');
  });

  it('refuses count_tokens to a credential that could not make a call, rate limits it per credential, and filters its betas', async () => {
    const count = (key: string, headers: Record<string, string> = {}) =>
      app.http('/v1/messages/count_tokens', {
        body: { model: 'claude', messages: [{ role: 'user', content: 'hi' }] },
        headers: { 'x-api-key': key, ...headers },
      });
    const before = reached('/an/v1/messages/count_tokens');
    const capped = await newUser(5_000_000, { total: 0 });
    const broke = await newUser(0);
    // An app the user capped at 0 a month, calling with its access token.
    const kit = await OAuthTestKit.start(app);
    const appUser = await kit.newUser();
    const client = await kit.createClient({ clientName: 'Counting app' });
    const tokens = await kit.tokensFor(client, { user: appUser, limits: { monthly: 0 } });
    const appCount = app.http('/v1/messages/count_tokens', {
      body: { model: 'claude', messages: [{ role: 'user', content: 'hi' }] },
      token: tokens.access_token,
      headers: { 'x-service-oauth-client-id': client.clientId },
    });
    const answers = await Promise.all([
      ...Array.from({ length: 5 }, () => count(capped.key)),
      count(broke.key),
      appCount,
    ]);
    for (const answer of answers) {
      expect(answer.status).toBe(403);
      expect(answer.body.error.type).toBe('permission_error');
    }
    expect(reached('/an/v1/messages/count_tokens')).toBe(before);
    const user = await newUser(5_000_000);
    const statuses = [];
    for (let i = 0; i < 7; i += 1)
      statuses.push(
        (await count(user.key, { 'anthropic-beta': 'token-counting-2024-11-01,files-api-2025-04-14' })).status,
      );
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
    expect(reached('/an/v1/messages/count_tokens')).toBe(before + 5);
    expect(seen.at(-1)!.headers['anthropic-beta']).toBe('token-counting-2024-11-01');
    // A count that would have the provider fetch a URL is refused like a call.
    const fetched = await app.http('/v1/messages/count_tokens', {
      body: {
        model: 'claude',
        ...block({ type: 'document', source: { type: 'url', url: 'https://x.example/a.pdf' } }),
      },
      headers: { 'x-api-key': (await newUser(5_000_000)).key },
    });
    expect(fetched.status).toBe(400);
    expect(reached('/an/v1/messages/count_tokens')).toBe(before + 5);
    expect(await debited(user.userId)).toBe(0);
  });
});

describe('money attacks: images priced by quality and size', () => {
  const seen: Seen[] = [];
  let providers: Awaited<ReturnType<typeof fakeProviders>>;
  let images: TestApp;

  beforeAll(async () => {
    providers = await fakeProviders(upstream(seen), imageCatalog);
    images = await startTestApp({ signupCredit: 0, modelsConfig: providers.catalogPath });
  });
  afterAll(async () => {
    await images?.close();
    await providers?.close();
  });

  const reached = (path: string) => seen.filter((request) => request.path === path).length;

  it('refuses a variant without a price before forwarding, and bills the others at their own price', async () => {
    const registered = await images.http('/api/v1/auth/register', {
      body: { email: uniqueEmail('images'), password: 'attack password' },
    });
    const userId = registered.body.data.user.id as string;
    await images.app.get(LedgerService).credit(userId, 5_000_000, 'admin_adjustment', 'test', `test:${userId}`);
    const key = (await images.http('/api/v1/keys', { token: registered.body.data.token, body: { name: 'k' } })).body
      .data.key as string;
    const image = (body: Record<string, unknown>) =>
      images.http('/v1/images/generations', { token: key, body: { model: 'img', prompt: 'a cat', ...body } });
    const noPrice = await image({ quality: 'low', size: '1024x1536' });
    expect(noPrice.status).toBe(400);
    expect(noPrice.body.error.param).toBe('size');
    expect((await image({ quality: 'ultra' })).body.error.param).toBe('quality');
    expect(reached('/oa/v1/images/generations')).toBe(0);
    const high = await image({ quality: 'high', size: '1024x1536' });
    expect(high.status).toBe(200);
    expect(Number(high.headers.get('x-switchyard-cost'))).toBe(0.3);
    // No variant named: the first listed is written into the request, and billed.
    const plain = await image({});
    expect(plain.status).toBe(200);
    expect(Number(plain.headers.get('x-switchyard-cost'))).toBe(0.01);
    expect(seen.at(-1)!.body).toMatchObject({ quality: 'low', size: '1024x1024' });
    for (let i = 0; i < 200 && images.app.get(ReservationService).unwrittenSettlements > 0; i += 1) await sleep(25);
    await images.app.get(ReservationService).flushSettlements();
    await images.app.get(UsageRecorder).flush();
    const [ledger] = await images.database.dataSource.query(
      `SELECT COALESCE(-sum(amount_micros), 0)::bigint AS debits FROM ledger_entries WHERE user_id = $1 AND kind = 'usage'`,
      [userId],
    );
    expect(Number(ledger.debits)).toBe(310_000);
    expect((await images.app.get(ReconciliationService).reconcile(null, userId)).drifts).toEqual([]);
  });
});
