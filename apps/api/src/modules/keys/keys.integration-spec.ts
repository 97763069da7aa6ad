import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { UsageRecorder } from '../usage';
import { KeysService } from './keys.service';

// One app for the file's HTTP tests (booting one costs more than most tests here); the graceful shutdown tests below
// stop theirs, so each boots its own.
let shared: TestApp;
beforeAll(async () => {
  shared = await startTestApp();
});
afterAll(() => shared?.close());

describe('API keys over HTTP', () => {
  let app: TestApp;
  let alice: string;
  let bob: string;

  beforeAll(async () => {
    app = shared;
    alice = (
      await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('alice'), password: 'alice password' } })
    ).body.data.token;
    bob = (await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('bob'), password: 'bob password 1' } }))
      .body.data.token;
  });

  it('creates a key shown once (sy- and 48 base62 characters) and lists it masked', async () => {
    const created = await app.http('/api/v1/keys', { token: alice, body: { name: '  My laptop  ' } });
    expect(created.status).toBe(201);
    const { key, id, name, status } = created.body.data;
    expect(key).toMatch(/^sy-[0-9A-Za-z]{48}$/);
    expect([name, status]).toEqual(['My laptop', 'Active']);
    const listed = (await app.http('/api/v1/keys', { token: alice })).body.data;
    const entry = listed.find((k: { id: string }) => k.id === id);
    expect(entry.token).toBe(`${key.slice(0, 12)}…${key.slice(-4)}`);
    expect(JSON.stringify(listed)).not.toContain(key);
    expect(Object.keys(entry).sort()).toEqual([
      'createdAt',
      'dashboard',
      'expiresAt',
      'id',
      'lastUsedAt',
      'limits',
      'name',
      'requestsPerMinute',
      'spend',
      'status',
      'token',
    ]);
    expect(entry.limits).toEqual({ total: null, daily: null, weekly: null, monthly: null, perRequest: null });
    expect([entry.expiresAt, entry.dashboard, entry.spend]).toEqual([null, false, { thisMonth: 0, allTime: 0 }]);
    const stored = await app.database.dataSource.query('SELECT key_hash FROM api_keys WHERE id = $1', [id]);
    expect(stored[0].key_hash).not.toContain(key.slice(3));
  });

  it('validates the name and rejects unknown fields', async () => {
    for (const body of [{}, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 'ok', scopes: ['all'] }]) {
      const res = await app.http('/api/v1/keys', { token: alice, body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('hides other users’ keys: listing, revoking (404, exactly like a missing key)', async () => {
    const mine = (await app.http('/api/v1/keys', { token: alice, body: { name: 'private' } })).body.data;
    expect((await app.http('/api/v1/keys', { token: bob })).body.data).toEqual([]);
    const theirs = await app.http(`/api/v1/keys/${mine.id}`, { method: 'DELETE', token: bob });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('KEY_NOT_FOUND');
    const missing = await app.http('/api/v1/keys/00000000-0000-0000-0000-000000000000', {
      method: 'DELETE',
      token: bob,
    });
    expect(missing.body).toMatchObject({ error: { code: 'KEY_NOT_FOUND' }, message: theirs.body.message });
    expect((await app.http('/api/v1/keys/not-a-uuid', { method: 'DELETE', token: bob })).status).toBe(404);
    expect((await app.http('/v1/models', { token: mine.key })).status).toBe(200);
  });

  it('revokes at once, idempotently, and records when a key was last used', async () => {
    const key = (await app.http('/api/v1/keys', { token: alice, body: { name: 'short-lived' } })).body.data;
    expect((await app.http('/v1/models', { token: key.key })).status).toBe(200);
    await app.app.get(KeysService).flushTouches();
    const used = (await app.http('/api/v1/keys', { token: alice })).body.data.find(
      (k: { id: string }) => k.id === key.id,
    );
    expect(used.lastUsedAt).not.toBeNull();
    expect((await app.http(`/api/v1/keys/${key.id}`, { method: 'DELETE', token: alice })).status).toBe(200);
    expect((await app.http(`/api/v1/keys/${key.id}`, { method: 'DELETE', token: alice })).body.data.status).toBe(
      'Revoked',
    );
    expect((await app.http('/v1/models', { token: key.key })).status).toBe(403);
  });

  it('takes limits, a rate and an expiry at creation', async () => {
    const expiresAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
    const created = await app.http('/api/v1/keys', {
      token: alice,
      body: { name: 'capped', daily: 1.5, monthly: 20, perRequest: 0.25, requestsPerMinute: 30, expiresAt },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.expiresAt).toBe(expiresAt);
    const entry = (await app.http('/api/v1/keys', { token: alice })).body.data.find(
      (k: { id: string }) => k.id === created.body.data.id,
    );
    expect(entry).toMatchObject({
      status: 'Active',
      expiresAt,
      requestsPerMinute: 30,
      limits: { total: null, daily: 1.5, weekly: null, monthly: 20, perRequest: 0.25 },
    });
  });

  it('refuses an expiry in the past or too far ahead, and negative, huge or fractional-micro limits', async () => {
    const bad = [
      { expiresAt: new Date(Date.now() - 60_000).toISOString() },
      { expiresAt: new Date(Date.now() + 3661 * 86_400_000).toISOString() },
      { expiresAt: 'tomorrow' },
      { daily: -1 },
      { total: 1_000_001 },
      { monthly: 1e-7 },
      { perRequest: 'a lot' },
      { requestsPerMinute: 0 },
      { requestsPerMinute: 2.5 },
    ];
    for (const fields of bad) {
      const res = await app.http('/api/v1/keys', { token: alice, body: { name: 'bad', ...fields } });
      expect([JSON.stringify(fields), res.status]).toEqual([JSON.stringify(fields), 400]);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual(Object.keys(fields));
    }
    expect((await app.http('/api/v1/keys', { token: alice })).body.data.some((k: any) => k.name === 'bad')).toBe(false);
  });

  it('renames a key (trimmed, validated); another user’s key is 404 and keeps its name', async () => {
    const key = (await app.http('/api/v1/keys', { token: alice, body: { name: 'old name' } })).body.data;
    const renamed = await app.http(`/api/v1/keys/${key.id}`, {
      method: 'PATCH',
      token: alice,
      body: { name: '  CI runner  ' },
    });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({ id: key.id, name: 'CI runner', status: 'Active' });
    for (const body of [{ name: '' }, { name: 'x'.repeat(101) }, {}, { name: 'ok', daily: 1 }]) {
      const res = await app.http(`/api/v1/keys/${key.id}`, { method: 'PATCH', token: alice, body });
      expect(res.status).toBe(400);
    }
    const theirs = await app.http(`/api/v1/keys/${key.id}`, { method: 'PATCH', token: bob, body: { name: 'mine' } });
    expect([theirs.status, theirs.body.error.code]).toEqual([404, 'KEY_NOT_FOUND']);
    const limits = await app.http(`/api/v1/keys/${key.id}/limits`, { method: 'PUT', token: bob, body: { daily: 1 } });
    expect(limits.status).toBe(404);
    const listed = (await app.http('/api/v1/keys', { token: alice })).body.data.find((k: any) => k.id === key.id);
    expect([listed.name, listed.limits.daily]).toEqual(['CI runner', null]);
    expect((await app.http('/v1/models', { token: key.key })).status).toBe(200);
  });

  it('lists each key’s spend, this month and all time, from one grouped read', async () => {
    const spender = (await app.http('/api/v1/keys', { token: alice, body: { name: 'spender' } })).body.data;
    const idle = (await app.http('/api/v1/keys', { token: alice, body: { name: 'idle' } })).body.data;
    for (let i = 0; i < 2; i += 1) {
      const call = await app.http('/v1/chat/completions', {
        token: spender.key,
        body: { model: 'demo-chat', max_tokens: 16, messages: [{ role: 'user', content: 'hello' }] },
      });
      expect(call.status).toBe(200);
    }
    // Settlement is written after the answer (in batches): read the spend once both calls are charged, not held.
    for (let tries = 0; ; tries += 1) {
      const [{ open }] = await app.database.dataSource.query(
        `SELECT count(*) FILTER (WHERE status = 'open')::int AS open FROM reservations WHERE api_key_id = $1`,
        [spender.id],
      );
      if (open === 0) break;
      if (tries > 200) throw new Error('the calls were never settled');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const listed = (await app.http('/api/v1/keys', { token: alice })).body.data;
    const spent = listed.find((k: any) => k.id === spender.id).spend;
    expect(spent.thisMonth).toBeGreaterThan(0);
    expect(spent.allTime).toBe(spent.thisMonth);
    expect(listed.find((k: any) => k.id === idle.id).spend).toEqual({ thisMonth: 0, allTime: 0 });
    // Older reservations count all time, not this month.
    await app.database.dataSource.query(
      `UPDATE reservations SET created_at = created_at - interval '40 days' WHERE api_key_id = $1`,
      [spender.id],
    );
    const later = (await app.http('/api/v1/keys', { token: alice })).body.data.find((k: any) => k.id === spender.id);
    expect(later.spend).toEqual({ thisMonth: 0, allTime: spent.allTime });
    // Bob sees none of it.
    expect((await app.http('/api/v1/keys', { token: bob })).body.data).toEqual([]);
  });

  it('refuses an expired key exactly like a revoked one, though the gateway had it cached', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const key = (await app.http('/api/v1/keys', { token: alice, body: { name: 'brief', expiresAt } })).body.data;
    expect((await app.http('/v1/models', { token: key.key })).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, Date.parse(expiresAt) - Date.now() + 50));
    const expired = await app.http('/v1/models', { token: key.key });
    const revokedKey = (await app.http('/api/v1/keys', { token: alice, body: { name: 'revoked' } })).body.data;
    await app.http(`/api/v1/keys/${revokedKey.id}`, { method: 'DELETE', token: alice });
    const revoked = await app.http('/v1/models', { token: revokedKey.key });
    expect(expired.status).toBe(revoked.status);
    expect(expired.body).toEqual(revoked.body);
    const listed = (await app.http('/api/v1/keys', { token: alice })).body.data.find((k: any) => k.id === key.id);
    expect(listed.status).toBe('Expired');
  });

  it('needs a signed-in user', async () => {
    expect((await app.http('/api/v1/keys')).status).toBe(401);
  });
});

describe('requests per minute per key', () => {
  // Two instances on one database and one Redis (CI's second pass); one instance on the embedded database.
  const twoInstances = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
  const apps: TestApp[] = [];
  beforeAll(async () => {
    apps.push(shared);
    if (twoInstances) apps.push(await startTestApp({ redisPrefix: shared.config.redisPrefix }, shared.testDatabase));
  });
  afterAll(async () => {
    // The file's app closes after every describe.
    for (const app of apps.slice(1)) await app.close();
  });

  it(`answers 429 with Retry-After past the key's rate, counted across instances (${twoInstances ? 'two' : 'one'}), and other keys go on`, async () => {
    const [first] = apps;
    const session = (
      await first.http('/api/v1/auth/register', { body: { email: uniqueEmail('rpm'), password: 'rpm password' } })
    ).body.data.token;
    const limited = (await first.http('/api/v1/keys', { token: session, body: { name: 'limited' } })).body.data;
    const other = (await first.http('/api/v1/keys', { token: session, body: { name: 'other' } })).body.data.key;
    const set = await first.http(`/api/v1/keys/${limited.id}/limits`, {
      method: 'PUT',
      token: session,
      body: { requestsPerMinute: 4 },
    });
    expect(set.body.data.requestsPerMinute).toBe(4);
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1)
      statuses.push((await apps[i % apps.length].http('/v1/models', { token: limited.key })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
    const refused = await apps[apps.length - 1].http('/v1/models', { token: limited.key });
    expect(refused.body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limited' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect((await first.http('/v1/models', { token: other })).status).toBe(200);
    // Back to the server's default (no limit here): the change reaches every instance's cached key.
    await first.http(`/api/v1/keys/${limited.id}/limits`, {
      method: 'PUT',
      token: session,
      body: { requestsPerMinute: null },
    });
    expect((await apps[apps.length - 1].http('/v1/models', { token: limited.key })).status).toBe(200);
  });
});

describe('a graceful shutdown', () => {
  it('writes every queued usage record before it stops', async () => {
    const app = await startTestApp();
    const session = (
      await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('flush'), password: 'flush password' } })
    ).body.data.token;
    const key = (await app.http('/api/v1/keys', { token: session, body: { name: 'k' } })).body.data.key;
    const calls = 25;
    await Promise.all(
      Array.from({ length: calls }, () =>
        app.http('/v1/embeddings', { token: key, body: { model: 'demo-embedding', input: 'x' } }),
      ),
    );
    expect(app.app.get(UsageRecorder).pending).toBeGreaterThan(0);
    // Close Nest (which flushes the recorder, then closes TypeORM's pool), then reconnect to count.
    await app.app.close();
    await app.database.dataSource.initialize();
    const [{ count }] = await app.database.dataSource.query('SELECT count(*)::int AS count FROM usage_records');
    expect(count).toBe(calls);
    await app.database.close();
    await app.testDatabase.drop();
  });

  it.each([
    ['lets a stream in flight finish, refuses new calls meanwhile, then records and settles it', 10, 'success'],
    ['cuts a stream still running when the grace period is over, and still records and settles it', 0, 'client_closed'],
  ])('%s', async (_name, shutdownGraceSeconds, status) => {
    const app = await startTestApp({ signupCredit: 5, shutdownGraceSeconds });
    const session = (
      await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('drain'), password: 'drain password' } })
    ).body.data.token;
    const key = (await app.http('/api/v1/keys', { token: session, body: { name: 'k' } })).body.data.key;
    const response = await fetch(`${app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'demo-chat',
        stream: true,
        max_tokens: 120,
        messages: [{ role: 'user', content: 'Tell me a long story about draining' }],
      }),
    });
    const reader = response.body!.getReader();
    let text = new TextDecoder().decode((await reader.read()).value);
    // SIGTERM's path: Nest closes while the stream is still running.
    const closed = app.app.close();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const refused = await app.http('/v1/models', { token: key }).catch(() => null);
    if (refused) expect(refused.status).toBe(503); // (or the listener is already closed: also a refusal)
    const ready = await app.http('/readyz').catch(() => null);
    if (ready) expect(ready.body.status).toBe('shutting_down'); // a load balancer stops sending traffic
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(status === 'success');
    await closed;
    await app.database.dataSource.initialize();
    const records = await app.database.dataSource.query(
      `SELECT status FROM usage_records WHERE method = 'chat_completions'`,
    );
    expect(records).toEqual([{ status }]);
    const [open] = await app.database.dataSource.query(
      `SELECT count(*)::int AS n FROM reservations WHERE status = 'open'`,
    );
    expect(open.n).toBe(0);
    await app.database.close();
    await app.testDatabase.drop();
  });
});
