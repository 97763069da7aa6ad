import type { IncomingMessage, ServerResponse } from 'node:http';
import { fakeProviders } from '../../../../test/support/local-server';
import { startTestApp, type TestApp, uniqueEmail } from '../../../../test/support/test-app';
import { ReservationService, UsageRecorder } from '../../usage';

/**
 * Calls routed over deployments, through the app (docs/routing.md): two OpenAI-compatible providers of different
 * prices serve the same models; the fake upstream answers, fails, rate-limits or hangs per `provider/model`. On
 * the embedded database or PostgreSQL (DATABASE_URL), with the breakers in Redis when REDIS_URL is set.
 */

type Behaviour = 'ok' | 'fail' | 'rate' | 'hang';

function fakeUpstream() {
  const behaviour = new Map<string, Behaviour>();
  /** Attempts per `provider/model`, and the bodies received. */
  const attempts = new Map<string, number>();
  const bodies: { key: string; body: string }[] = [];
  const answer = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const provider = req.url!.split('/')[1];
    const body = JSON.parse(raw || '{}') as { model: string };
    const key = `${provider}/${body.model}`;
    attempts.set(key, (attempts.get(key) ?? 0) + 1);
    bodies.push({ key, body: raw });
    const mode = behaviour.get(key) ?? 'ok';
    if (mode === 'hang') return;
    if (mode === 'fail') {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'overloaded', type: 'server_error' } }));
      return;
    }
    if (mode === 'rate') {
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit_error' } }));
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        id: 'chatcmpl-1',
        object: 'chat.completion',
        created: 1,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: `from ${provider}` }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 1000, completion_tokens: 100, total_tokens: 1100 },
      }),
    );
  };
  return { answer, behaviour, attempts, bodies, count: (key: string) => attempts.get(key) ?? 0 };
}

const CHEAP = { inputPerMTok: 1, outputPerMTok: 2 };
const DEAR = { inputPerMTok: 10, outputPerMTok: 20 };
/** What a call (1,000 in, 100 out) costs at each, in micro-units. */
const CHEAP_COST = 1_000 * 1 + 100 * 2;
const DEAR_COST = 1_000 * 10 + 100 * 20;

/** A model of two deployments, cheap and dear, on the upstream model `upstream` (each test its own: its own breakers). */
const pair = (id: string, upstream: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: 'text',
  methods: ['chat_completions'],
  contextLength: 8_000,
  pricing: CHEAP,
  deployments: [
    { provider: 'cheap', upstreamModel: upstream, weight: 1 },
    { provider: 'dear', upstreamModel: upstream, weight: 1, pricing: DEAR },
  ],
  ...extra,
});

