import { randomUUID } from 'node:crypto';
import { LedgerService, ReservationService } from '.';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { UsageRecorder } from './usage-recorder';
import { usageRecord } from '../../../test/support/usage-record';

const CHAT = { model: 'demo-chat', messages: [{ role: 'user', content: 'Hello budget' }] };

async function newUser(app: TestApp, creditMicros: number) {
  const registered = await app.http('/api/v1/auth/register', {
    body: { email: uniqueEmail('money'), password: 'money password' },
  });
  const session = registered.body.data.token as string;
  const userId = registered.body.data.user.id as string;
  if (creditMicros > 0)
    await app.app.get(LedgerService).credit(userId, creditMicros, 'admin_adjustment', 'test', `test:${userId}`);
  const key = (await app.http('/api/v1/keys', { token: session, body: { name: 'money key' } })).body.data.key as string;
  return { session, userId, key };
}

/** The ledger once every call of this user has settled (settlement follows the answer by one round trip). */
async function ledgerState(app: TestApp, userId: string) {
  const deadline = Date.now() + 5000;
  for (;;) {
    const state = await readLedger(app, userId);
    if (state.reserved === 0 || Date.now() > deadline) return state;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function readLedger(app: TestApp, userId: string) {
  const [balance] = await app.database.dataSource.query(
    'SELECT credits_micros::bigint AS credits, debits_micros::bigint AS debits, reserved_micros::bigint AS reserved FROM balances WHERE user_id = $1',
    [userId],
  );
  const [ledger] = await app.database.dataSource.query(
    `SELECT COALESCE(sum(amount_micros) FILTER (WHERE amount_micros > 0), 0)::bigint AS credits,
            COALESCE(-sum(amount_micros) FILTER (WHERE amount_micros < 0), 0)::bigint AS debits FROM ledger_entries WHERE user_id = $1`,
    [userId],
  );
  return {
    credits: Number(balance.credits),
    debits: Number(balance.debits),
    reserved: Number(balance.reserved),
    ledgerCredits: Number(ledger.credits),
    ledgerDebits: Number(ledger.debits),
  };
}

// One app for the file (each test has users of its own); the concurrency cases add a second instance on a server.
let booted: Promise<TestApp> | undefined;
const firstApp = () => (booted ??= startTestApp({ signupCredit: 0 }));
afterAll(async () => (await booted)?.close());

describe('budgets', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await firstApp();
  });

  it('refuses a call the budget cannot cover with 403 budget_exhausted, as JSON even for a stream', async () => {
    const { key } = await newUser(app, 0);
    for (const stream of [false, true]) {
      const res = await app.http('/v1/chat/completions', { token: key, body: { ...CHAT, stream } });
      expect(res.status).toBe(403);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(res.body.error).toMatchObject({ code: 'budget_exhausted', type: 'permission_error', remainingBudget: 0 });
      expect(res.body.error.topUpUrl).toMatch(/\/billing$/);
    }
  });

  it('reports the summary: credits, spend and what remains, to the micro-unit', async () => {
    const { key, session, userId } = await newUser(app, 2_000_000);
    const first = await app.http('/v1/chat/completions', { token: key, body: CHAT });
    expect(first.status).toBe(200);
    const costMicros = Math.round(first.body.usage.cost * 1e6);
    // Settlement follows the answer (batched, within tens of milliseconds).
    const state = await ledgerState(app, userId);
    const summary = (await app.http('/api/v1/usage/me/summary', { token: session })).body.data;
    expect(summary).toMatchObject({
      maxBudget: 2,
      totalCost: costMicros / 1e6,
      remainingBudget: (2_000_000 - costMicros) / 1e6,
    });
    expect(state).toEqual({
      credits: 2_000_000,
      debits: costMicros,
      reserved: 0,
      ledgerCredits: 2_000_000,
      ledgerDebits: costMicros,
    });
  });

  it('lowers the output limit to what the budget covers and says so', async () => {
    // demo-chat: 0.5 per million input tokens, 1.5 per million output tokens, so 100 micro-units cover a short
    // prompt and a few dozen output tokens but not the default 4096.
    const { key } = await newUser(app, 100);
    const res = await app.http('/v1/chat/completions', { token: key, body: CHAT });
    expect(res.status).toBe(200);
    const cap = Number(res.headers.get('x-switchyard-max-tokens-capped'));
    expect(cap).toBeGreaterThan(0);
    expect(cap).toBeLessThan(100);
    expect(res.body.usage.completion_tokens).toBeLessThanOrEqual(cap);
    expect(res.body.usage.cost * 1e6).toBeLessThanOrEqual(100);
  });

  it('charges nothing for a call refused by validation upstream, and shows the money trace in the activity', async () => {
    const { key, session, userId } = await newUser(app, 1_000_000);
    const bad = await app.http('/v1/chat/completions', {
      token: key,
      body: { model: 'demo-chat', messages: 'not a list' },
    });
    expect(bad.status).toBe(400);
    const good = await app.http('/v1/chat/completions', { token: key, body: CHAT });
    await ledgerState(app, userId);
    await app.app.get(UsageRecorder).flush();
    const activity = (await app.http('/api/v1/usage/me/activity', { token: session })).body.data.items;
    expect(activity).toHaveLength(2);
    const [newest, oldest] = activity;
    expect(newest).toMatchObject({
      status: 'success',
      name: 'money key',
      model: 'demo-chat',
      cost: good.body.usage.cost,
      money: { outcome: 'settled', reason: 'success', charged: good.body.usage.cost },
    });
    expect(newest.money.reserved).toBeGreaterThanOrEqual(newest.money.charged);
    expect(oldest).toMatchObject({
      status: 'rejected',
      cost: 0,
      money: { outcome: 'released', charged: 0, reason: 'rejected' },
    });
    expect((await ledgerState(app, userId)).debits).toBe(Math.round(good.body.usage.cost * 1e6));
  });

  it('pages the activity with a cursor and sums the analytics exactly', async () => {
    const { key, session, userId } = await newUser(app, 5_000_000);
    for (let i = 0; i < 5; i += 1)
      await app.http('/v1/embeddings', { token: key, body: { model: 'demo-embedding', input: `text ${i}` } });
    await app.http('/v1/chat/completions', { token: key, body: CHAT });
    await app.app.get(UsageRecorder).flush();
    // The summary reads the balance, which the chat's settlement updates a batch interval after its answer.
    await ledgerState(app, userId);
    const first = (await app.http('/api/v1/usage/me/activity?limit=4', { token: session })).body.data;
    expect(first.items).toHaveLength(4);
    const second = (await app.http(`/api/v1/usage/me/activity?limit=4&cursor=${first.nextCursor}`, { token: session }))
      .body.data;
    expect(second.items).toHaveLength(2);
    expect(second.nextCursor).toBeNull();
    expect(new Set([...first.items, ...second.items].map((item: { id: string }) => item.id)).size).toBe(6);
    expect((await app.http('/api/v1/usage/me/activity?cursor=garbage', { token: session })).status).toBe(400);
    expect((await app.http('/api/v1/usage/me/activity?limit=1000', { token: session })).status).toBe(400);

    const summary = (await app.http('/api/v1/usage/me/summary', { token: session })).body.data;
    for (const groupBy of ['day', 'model', 'key']) {
      const analytics = (await app.http(`/api/v1/usage/me/analytics?groupBy=${groupBy}`, { token: session })).body.data;
      expect(analytics.totals.requests).toBe(6);
      expect(analytics.totals.cost).toBe(summary.totalCost);
    }
    const byModel = (await app.http('/api/v1/usage/me/analytics?groupBy=model', { token: session })).body.data.groups;
    expect(byModel.map((g: { key: string; requests: number }) => [g.key, g.requests])).toEqual([
      ['demo-chat', 1],
      ['demo-embedding', 5],
    ]);
    expect((await app.http('/api/v1/usage/me/analytics?groupBy=planet', { token: session })).status).toBe(400);
  });

  it('enforces an API key’s spend limits below the account budget, naming the limit that tripped', async () => {
    const { key, session } = await newUser(app, 1_000_000);
    const keyId = (await app.http('/api/v1/keys', { token: session })).body.data[0].id;
    const bad = await app.http(`/api/v1/keys/${keyId}/limits`, {
      method: 'PUT',
      token: session,
      body: { daily: -1, weekly: 'lots' },
    });
    expect(bad.status).toBe(400);
    const set = await app.http(`/api/v1/keys/${keyId}/limits`, {
      method: 'PUT',
      token: session,
      body: { daily: 0.0002, monthly: 0.5 },
    });
    expect(set.body.data.limits).toEqual({ total: null, daily: 0.0002, weekly: null, monthly: 0.5, perRequest: null });
    const statuses: number[] = [];
    let refusal: Record<string, unknown> | undefined;
    // Near the limit calls are capped to what is left (cheaper each time), so how many fit depends on whether
    // the previous settlement has landed; what must hold is that a refusal comes and the limit is never passed.
    for (let i = 0; i < 40 && !refusal; i += 1) {
      const res = await app.http('/v1/chat/completions', { token: key, body: { ...CHAT, max_tokens: 20 } });
      statuses.push(res.status);
      if (res.status === 403) refusal = res.body.error;
    }
    expect(statuses[0]).toBe(200);
    expect(statuses).toContain(403);
    await app.app.get(ReservationService).flushSettlements();
    const [{ spent }] = await app.database.dataSource.query(
      `SELECT COALESCE(sum(CASE WHEN status = 'open' THEN amount_micros ELSE settled_micros END), 0)::int AS spent FROM reservations WHERE api_key_id = $1`,
      [keyId],
    );
    expect(spent).toBeLessThanOrEqual(200);
    expect(refusal).toMatchObject({ code: 'spend_limit_exceeded', limit: 'daily', scope: 'key' });
    // The account itself still has budget: clearing the limit lets the key call again.
    await app.http(`/api/v1/keys/${keyId}/limits`, { method: 'PUT', token: session, body: { daily: null } });
    expect((await app.http('/v1/chat/completions', { token: key, body: { ...CHAT, max_tokens: 20 } })).status).toBe(
      200,
    );
    // A per-request maximum lowers the output limit.
    await app.http(`/api/v1/keys/${keyId}/limits`, { method: 'PUT', token: session, body: { perRequest: 0.00003 } });
    const capped = await app.http('/v1/chat/completions', { token: key, body: CHAT });
    expect(capped.status).toBe(200);
    expect(Number(capped.headers.get('x-switchyard-max-tokens-capped'))).toBeGreaterThan(0);
    expect(capped.body.usage.cost).toBeLessThanOrEqual(0.00003);
    // Another user cannot touch this key's limits.
    const other = await newUser(app, 0);
    expect(
      (await app.http(`/api/v1/keys/${keyId}/limits`, { method: 'PUT', token: other.session, body: { total: 1 } }))
        .status,
    ).toBe(404);
  });

  it('settles a reservation exactly once, and an expired one (its instance died) from what was recorded', async () => {
    const { userId } = await newUser(app, 1_000_000);
    const budget = app.app.get(ReservationService);
    const reservation = await budget.reserve({
      id: randomUUID(),
      requestId: `crash-${userId}`,
      userId,
      apiKeyId: null,
      oauthClientId: null,
      worstMicros: 300_000,
      minimumMicros: 1000,
      inputEstimateMicros: 1234,
    });
    expect(reservation.amountMicros).toBe(300_000);
    expect((await readLedger(app, userId)).reserved).toBe(300_000);
    // The instance "dies": nobody settles. Once expired, the sweeper (on any instance) bills the recorded input.
    await app.database.dataSource.query(
      `UPDATE reservations SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [reservation.id],
    );
    expect(await budget.sweepExpired()).toBeGreaterThanOrEqual(1);
    expect(await ledgerState(app, userId)).toMatchObject({ debits: 1234, reserved: 0, ledgerDebits: 1234 });
    // A late settlement by the original caller changes nothing.
    expect(await budget.settle(reservation, 250_000, 'success')).toBe(0);
    expect((await ledgerState(app, userId)).debits).toBe(1234);

    const twice = await budget.reserve({
      id: randomUUID(),
      requestId: `twice-${userId}`,
      userId,
      apiKeyId: null,
      oauthClientId: null,
      worstMicros: 5000,
      minimumMicros: 1,
      inputEstimateMicros: 0,
    });
    const results = await Promise.all([
      budget.settle(twice, 4000, 'success'),
      budget.settle(twice, 4000, 'success'),
      budget.settle(twice, 4000, 'success'),
    ]);
    expect(results.sort()).toEqual([0, 0, 4000]);
    // As the gateway does, the call's usage record says what it was charged (CI reconciles this database).
    app.app.get(UsageRecorder).record(usageRecord(userId, new Date(), { callId: twice.id, costMicros: 4000 }));
    await app.app.get(UsageRecorder).flush();
    expect((await ledgerState(app, userId)).debits).toBe(1234 + 4000);
  });
});

describe('money safety under concurrency', () => {
  const twoInstances = Boolean(process.env.DATABASE_URL);
  let apps: TestApp[] = [];

  beforeAll(async () => {
    const first = await firstApp();
    apps = [first];
    // Two instances share one PostgreSQL when there is a server; the embedded database has one owner.
    // They share Redis too (CI sets REDIS_URL with DATABASE_URL): changed limits reach both at once.
    if (twoInstances)
      apps.push(await startTestApp({ signupCredit: 0, redisPrefix: first.config.redisPrefix }, first.testDatabase));
  });
  afterAll(async () => {
    for (const app of apps.slice(1)) await app.close();
  });

  it(`never spends past the budget: 100 concurrent calls, ${twoInstances ? 'two instances' : 'one instance'}, 20 rounds`, async () => {
    const figures: string[] = [];
    for (let round = 0; round < 20; round += 1) {
      // Each call may cost up to ~90 µ (40 output tokens at 1.5/MTok plus its input), so about 20-40 fit.
      const budgetMicros = 2_000;
      const { key, userId } = await newUser(apps[0], budgetMicros);
      const results = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          apps[i % apps.length].http('/v1/chat/completions', {
            token: key,
            body: { ...CHAT, max_tokens: 40, messages: [{ role: 'user', content: `concurrent call ${i}` }] },
          }),
        ),
      );
      const ok = results.filter((r) => r.status === 200);
      const refused = results.filter((r) => r.status === 403);
      const other = results
        .filter((r) => r.status !== 200 && r.status !== 403)
        .map((r) => `${r.status} ${JSON.stringify(r.body)}`);
      expect(other).toEqual([]);
      expect(refused.every((r) => r.body.error.code === 'budget_exhausted')).toBe(true);
      const state = await ledgerState(apps[0], userId);
      const spent = ok.reduce((sum, r) => sum + Math.round(r.body.usage.cost * 1e6), 0);
      expect(ok.length).toBeGreaterThan(5);
      expect(state.debits).toBe(spent);
      expect(state.debits).toBeLessThanOrEqual(budgetMicros);
      expect(state.reserved).toBe(0);
      expect(state.ledgerDebits).toBe(state.debits);
      expect(state.credits - state.debits).toBeGreaterThanOrEqual(0);
      figures.push(
        `round ${round + 1}: 100 calls, budget ${budgetMicros} µ, ${ok.length} served, spent ${state.debits} µ, overspend ${Math.max(0, state.debits - budgetMicros)} µ`,
      );
    }
    console.log(
      `money safety (${twoInstances ? 'two instances, PostgreSQL' : 'one instance, embedded'}):\n${figures.join('\n')}`,
    );
  });

  it(`bills a busy key's calls drawn on leases exactly once (${twoInstances ? 'two instances' : 'one instance'}), gives the leases back, and a limit change stops them at once`, async () => {
    const { key, userId, session } = await newUser(apps[0], 50_000_000);
    const keyId = (await apps[0].http('/api/v1/keys', { token: session })).body.data[0].id as string;
    const costs: number[] = [];
    // Bursts of 40 concurrent calls: the first reserve in the database, and that demand gets each instance a lease.
    for (let burst = 0; burst < 8; burst += 1) {
      const results = await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          apps[i % apps.length].http('/v1/chat/completions', {
            token: key,
            body: { ...CHAT, max_tokens: 30, messages: [{ role: 'user', content: `lease call ${burst}-${i}` }] },
          }),
        ),
      );
      expect(results.map((r) => r.status).filter((status) => status !== 200)).toEqual([]);
      costs.push(...results.map((r) => Math.round(r.body.usage.cost * 1e6)));
    }
    const db = apps[0].database.dataSource;
    const [leases] = await db.query(`SELECT count(*)::int AS n FROM reservations WHERE user_id = $1 AND lease`, [
      userId,
    ]);
    expect(leases.n).toBeGreaterThanOrEqual(1);
    // Leases idle for two seconds are given back: nothing stays reserved, and every call was debited once.
    const deadline = Date.now() + 10_000;
    while ((await readLedger(apps[0], userId)).reserved !== 0 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 100));
    const spent = costs.reduce((sum, cost) => sum + cost, 0);
    const state = await readLedger(apps[0], userId);
    expect(state).toMatchObject({ reserved: 0, debits: spent, ledgerDebits: spent });
    const [calls] = await db.query(
      `SELECT count(*)::int AS n, COALESCE(sum(settled_micros), 0)::bigint AS settled, count(*) FILTER (WHERE status = 'open')::int AS open
         FROM reservations WHERE user_id = $1 AND NOT lease`,
      [userId],
    );
    expect({ n: calls.n, settled: Number(calls.settled), open: calls.open }).toEqual({
      n: costs.length,
      settled: spent,
      open: 0,
    });
    const [returned] = await db.query(
      `SELECT count(*) FILTER (WHERE status = 'open')::int AS open, COALESCE(sum(settled_micros), 0)::bigint AS billed FROM reservations WHERE user_id = $1 AND lease`,
      [userId],
    );
    expect({ open: returned.open, billed: Number(returned.billed) }).toEqual({ open: 0, billed: 0 });

    // A busy key again, then a daily limit at what it spent today: the very next call is refused on every instance.
    // A lease follows 20 calls within one clock second on an instance and is taken off the call's path, so a burst
    // that straddles a second, or ends before the lease's row is written, leaves none yet: burst again (bounded).
    const openLeases = async () =>
      (
        await db.query(
          `SELECT count(*) FILTER (WHERE status = 'open')::int AS open FROM reservations WHERE user_id = $1 AND lease`,
          [userId],
        )
      )[0].open as number;
    let again = 0;
    for (let burst = 0; burst < 6 && again === 0; burst += 1) {
      await Promise.all(
        Array.from({ length: 40 }, (_, i) =>
          apps[i % apps.length].http('/v1/chat/completions', { token: key, body: { ...CHAT, max_tokens: 30 } }),
        ),
      );
      again = await openLeases();
    }
    expect(again).toBeGreaterThanOrEqual(1);
    expect(
      (await apps[0].http(`/api/v1/keys/${keyId}/limits`, { method: 'PUT', token: session, body: { daily: 0.000001 } }))
        .status,
    ).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (const app of apps) {
      const refused = await app.http('/v1/chat/completions', { token: key, body: { ...CHAT, max_tokens: 30 } });
      expect(refused.status).toBe(403);
      expect(refused.body.error).toMatchObject({ code: 'spend_limit_exceeded', limit: 'daily', scope: 'key' });
    }
    // The retired leases are given back at once (not after an idle timeout): nothing stays held.
    const until = Date.now() + 1500;
    let open = -1;
    while (open !== 0 && Date.now() < until) {
      [{ open }] = await db.query(
        `SELECT count(*) FILTER (WHERE status = 'open')::int AS open FROM reservations WHERE user_id = $1 AND lease`,
        [userId],
      );
      if (open) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(open).toBe(0);
  });
});
