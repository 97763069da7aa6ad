import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { UsageRecorder } from '../usage';

/** The dashboard's own gateway, /dashboard/v1: the session cookie calls as the user's one key named "Dashboard". */
describe('the dashboard gateway on the session', () => {
  let app: TestApp;
  let session: { token: string; cookie: string; csrf: string };

  const signUp = async (name: string) => {
    const res = await app.http('/api/v1/auth/register', {
      body: { email: uniqueEmail(name), password: `${name} password` },
    });
    return {
      token: res.body.data.token as string,
      cookie: `sy_session=${res.cookies.sy_session}; sy_csrf=${res.cookies.sy_csrf}`,
      csrf: res.cookies.sy_csrf,
    };
  };
  const chat = (content: string, extra: Record<string, unknown> = {}) => ({
    model: 'demo-chat',
    max_tokens: 16,
    messages: [{ role: 'user', content }],
    ...extra,
  });
  const post = (who: typeof session, body: unknown, headers: Record<string, string> = {}) =>
    app.http('/dashboard/v1/chat/completions', {
      body,
      headers: { cookie: who.cookie, 'x-csrf-token': who.csrf, origin: app.url, ...headers },
    });
  const dashboardKeys = async (token: string) =>
    (await app.http('/api/v1/keys', { token })).body.data.filter((key: { dashboard: boolean }) => key.dashboard);

  beforeAll(async () => {
    app = await startTestApp({ signupCredit: 5 });
    session = await signUp('dash');
  });
  afterAll(() => app?.close());

  it('lists models and answers chat on the cookie alone, with no key made or pasted', async () => {
    const models = await app.http('/dashboard/v1/models', { headers: { cookie: session.cookie } });
    expect(models.status).toBe(200);
    expect(models.body.data.length).toBeGreaterThan(0);
    const answer = await post(session, chat('hello'));
    expect(answer.status).toBe(200);
    expect(answer.body.choices[0].message.content).toEqual(expect.any(String));
    // No CORS is opened for a cookie-carried credential.
    expect(answer.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('makes one key named Dashboard per user, even when several tabs call at once, and never shows its secret', async () => {
    const fresh = await signUp('tabs');
    const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => post(fresh, chat(`tab ${i}`))));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200, 200]);
    const keys = await dashboardKeys(fresh.token);
    expect(keys).toHaveLength(1);
    expect(keys[0]).toMatchObject({ name: 'Dashboard', status: 'Active' });
    expect(Object.keys(keys[0])).not.toContain('key');
    const [{ count }] = await app.database.dataSource.query(
      `SELECT count(*)::int AS count FROM api_keys k JOIN users u ON u.id = k.user_id WHERE k.dashboard AND u.id =
         (SELECT user_id FROM api_keys WHERE id = $1)`,
      [keys[0].id],
    );
    expect(count).toBe(1);
  });

  it('streams chunk by chunk, and the calls are billed, capped and listed as the Dashboard key’s', async () => {
    const before = (await app.http('/api/v1/usage/me/summary', { token: session.token })).body.data.remainingBudget;
    const response = await fetch(`${app.url}/dashboard/v1/chat/completions`, {
      method: 'POST',
      headers: {
        cookie: session.cookie,
        'x-csrf-token': session.csrf,
        origin: app.url,
        'content-type': 'application/json',
      },
      body: JSON.stringify(chat('Tell me a story', { stream: true, max_tokens: 60 })),
    });
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/);
    const reader = response.body!.getReader();
    let chunks = 0;
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks += 1;
      text += new TextDecoder().decode(value);
    }
    expect(chunks).toBeGreaterThan(1);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    await app.app.get(UsageRecorder).flush();
    const activity = (await app.http('/api/v1/usage/me/activity', { token: session.token })).body.data;
    const items = Array.isArray(activity) ? activity : activity.items;
    expect(items.length).toBeGreaterThanOrEqual(2);
    expect(
      items.every((item: { name?: string; apiKeyName?: string }) => (item.name ?? item.apiKeyName) === 'Dashboard'),
    ).toBe(true);
    // The balance moves when the call settles, a batch interval after its last chunk.
    const remaining = async () =>
      (await app.http('/api/v1/usage/me/summary', { token: session.token })).body.data.remainingBudget as number;
    let after = await remaining();
    for (let tries = 0; after >= before && tries < 100; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      after = await remaining();
    }
    expect(after).toBeLessThan(before);
    const [key] = await dashboardKeys(session.token);
    expect(key.spend.thisMonth).toBeGreaterThan(0);
    // The key's limits hold on the session's calls too.
    await app.http(`/api/v1/keys/${key.id}/limits`, { method: 'PUT', token: session.token, body: { total: 0 } });
    const capped = await post(session, chat('more'));
    expect([capped.status, capped.body.error.code]).toEqual([403, 'spend_limit_exceeded']);
    await app.http(`/api/v1/keys/${key.id}/limits`, { method: 'PUT', token: session.token, body: { total: null } });
    expect((await post(session, chat('again'))).status).toBe(200);
  });

  it('keeps the session’s write rules: the CSRF header, and no other site’s requests', async () => {
    const noCsrf = await post(session, chat('x'), { 'x-csrf-token': '' });
    expect([noCsrf.status, noCsrf.body.error.code]).toEqual([403, 'csrf_invalid']);
    const wrongCsrf = await post(session, chat('x'), { 'x-csrf-token': 'x'.repeat(session.csrf.length) });
    expect(wrongCsrf.status).toBe(403);
    const foreign = await post(session, chat('x'), { origin: 'https://evil.example' });
    expect([foreign.status, foreign.body.error.code]).toEqual([403, 'csrf_invalid']);
    const crossSite = await post(session, chat('x'), { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.status).toBe(403);
    // A preflight gets no CORS grant: the path is not on the allowlist for OPTIONS.
    const preflight = await app.http('/dashboard/v1/chat/completions', {
      method: 'OPTIONS',
      headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
    });
    expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('takes no bearer credential, and refuses a missing, forged or signed-out session', async () => {
    const key = (await app.http('/api/v1/keys', { token: session.token, body: { name: 'k' } })).body.data.key;
    const bearer = await app.http('/dashboard/v1/models', { token: key });
    expect(bearer.status).toBe(400);
    expect((await app.http('/dashboard/v1/models')).status).toBe(401);
    const forged = await app.http('/dashboard/v1/models', { headers: { cookie: `sy_session=sys_${'a'.repeat(43)}` } });
    expect([forged.status, forged.body.error.code]).toEqual([401, 'invalid_token']);
    // The session token itself is no gateway credential on /v1.
    expect((await app.http('/v1/models', { token: session.token })).status).toBe(401);
    const other = await signUp('leaving');
    expect((await app.http('/dashboard/v1/models', { headers: { cookie: other.cookie } })).status).toBe(200);
    await app.http('/api/v1/auth/logout', { method: 'POST', token: other.token });
    expect((await app.http('/dashboard/v1/models', { headers: { cookie: other.cookie } })).status).toBe(401);
  });

  it('makes a new Dashboard key when the user revoked the old one', async () => {
    const fresh = await signUp('revoker');
    expect((await post(fresh, chat('hi'))).status).toBe(200);
    const [old] = await dashboardKeys(fresh.token);
    await app.http(`/api/v1/keys/${old.id}`, { method: 'DELETE', token: fresh.token });
    expect((await post(fresh, chat('hi again'))).status).toBe(200);
    const keys = await dashboardKeys(fresh.token);
    expect(keys.map((key: { status: string }) => key.status).sort()).toEqual(['Active', 'Revoked']);
  });
});
