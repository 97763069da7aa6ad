import { mkdtempSync, writeFileSync } from 'node:fs';
import { LedgerService, ReconciliationService, ReservationService, UsageRecorder } from '../src/modules/usage';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ReservationsRepository } from '../src/modules/usage/ledger/reservations.repository';
import { FakeMeteredUpstream, IGNORED_OUTPUT, SLOW_PIECE } from './support/fake-metered-upstream';
import { startTestApp, TestApp, uniqueEmail } from './support/test-app';

/**
 * The money-attack suite (docs/budgets.md): every finding of the billing review as a rule, each test written as
 * the attacker's request and failing on the code the review attacked. Prices: 1 µ per input token, 2 µ per output
 * token; the fake upstream's usage is exact (support/fake-metered-upstream.ts).
 */
const LIMIT = 1000;
const IN = 1;
const OUT = 2;

function catalog(upstream: string): string {
  const chat = (id: string, extra = '') =>
    `  - { id: ${id}, provider: up, type: text, methods: [chat_completions, completions, responses], maxOutputTokens: ${LIMIT}, pricing: { inputPerMTok: ${IN}, outputPerMTok: ${OUT} }${extra} }\n`;
  return (
    `providers:\n  - { id: up, type: openai, baseUrl: "${upstream}", apiKey: x }\n` +
    'models:\n' +
    [
      'm-honest',
      'm-ignores',
      'm-zero',
      'm-nousage',
      'm-tools',
      'm-reasoning',
      'm-refusal',
      'm-responses-fc',
      'm-stall',
      'm-fail',
    ]
      .map((id) => chat(id))
      .join('') +
    chat('m-long', ', contextLength: 20000, upstreamModel: m-honest') +
    `  - { id: m-default, provider: up, upstreamModel: m-honest, type: text, methods: [chat_completions], pricing: { inputPerMTok: ${IN}, outputPerMTok: ${OUT} } }\n` +
    `  - { id: m-reasoner, provider: up, upstreamModel: m-honest, type: text, methods: [chat_completions], maxOutputTokens: ${LIMIT}, maxTokensParam: max_completion_tokens, pricing: { inputPerMTok: ${IN}, outputPerMTok: ${OUT} } }\n` +
    `  - { id: e-embed, provider: up, type: embedding, methods: [embeddings], pricing: { inputPerMTok: ${IN} } }\n`
  );
}