describe('calls routed over deployments (breakers, preferences, billing at the deployment that answered)', () => {
  const fake = fakeUpstream();
  let providers: Awaited<ReturnType<typeof fakeProviders>>;
  let app: TestApp;
  let key: string;
  let session: string;

  beforeAll(async () => {
    providers = await fakeProviders(fake.answer, (origin) => ({
      providers: [
        { id: 'cheap', type: 'openai', baseUrl: `${origin}/cheap/v1`, apiKey: 'sk-cheap-secret', timeoutMs: 1000 },
        { id: 'dear', type: 'openai', baseUrl: `${origin}/dear/v1`, apiKey: 'sk-dear-secret', timeoutMs: 1000 },
        { id: 'elsewhere', type: 'openai', baseUrl: `${origin}/elsewhere/v1` },
      ],
      models: [
        pair('duo', 'duo'),
        pair('flaky', 'flaky'),
        pair('limited', 'limited'),
        pair('hangs', 'hangs'),
        pair('shared', 'shared'),
        pair('spread', 'spread', {
          deployments: [
            { provider: 'cheap', upstreamModel: 'spread', weight: 3 },
            { provider: 'dear', upstreamModel: 'spread', weight: 1, pricing: DEAR },
          ],
        }),
        { id: 'same', provider: 'cheap', type: 'text', methods: ['chat_completions'], pricing: CHEAP },
      ],
    }));
    app = await startTestApp({ modelsConfig: providers.catalogPath, signupCredit: 50 });
    session = (
      await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('route'), password: 'routed calls' } })
    ).body.data.token;
    key = (await app.http('/api/v1/keys', { token: session, body: { name: 'k' } })).body.data.key;
  });
  beforeEach(() => fake.behaviour.clear());
  afterAll(async () => {
    await app?.close();
    await providers?.close();
  });

  const chat = (model: string, extra: Record<string, unknown> = {}) =>
    app.http('/v1/chat/completions', {
      token: key,
      body: { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 100, ...extra },
    });

  /** The call's debit and usage record, once settled and written. */
  async function books(callId: string) {
    await app.app.get(ReservationService).flushSettlements();
    await app.app.get(UsageRecorder).flush();
    const db = app.database.dataSource;
    const [debit] = await db.query(
      `SELECT -amount_micros::bigint AS micros FROM ledger_entries WHERE idempotency_key = $1`,
      [`usage:${callId}`],
    );
    const [record] = await db.query(
      `SELECT provider, upstream_model, cost_micros::bigint AS cost FROM usage_records WHERE call_id = $1`,
      [callId],
    );
    const [held] = await db.query(`SELECT amount_micros::bigint AS micros FROM reservations WHERE id = $1`, [callId]);
    return {
      debit: Number(debit?.micros),
      provider: record?.provider as string,
      upstreamModel: record?.upstream_model as string,
      cost: Number(record?.cost),
      held: held ? Number(held.micros) : null,
    };
  }

  it('bills the deployment that answered, reserved at the dearer one, and names it', async () => {
    fake.behaviour.set('dear/duo', 'fail');
    const served = await chat('duo', { provider: { order: ['dear', 'cheap'] } });
    expect(served.status).toBe(200);
    expect(served.headers.get('x-switchyard-provider')).toBe('cheap');
    expect(served.body.choices[0].message.content).toBe('from cheap');
    expect(fake.count('dear/duo')).toBe(1);
    const callId = served.headers.get('x-switchyard-call-id')!;
    const { debit, provider, upstreamModel, cost, held } = await books(callId);
    expect({ debit, provider, upstreamModel, cost }).toEqual({
      debit: CHEAP_COST,
      provider: 'cheap',
      upstreamModel: 'duo',
      cost: CHEAP_COST,
    });
    // The request log (the activity) names the deployment that answered.
    const activity = await app.http('/api/v1/usage/me/activity?limit=5', { token: session });
    expect(activity.body.data.items.find((item: { id: string }) => item.id === callId)).toMatchObject({
      provider: 'cheap',
      upstreamModel: 'duo',
    });
    expect(Number(served.headers.get('x-switchyard-cost'))).toBeCloseTo(CHEAP_COST / 1e6, 9);
    // The hold covered the dearer deployment's worst case: at least its 100 output tokens at 20 per million
    // (at the cheap one's prices the whole call's worst is about a tenth of that).
    expect(held).toBeGreaterThanOrEqual(100 * 20);
  });

  it('never bills below the deployment that answered, whatever the caller’s preferences say', async () => {
    // The caller prefers the cheap one; it fails: the dear one answers, and the call costs the dear one's price.
    fake.behaviour.set('cheap/duo', 'fail');
    const served = await chat('duo', { provider: { order: ['cheap'], sort: 'price' } });
    expect(served.headers.get('x-switchyard-provider')).toBe('dear');
    const books1 = await books(served.headers.get('x-switchyard-call-id')!);
    expect(books1).toMatchObject({ debit: DEAR_COST, provider: 'dear', cost: DEAR_COST });
    // `only` the cheap one, which fails: no other deployment is tried, and nothing is charged.
    const only = await chat('duo', { provider: { only: ['cheap'] } });
    expect(only.status).toBe(502);
    expect((await books(only.headers.get('x-switchyard-call-id')!)).debit).toBeNaN();
    fake.behaviour.delete('cheap/duo');
    // A max_price the dear one exceeds: only the cheap one may serve, billed at its price.
    for (let i = 0; i < 4; i += 1) {
      const capped = await chat('duo', { provider: { max_price: { prompt: 5, completion: '5' } } });
      expect(capped.headers.get('x-switchyard-provider')).toBe('cheap');
      expect((await books(capped.headers.get('x-switchyard-call-id')!)).debit).toBe(CHEAP_COST);
    }
  });

  it('refuses preferences it cannot honour with a 400 naming the field, before anything is sent or held', async () => {
    const sent = fake.bodies.length;
    const cases: [Record<string, unknown>, string][] = [
      [{ only: ['nowhere'] }, 'provider.only[0]'],
      [{ only: ['elsewhere'] }, 'provider.only'],
      [{ ignore: ['cheap', 'dear'] }, 'provider.ignore'],
      [{ order: ['cheap'], ignore: ['cheap'] }, 'provider.order[0]'],
      [{ max_price: { prompt: 0.5 } }, 'provider.max_price'],
      [{ max_price: { prompt: -1 } }, 'provider.max_price.prompt'],
      [{ sort: 'random' }, 'provider.sort'],
      [{ data_collection: 'deny' }, 'provider.data_collection'],
    ];
    for (const [provider, param] of cases) {
      const refused = await chat('duo', { provider });
      expect({ status: refused.status, param: refused.body.error.param }).toEqual({ status: 400, param });
      expect(refused.body.error.type).toBe('invalid_request_error');
    }
    expect((await chat('duo', { provider: 'cheap' })).body.error.param).toBe('provider');
    expect(fake.bodies.length).toBe(sent);
  });

  it('never forwards `provider` upstream, on the byte-for-byte path too', async () => {
    const served = await chat('same', { provider: { only: ['cheap'] } });
    expect(served.status).toBe(200);
    const last = fake.bodies[fake.bodies.length - 1];
    expect(last.key).toBe('cheap/same');
    expect(JSON.parse(last.body)).not.toHaveProperty('provider');
    expect(JSON.parse(last.body).messages).toEqual([{ role: 'user', content: 'hi' }]);
  });

  it('takes `provider` through /v1/messages, and answers its 400s in Anthropic’s shape', async () => {
    const messages = (provider: unknown) =>
      app.http('/v1/messages', {
        headers: { 'x-api-key': key },
        body: { model: 'duo', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }], provider },
      });
    for (let i = 0; i < 3; i += 1) {
      const served = await messages({ only: ['dear'] });
      expect(served.status).toBe(200);
      expect(served.headers.get('x-switchyard-provider')).toBe('dear');
      expect(served.body.type).toBe('message');
    }
    expect(JSON.parse(fake.bodies[fake.bodies.length - 1].body)).not.toHaveProperty('provider');
    const refused = await messages({ only: ['nowhere'] });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(refused.body.error.message).toContain('provider.only[0]');
  });

  it('leaves a failing deployment within three attempts, fails no call, and returns to it after its cooldown', async () => {
    fake.behaviour.set('cheap/flaky', 'fail');
    for (let i = 0; i < 20; i += 1) {
      const served = await chat('flaky');
      expect(served.status).toBe(200);
      expect(served.headers.get('x-switchyard-provider')).toBe('dear');
    }
    // Three consecutive faults open its breaker: no more attempts while it is open.
    expect(fake.count('cheap/flaky')).toBe(3);
    const listed = await app.http('/v1/models/flaky', { token: key });
    expect(listed.body.deployments).toEqual([
      { provider: 'cheap', status: 'open', weight: 1 },
      { provider: 'dear', status: 'closed', weight: 1 },
    ]);
    expect(JSON.stringify(listed.body)).not.toMatch(/sk-cheap|127\.0\.0\.1/);
    const metrics = await (await fetch(`${app.url}/metrics`)).text();
    expect(metrics).toMatch(/switchyard_deployment_breaker_state\{deployment="cheap\/flaky"\} 2/);
    // It recovers; after its 5 s cooldown one call probes it, and it takes calls again.
    fake.behaviour.delete('cheap/flaky');
    const deadline = Date.now() + 10_000;
    while (fake.count('cheap/flaky') === 3 && Date.now() < deadline) {
      expect((await chat('flaky')).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(fake.count('cheap/flaky')).toBe(4);
    expect((await app.http('/v1/models/flaky', { token: key })).body.deployments[0].status).toBe('closed');
  }, 20_000);

  it('cools a rate-limiting deployment down for its Retry-After without failing a call, then tries it again', async () => {
    fake.behaviour.set('cheap/limited', 'rate');
    for (let i = 0; i < 10; i += 1) expect((await chat('limited')).headers.get('x-switchyard-provider')).toBe('dear');
    // One 429 sets its cooldown (Retry-After: 1 s): the other calls never try it meanwhile.
    expect(fake.count('cheap/limited')).toBe(1);
    fake.behaviour.delete('cheap/limited');
    const deadline = Date.now() + 5_000;
    while (fake.count('cheap/limited') === 1 && Date.now() < deadline) {
      expect((await chat('limited')).status).toBe(200);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(fake.count('cheap/limited')).toBe(2);
    // Every deployment rate limiting: the caller hears 429 with the provider's Retry-After.
    fake.behaviour.set('cheap/limited', 'rate');
    fake.behaviour.set('dear/limited', 'rate');
    const limited = await chat('limited', { provider: { order: ['cheap', 'dear'] } });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('1');
  }, 15_000);

  it('leaves a hanging deployment after its timeouts open its breaker', async () => {
    fake.behaviour.set('cheap/hangs', 'hang');
    // Each call asks for it first: each waits for its timeout (1 s) until three timeouts open its breaker.
    for (let i = 0; i < 8; i += 1) {
      const served = await chat('hangs', { provider: { order: ['cheap'] } });
      expect(served.status).toBe(200);
      expect(served.headers.get('x-switchyard-provider')).toBe('dear');
    }
    expect(fake.count('cheap/hangs')).toBe(3);
    expect((await app.http('/v1/models/hangs', { token: key })).body.deployments[0].status).toBe('open');
  }, 20_000);

  it('spreads a weighted model’s calls by weight (3:1, within a tolerance)', async () => {
    const served: Record<string, number> = { cheap: 0, dear: 0 };
    for (let i = 0; i < 160; i += 1) served[(await chat('spread')).headers.get('x-switchyard-provider')!] += 1;
    // Expected 120:40; a binomial's three standard deviations (±16) hold 99.7% of runs.
    expect(served.cheap).toBeGreaterThanOrEqual(104);
    expect(served.cheap).toBeLessThanOrEqual(136);
  }, 30_000);

  /** A second instance on the same database and Redis (PostgreSQL only: the embedded database has one owner). */
  const twoInstances = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
  (twoInstances ? it : it.skip)(
    'two instances agree on an open breaker within a second',
    async () => {
      const two = await startTestApp(
        { modelsConfig: providers.catalogPath, redisPrefix: app.config.redisPrefix },
        (app as TestApp & { testDatabase: Parameters<typeof startTestApp>[1] }).testDatabase,
      );
      try {
        fake.behaviour.set('cheap/shared', 'fail');
        // Instance one sees the faults and opens the breaker…
        while (fake.count('cheap/shared') < 3) expect((await chat('shared')).status).toBe(200);
        const opened = Date.now();
        // …and instance two stops sending it calls within a second, without a fault of its own.
        const onTwo = () =>
          two.http('/v1/chat/completions', {
            token: key,
            body: { model: 'shared', messages: [{ role: 'user', content: 'hi' }], max_tokens: 100 },
          });
        let status = '';
        while (Date.now() - opened < 1_000) {
          status = (await two.http('/v1/models/shared', { token: key })).body.deployments[0].status;
          if (status === 'open') break;
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        expect(status).toBe('open');
        for (let i = 0; i < 10; i += 1) expect((await onTwo()).headers.get('x-switchyard-provider')).toBe('dear');
        expect(fake.count('cheap/shared')).toBe(3);
      } finally {
        await two.close();
      }
    },
    30_000,
  );
});