const micros = (cost: number) => Math.round(cost * 1e6);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('money attacks: every served call is paid for', () => {
  const twoInstances = Boolean(process.env.DATABASE_URL);
  const fake = new FakeMeteredUpstream();
  let apps: TestApp[] = [];
  let app: Awaited<ReturnType<typeof startTestApp>>;

  beforeAll(async () => {
    await fake.start();
    const file = join(mkdtempSync(join(tmpdir(), 'sy-money-')), 'models.yaml');
    writeFileSync(file, catalog(fake.url));
    app = await startTestApp({ signupCredit: 0, modelsConfig: file });
    apps = [app];
    // Two instances on one PostgreSQL server (CI's second pass), so leases and batches of both meet.
    if (twoInstances) apps.push(await startTestApp({ signupCredit: 0, modelsConfig: file }, app.testDatabase));
  });
  afterAll(async () => {
    for (const running of apps.slice(1)) await running.close();
    await app?.close();
    await fake.stop();
  });

  async function newUser(creditMicros: number) {
    const registered = await app.http('/api/v1/auth/register', {
      body: { email: uniqueEmail('attack'), password: 'attack password' },
    });
    const session = registered.body.data.token as string;
    const userId = registered.body.data.user.id as string;
    if (creditMicros > 0)
      await app.app.get(LedgerService).credit(userId, creditMicros, 'admin_adjustment', 'test', `test:${userId}`);
    const created = (await app.http('/api/v1/keys', { token: session, body: { name: 'attack key' } })).body.data;
    return { session, userId, key: created.key as string, keyId: created.id as string };
  }

  /** Every instance's queued settlements and usage records written. */
  async function flushed() {
    for (const running of apps) {
      for (let i = 0; i < 200 && running.app.get(ReservationService).unwrittenSettlements > 0; i += 1) await sleep(25);
      await running.app.get(ReservationService).flushSettlements();
      await running.app.get(UsageRecorder).flush();
    }
  }

  /** The user's money once every call has settled and every lease gone back (leases retire after 2 s unused). */
  async function money(userId: string) {
    await flushed();
    const db = app.database.dataSource;
    const read = () =>
      db.query(
        'SELECT credits_micros::bigint AS credits, debits_micros::bigint AS debits, reserved_micros::bigint AS reserved FROM balances WHERE user_id = $1',
        [userId],
      );
    let [balance] = await read();
    for (let i = 0; i < 100 && Number(balance?.reserved ?? 0) > 0; i += 1) {
      await sleep(50);
      [balance] = await read();
    }
    const [records] = await db.query(
      'SELECT count(*)::int AS calls, COALESCE(sum(cost_micros), 0)::bigint AS cost, count(DISTINCT call_id)::int AS ids FROM usage_records WHERE user_id = $1',
      [userId],
    );
    const [ledger] = await db.query(
      `SELECT COALESCE(-sum(amount_micros), 0)::bigint AS debits FROM ledger_entries WHERE user_id = $1 AND kind = 'usage'`,
      [userId],
    );
    return {
      credits: Number(balance?.credits ?? 0),
      debits: Number(balance?.debits ?? 0),
      reserved: Number(balance?.reserved ?? 0),
      ledgerDebits: Number(ledger.debits),
      records: records.calls as number,
      recordCost: Number(records.cost),
      distinctCallIds: records.ids as number,
    };
  }

  async function noDrift(userId: string) {
    await flushed();
    const report = await app.app.get(ReconciliationService).reconcile(null, userId);
    expect(report.drifts).toEqual([]);
    return report;
  }

  const post = (token: string, path: string, body: unknown, headers: Record<string, string> = {}, on: TestApp = app) =>
    on.http(path, { token, body, headers });
  const ask = (text = 'How much is this?') => [{ role: 'user', content: text }];
  /** The fake's prompt count for `ask(text)`: a quarter of its bytes, plus 3 for the message. */
  const promptOf = (text = 'How much is this?') => 3 + Math.ceil(Buffer.byteLength(text) / 4);

  describe('caller ids are never money keys', () => {
    it("bills each call once when a busy key repeats one X-Request-Id in bursts, and another tenant's calls in the same batches too", async () => {
      const attacker = await newUser(5_000_000);
      const honest = await newUser(5_000_000);
      const costs = { attacker: 0, honest: 0 };
      let served = 0;
      for (let burst = 0; burst < 4; burst += 1) {
        const calls = Array.from({ length: 40 }, (_, i) =>
          post(
            attacker.key,
            '/v1/chat/completions',
            { model: 'm-honest', max_tokens: 5, messages: ask(`burst ${burst} call ${i}`) },
            { 'x-request-id': 'same-id' },
            apps[i % apps.length],
          ).then((res) => {
            expect(res.status).toBe(200);
            expect(res.headers.get('x-request-id')).toBe('same-id');
            costs.attacker += micros(res.body.usage.cost);
            served += 1;
          }),
        );
        const others = Array.from({ length: 5 }, (_, i) =>
          post(
            honest.key,
            '/v1/chat/completions',
            { model: 'm-honest', max_tokens: 5, messages: ask(`honest ${burst}-${i}`) },
            {},
            apps[i % apps.length],
          ).then((res) => {
            expect(res.status).toBe(200);
            costs.honest += micros(res.body.usage.cost);
          }),
        );
        await Promise.all([...calls, ...others]);
      }
      expect(served).toBe(160);
      const a = await money(attacker.userId);
      expect(a).toMatchObject({
        debits: costs.attacker,
        ledgerDebits: costs.attacker,
        reserved: 0,
        records: 160,
        recordCost: costs.attacker,
        distinctCallIds: 160,
      });
      let expected = 0;
      for (let burst = 0; burst < 4; burst += 1)
        for (let i = 0; i < 40; i += 1) expected += promptOf(`burst ${burst} call ${i}`) * IN + 5 * OUT;
      expect(costs.attacker).toBe(expected);
      const h = await money(honest.userId);
      expect(h).toMatchObject({ debits: costs.honest, ledgerDebits: costs.honest, reserved: 0, records: 20 });
      expect(costs.honest).toBeGreaterThan(0);
      // The bursts made the key busy enough to draw on leases: the rule held on that path too.
      const [{ leases }] = await app.database.dataSource.query(
        'SELECT count(*)::int AS leases FROM reservations WHERE user_id = $1 AND lease',
        [attacker.userId],
      );
      expect(leases).toBeGreaterThanOrEqual(1);
      await noDrift(attacker.userId);
      await noDrift(honest.userId);
    });

    it('answers a client that retries with its own request id, and bills both calls', async () => {
      const user = await newUser(1_000_000);
      const first = await post(
        user.key,
        '/v1/chat/completions',
        { model: 'm-honest', max_tokens: 3, messages: ask() },
        { 'x-request-id': 'retry-1' },
      );
      const again = await post(
        user.key,
        '/v1/chat/completions',
        { model: 'm-honest', max_tokens: 3, messages: ask() },
        { 'x-request-id': 'retry-1' },
      );
      expect([first.status, again.status]).toEqual([200, 200]);
      expect(first.headers.get('x-switchyard-call-id')).not.toBe(again.headers.get('x-switchyard-call-id'));
      const state = await money(user.userId);
      expect(state).toMatchObject({ debits: micros(first.body.usage.cost) * 2, records: 2, distinctCallIds: 2 });
    });

    it('shows each tenant only its own money, whatever request id another tenant reuses', async () => {
      const victim = await newUser(1_000_000);
      const attacker = await newUser(1_000_000);
      const paid = await post(
        victim.key,
        '/v1/chat/completions',
        { model: 'm-honest', max_tokens: 40, messages: ask('a long and expensive question '.repeat(20)) },
        { 'x-request-id': 'shared-id' },
      );
      const cheap = await post(
        attacker.key,
        '/v1/chat/completions',
        { model: 'm-honest', max_tokens: 1, messages: ask('hi') },
        { 'x-request-id': 'shared-id' },
      );
      await flushed();
      const mine = (await app.http('/api/v1/usage/me/activity', { token: attacker.session })).body.data.items;
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        requestId: 'shared-id',
        id: cheap.headers.get('x-switchyard-call-id'),
        cost: cheap.body.usage.cost,
        money: { charged: cheap.body.usage.cost },
      });
      const theirs = (await app.http('/api/v1/usage/me/activity', { token: victim.session })).body.data.items;
      expect(theirs[0]).toMatchObject({
        requestId: 'shared-id',
        cost: paid.body.usage.cost,
        money: { charged: paid.body.usage.cost },
      });
      expect(paid.body.usage.cost).not.toBe(cheap.body.usage.cost);
    });

    it('makes request ids of its own that are random, not a counter another caller could claim ahead', async () => {
      const user = await newUser(1_000_000);
      const ids = await Promise.all(
        Array.from({ length: 20 }, () =>
          post(user.key, '/v1/chat/completions', { model: 'm-honest', max_tokens: 1, messages: ask() }).then((res) =>
            res.headers.get('x-request-id')!,
          ),
        ),
      );
      for (const id of ids) expect(id).toMatch(/^req_[0-9a-f]{24}$/);
      // The old ids shared a per-process prefix of 16 hex digits and counted up in the last 8.
      expect(new Set(ids.map((id) => id.slice(4, 20))).size).toBe(20);
    });
  });

  describe('every input form is bounded', () => {
    it('refuses 16,000 token ids of embeddings on a key whose total limit is 0, and bills them all otherwise', async () => {
      const user = await newUser(1_000_000);
      const ids = Array.from({ length: 16_000 }, (_, i) => i % 50_000);
      await app.http(`/api/v1/keys/${user.keyId}/limits`, { method: 'PUT', token: user.session, body: { total: 0 } });
      const before = fake.received.length;
      const refused = await post(user.key, '/v1/embeddings', { model: 'e-embed', input: [ids] });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'spend_limit_exceeded', limit: 'total', scope: 'key' });
      expect(fake.received.length).toBe(before);
      await app.http(`/api/v1/keys/${user.keyId}/limits`, {
        method: 'PUT',
        token: user.session,
        body: { total: null },
      });
      const served = await post(user.key, '/v1/embeddings', { model: 'e-embed', input: [ids] });
      expect(served.status).toBe(200);
      expect(served.body.usage.prompt_tokens).toBe(16_000);
      expect(micros(served.body.usage.cost)).toBe(16_000 * IN);
      expect(await money(user.userId)).toMatchObject({ debits: 16_000 * IN, ledgerDebits: 16_000 * IN });
    });

    it('reserves the input of a legacy completion given as token ids, and refuses it when the budget cannot cover it', async () => {
      const poor = await newUser(3000);
      const prompt = Array.from({ length: 5000 }, (_, i) => i);
      const refused = await post(poor.key, '/v1/completions', { model: 'm-honest', prompt, max_tokens: 10 });
      expect(refused.status).toBe(403);
      const rich = await newUser(1_000_000);
      const served = await post(rich.key, '/v1/completions', { model: 'm-honest', prompt, max_tokens: 10 });
      expect(served.status).toBe(200);
      expect(micros(served.body.usage.cost)).toBe(5000 * IN + 10 * OUT);
      await flushed();
      const [item] = (await app.http('/api/v1/usage/me/activity', { token: rich.session })).body.data.items;
      expect(micros(item.money.reserved)).toBeGreaterThanOrEqual(5000 * IN + 10 * OUT);
    });

    it('refuses a priced call whose input comes to nothing rather than serve it free', async () => {
      const user = await newUser(1_000_000);
      for (const input of ['', []]) {
        const res = await post(user.key, '/v1/embeddings', { model: 'e-embed', input });
        expect(res.status).toBe(400);
        expect(res.body.error.type).toBe('invalid_request_error');
      }
    });

    it('measures deeply nested input without a server error, and never serves it free', async () => {
      const user = await newUser(1_000_000);
      let nested: unknown = [1, 2, 3];
      for (let i = 0; i < 3000; i += 1) nested = [nested];
      const res = await post(user.key, '/v1/embeddings', { model: 'e-embed', input: nested });
      expect(res.status).toBeLessThan(500);
      if (res.status === 200) expect(micros(res.body.usage.cost)).toBeGreaterThan(0);
    });

    it('prices what it cannot see at the context length, or refuses it, and refuses background responses', async () => {
      const user = await newUser(1_000_000);
      const unknown = await post(user.key, '/v1/responses', {
        model: 'm-honest',
        input: 'go on',
        previous_response_id: 'resp_earlier',
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.error.param).toBe('input');
      const file = await post(user.key, '/v1/chat/completions', {
        model: 'm-honest',
        messages: [{ role: 'user', content: [{ type: 'file', file: { file_id: 'file-1' } }] }],
      });
      expect(file.status).toBe(400);
      const bounded = await post(user.key, '/v1/responses', {
        model: 'm-long',
        input: 'go on',
        previous_response_id: 'resp_earlier',
        max_output_tokens: 20,
      });
      expect(bounded.status).toBe(200);
      // The call's settlement is queued when its answer has ended, a moment after the client has it (a call drawn on
      // a lease has no reservation row before): wait until the activity shows its money, then read the hold.
      let item: { money: { reserved: number; outcome: string } } | undefined;
      for (let tries = 0; tries < 200; tries += 1) {
        await flushed();
        [item] = (await app.http('/api/v1/usage/me/activity', { token: user.session })).body.data.items;
        if (item && item.money.outcome !== 'none' && item.money.outcome !== 'open') break;
        await sleep(25);
      }
      expect(micros(item!.money.reserved)).toBeGreaterThanOrEqual(20_000 * IN + 20 * OUT);
      expect((await post(user.key, '/v1/responses', { model: 'm-honest', input: 'x', background: true })).status).toBe(
        400,
      );
    });
  });

  describe('the bound reserved is the bound sent', () => {
    it('sends the model limit when the caller asks for more or for nothing, and the ledger takes what the answer says', async () => {
      const user = await newUser(10_000_000);
      let expected = 0;
      for (const [marker, extra] of [
        ['asks-16000', { max_tokens: 16_000 }],
        ['asks-none', {}],
        ['asks-null', { max_tokens: null }],
      ] as const) {
        const res = await post(user.key, '/v1/chat/completions', {
          model: 'm-honest',
          messages: ask(marker),
          ...extra,
        });
        expect(res.status).toBe(200);
        expect(fake.find(marker)!.body.max_tokens).toBe(LIMIT);
        expect(res.body.usage.completion_tokens).toBe(LIMIT);
        expect(micros(res.body.usage.cost)).toBe(promptOf(marker) * IN + LIMIT * OUT);
        expect(res.headers.get('x-switchyard-cost')).toBe(String(res.body.usage.cost));
        expected += micros(res.body.usage.cost);
      }
      // Without maxOutputTokens the gateway's default bound (4,096) goes up, not the provider's own default.
      const fallback = await post(user.key, '/v1/chat/completions', {
        model: 'm-default',
        messages: ask('default-limit'),
      });
      expect(fake.find('default-limit')!.body.max_tokens).toBe(4096);
      expect(fallback.body.usage.completion_tokens).toBe(4096);
      expected += micros(fallback.body.usage.cost);
      expect(await money(user.userId)).toMatchObject({
        debits: expected,
        ledgerDebits: expected,
        recordCost: expected,
      });
    });

    it("leaves a caller's own lower limit byte for byte, and bounds each field given, whatever its spelling", async () => {
      const user = await newUser(10_000_000);
      const own = JSON.stringify({ model: 'm-honest', max_tokens: 50, messages: ask('own-limit') });
      const res = await app.http('/v1/chat/completions', { token: user.key, rawBody: own });
      expect(res.status).toBe(200);
      expect(fake.find('own-limit')!.raw).toBe(own);
      const completion = await post(user.key, '/v1/chat/completions', {
        model: 'm-honest',
        max_completion_tokens: 99_999,
        messages: ask('marker-mct'),
      });
      expect(completion.status).toBe(200);
      expect(fake.find('marker-mct')!.body).toMatchObject({ max_completion_tokens: LIMIT });
      expect(fake.find('marker-mct')!.body.max_tokens).toBeUndefined();
      const escaped = `{"model":"m-honest","max\\u005ftokens":16000,"messages":[{"role":"user","content":"escaped-key"}]}`;
      expect((await app.http('/v1/chat/completions', { token: user.key, rawBody: escaped })).status).toBe(200);
      expect(fake.find('escaped-key')!.body.max_tokens).toBe(LIMIT);
      await post(user.key, '/v1/chat/completions', { model: 'm-reasoner', messages: ask('marker-reasoner') });
      expect(fake.find('marker-reasoner')!.body).toMatchObject({ max_completion_tokens: LIMIT });
      await post(user.key, '/v1/responses', { model: 'm-honest', input: 'responses-bound' });
      expect(fake.find('responses-bound')!.body.max_output_tokens).toBe(LIMIT);
      await post(user.key, '/v1/completions', { model: 'm-honest', prompt: 'legacy-bound' });
      expect(fake.find('legacy-bound')!.body.max_tokens).toBe(16);
      await noDrift(user.userId);
    });

    it('multiplies the bound by n and best_of, and refuses limits that are not whole numbers', async () => {
      const user = await newUser(10_000_000);
      const three = await post(user.key, '/v1/chat/completions', {
        model: 'm-honest',
        n: 3,
        messages: ask('marker-three'),
      });
      expect(three.body.usage.completion_tokens).toBe(3 * LIMIT);
      expect(micros(three.body.usage.cost)).toBe(promptOf('marker-three') * IN + 3 * LIMIT * OUT);
      await flushed();
      const [item] = (await app.http('/api/v1/usage/me/activity', { token: user.session })).body.data.items;
      expect(micros(item.money.reserved)).toBeGreaterThanOrEqual(3 * LIMIT * OUT);
      expect(item.money.charged).toBe(three.body.usage.cost);
      const best = await post(user.key, '/v1/completions', {
        model: 'm-honest',
        prompt: 'marker-best',
        best_of: 4,
        n: 2,
        max_tokens: 10,
      });
      expect(best.body.usage.completion_tokens).toBe(40);
      for (const bad of [{ max_tokens: 'lots' }, { max_tokens: 1.5 }, { max_tokens: -1 }, { n: 1000 }, { n: '3' }])
        expect(
          (await post(user.key, '/v1/chat/completions', { model: 'm-honest', messages: ask(), ...bad })).status,
        ).toBe(400);
      await noDrift(user.userId);
    });

    it('sends the lower bound a small budget covers, and charges within it', async () => {
      const user = await newUser(600);
      const res = await post(user.key, '/v1/chat/completions', {
        model: 'm-honest',
        max_tokens: 16_000,
        messages: ask('capped-call'),
      });
      expect(res.status).toBe(200);
      const cap = Number(res.headers.get('x-switchyard-max-tokens-capped'));
      expect(cap).toBeGreaterThan(0);
      expect(fake.find('capped-call')!.body.max_tokens).toBe(cap);
      expect(res.body.usage.completion_tokens).toBe(cap);
      const state = await money(user.userId);
      expect(state.debits).toBe(micros(res.body.usage.cost));
      expect(state.debits).toBeLessThanOrEqual(600);
    });

    it('streams with the bound sent and the usage chunk stating the debit', async () => {
      const user = await newUser(10_000_000);
      const res = await fetch(`${app.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'm-honest',
          stream: true,
          stream_options: { include_usage: true },
          max_tokens: 16_000,
          messages: ask('stream-bound'),
        }),
      });
      const text = await res.text();
      expect(fake.find('stream-bound')!.body.max_tokens).toBe(LIMIT);
      const usage = JSON.parse(
        text
          .split('\n\n')
          .filter((frame) => frame.includes('"usage":{'))
          .at(-1)!
          .slice(6),
      ).usage;
      expect(usage.completion_tokens).toBe(LIMIT);
      // A Responses stream that reaches its bound ends with response.incomplete, which carries the usage.
      const responses = await fetch(`${app.url}/v1/responses`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm-honest', stream: true, input: 'responses-stream-bound' }),
      });
      const events = (await responses.text()).split('\n\n').filter(Boolean);
      expect(fake.find('responses-stream-bound')!.body.max_output_tokens).toBe(LIMIT);
      const last = JSON.parse(events.at(-1)!.split('data: ')[1]);
      expect(last).toMatchObject({ type: 'response.incomplete', response: { usage: { output_tokens: LIMIT } } });
      expect((await money(user.userId)).debits).toBe(micros(usage.cost) + micros(last.response.usage.cost));
    });
  });

  describe('what was served is billed', () => {
    it('charges a provider that ignores the bound its whole usage from the free balance, and says exactly what it debited', async () => {
      const rich = await newUser(10_000_000);
      const full = await post(rich.key, '/v1/chat/completions', { model: 'm-ignores', messages: ask('ignored') });
      expect(full.body.usage.completion_tokens).toBe(IGNORED_OUTPUT);
      const cost = promptOf('ignored') * IN + IGNORED_OUTPUT * OUT;
      expect(micros(full.body.usage.cost)).toBe(cost);
      expect(full.headers.get('x-switchyard-cost')).toBe(String(full.body.usage.cost));
      expect(await money(rich.userId)).toMatchObject({
        debits: cost,
        ledgerDebits: cost,
        recordCost: cost,
        reserved: 0,
      });
      // An account that cannot pay the overrun: money-attacks-overrun.e2e-spec.ts (its loss is the operator's).
      await noDrift(rich.userId);
    });

    it('charges the prompt when the completion is empty, and the answer says so', async () => {
      const user = await newUser(10_000_000);
      const prompt = 'a prompt of some length '.repeat(800);
      const plain = await post(user.key, '/v1/chat/completions', { model: 'm-zero', messages: ask(prompt) });
      expect(plain.body.usage.completion_tokens).toBe(0);
      expect(micros(plain.body.usage.cost)).toBe(promptOf(prompt) * IN);
      const echo = await post(user.key, '/v1/completions', { model: 'm-zero', prompt, echo: true, max_tokens: 0 });
      expect(echo.status).toBe(200);
      expect(micros(echo.body.usage.cost)).toBe(Math.ceil(Buffer.byteLength(prompt) / 4) * IN);
      expect((await money(user.userId)).debits).toBe(micros(plain.body.usage.cost) + micros(echo.body.usage.cost));
      await noDrift(user.userId);
    });

    it('estimates an answer that comes without usage rather than serve it free', async () => {
      const user = await newUser(10_000_000);
      const plain = await post(user.key, '/v1/chat/completions', {
        model: 'm-nousage',
        max_tokens: 100,
        messages: ask('no usage json'),
      });
      expect(plain.status).toBe(200);
      const charged = micros(Number(plain.headers.get('x-switchyard-cost')));
      // The input estimate and the 100 tokens of text relayed.
      expect(charged).toBeGreaterThanOrEqual(100 * OUT);
      const stream = await fetch(`${app.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${user.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm-nousage', stream: true, max_tokens: 100, messages: ask('no usage stream') }),
      });
      await stream.text();
      const state = await money(user.userId);
      expect(state.debits).toBeGreaterThanOrEqual(charged + 100 * OUT);
      await noDrift(user.userId);
    });

    it('charges nothing for a call the provider refused', async () => {
      const user = await newUser(1_000_000);
      expect((await post(user.key, '/v1/chat/completions', { model: 'm-fail', messages: ask() })).status).toBe(502);
      expect(await money(user.userId)).toMatchObject({ debits: 0, reserved: 0, records: 1 });
    });

    /** Starts a stream, reads until `frames` data frames arrived, then hangs up. */
    async function hangUpAfter(
      key: string,
      body: object,
      frames: number,
      path = '/v1/chat/completions',
    ): Promise<void> {
      const controller = new AbortController();
      const res = await fetch(`${app.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ stream: true, ...body }),
        signal: controller.signal,
      });
      const reader = res.body!.getReader();
      let text = '';
      while ((text.match(/data: /g) ?? []).length < frames)
        text += new TextDecoder().decode((await reader.read()).value);
      controller.abort();
      await sleep(200);
    }

    async function lastRecord(userId: string) {
      await flushed();
      const [row] = await app.database.dataSource.query(
        'SELECT status, prompt_tokens, completion_tokens, cost_micros::int AS cost FROM usage_records WHERE user_id = $1 ORDER BY started_at DESC LIMIT 1',
        [userId],
      );
      return row as { status: string; prompt_tokens: number; completion_tokens: number; cost: number };
    }

    it.each([
      ['tool-call arguments', 'm-tools', '/v1/chat/completions', { messages: ask('tools please') }],
      ['reasoning', 'm-reasoning', '/v1/chat/completions', { messages: ask('think please') }],
      ['a refusal', 'm-refusal', '/v1/chat/completions', { messages: ask('refuse please') }],
      ['Responses function-call arguments', 'm-responses-fc', '/v1/responses', { input: 'call a function please' }],
    ])('charges a client that hangs up after %s the input and what was relayed', async (_what, model, path, body) => {
      const user = await newUser(10_000_000);
      await hangUpAfter(user.key, { model, ...body }, 12, path);
      const row = await lastRecord(user.userId);
      expect(row.status).toBe('client_closed');
      expect(row.prompt_tokens).toBeGreaterThan(0);
      // At least the ten or so pieces read before hanging up, two tokens each.
      expect(row.completion_tokens).toBeGreaterThanOrEqual((10 * SLOW_PIECE.length) / 4);
      expect(row.cost).toBe(row.prompt_tokens * IN + row.completion_tokens * OUT);
      expect((await money(user.userId)).debits).toBe(row.cost);
      await noDrift(user.userId);
    });

    it('charges at least the input estimate once the provider accepted the call, even with nothing relayed', async () => {
      const user = await newUser(10_000_000);
      await hangUpAfter(user.key, { model: 'm-stall', messages: ask('stalled question '.repeat(40)) }, 1);
      const row = await lastRecord(user.userId);
      expect(row).toMatchObject({ status: 'client_closed', completion_tokens: 0 });
      expect(row.cost).toBe(row.prompt_tokens * IN);
      expect(row.prompt_tokens).toBeGreaterThanOrEqual(
        Math.ceil(Buffer.byteLength('stalled question '.repeat(40)) / 4),
      );
      await noDrift(user.userId);
    });
  });

  it('reconciliation reports a book that disagrees with itself', async () => {
    const user = await newUser(1_000_000);
    const res = await post(user.key, '/v1/chat/completions', { model: 'm-honest', max_tokens: 3, messages: ask() });
    const callId = res.headers.get('x-switchyard-call-id')!;
    await noDrift(user.userId);
    const db = app.database.dataSource;
    await db.query('UPDATE usage_records SET cost_micros = cost_micros + 1 WHERE call_id = $1', [callId]);
    await db.query(
      `INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key) VALUES ($1, 5, 'admin_adjustment', 'tamper', $2)`,
      [user.userId, `tamper:${callId}`],
    );
    try {
      const report = await app.app.get(ReconciliationService).reconcile(null, user.userId);
      expect(report.drifts.map((drift) => drift.kind).sort()).toEqual(['balance_credits', 'call_record']);
      expect(report.drifts.find((drift) => drift.kind === 'call_record')).toMatchObject({
        callId,
        expected: micros(res.body.usage.cost),
        actual: micros(res.body.usage.cost) + 1,
      });
    } finally {
      // CI reconciles this database afterwards: the books are put right again.
      await db.query('UPDATE usage_records SET cost_micros = cost_micros - 1 WHERE call_id = $1', [callId]);
      await db.query('DELETE FROM ledger_entries WHERE idempotency_key = $1', [`tamper:${callId}`]);
    }
    await noDrift(user.userId);
  });

  describe('settlement never drops a call', () => {
    it('writes every settlement of calls made while the database refuses them, once it answers again', async () => {
      const user = await newUser(10_000_000);
      const ledgers = apps.map((running) => running.app.get(ReservationsRepository));
      const originals = ledgers.map((ledger) => ({
        many: ledger.settleMany.bind(ledger),
        leased: ledger.settleLeased.bind(ledger),
      }));
      let failures = 0;
      const blip = () => {
        failures += 1;
        return Promise.reject(Object.assign(new Error('Connection terminated unexpectedly'), { code: undefined }));
      };
      // The database "blips" for a second: longer than the three tries over ~150 ms the old code gave a batch.
      const until = Date.now() + 1000;
      ledgers.forEach((ledger, i) => {
        jest
          .spyOn(ledger, 'settleMany')
          .mockImplementation((items) => (Date.now() < until ? blip() : originals[i].many(items)));
        jest
          .spyOn(ledger, 'settleLeased')
          .mockImplementation((items) => (Date.now() < until ? blip() : originals[i].leased(items)));
      });
      let total = 0;
      try {
        for (let burst = 0; burst < 3; burst += 1) {
          const answers = await Promise.all(
            Array.from({ length: 30 }, (_, i) =>
              post(
                user.key,
                '/v1/chat/completions',
                { model: 'm-honest', max_tokens: 2, messages: ask(`blip ${burst}-${i}`) },
                {},
                apps[i % apps.length],
              ),
            ),
          );
          for (const res of answers) total += micros(res.body.usage.cost);
        }
        const during = await money(user.userId);
        expect(during).toMatchObject({ debits: total, ledgerDebits: total, reserved: 0, records: 90 });
      } finally {
        jest.restoreAllMocks();
      }
      expect(failures).toBeGreaterThan(3);
      await noDrift(user.userId);
    });
  });
  // Random concurrent mixes of every attack: money-attacks-overrun.e2e-spec.ts (they overrun past empty balances).
});
