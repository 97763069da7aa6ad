import { freePort, OAuthTestKit, type OAuthTestUser } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';

/** The settings page's routes: name, password, sign out everywhere, delete the account (docs/accounts.md). */
describe('account settings', () => {
  let app: TestApp;
  let kit: OAuthTestKit;

  const me = (token: string) => app.http('/api/v1/auth/me', { token });
  const email = async (user: OAuthTestUser) => (await me(user.session)).body.data.email as string;
  const login = (address: string, password: string) =>
    app.http('/api/v1/auth/login', { body: { email: address, password } });

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp({ port, publicUrl: `http://127.0.0.1:${port}` });
    kit = await OAuthTestKit.start(app);
  });
  afterAll(() => app?.close());

  it('changes the name (trimmed, validated), and only the caller’s', async () => {
    const [alice, bob] = [await kit.newUser(), await kit.newUser()];
    const renamed = await app.http('/api/v1/auth/me', {
      method: 'PATCH',
      token: alice.session,
      body: { name: ' Al ' },
    });
    expect([renamed.status, renamed.body.data.name]).toEqual([200, 'Al']);
    for (const body of [{ name: '' }, { name: 'x'.repeat(101) }, {}, { name: 'ok', email: 'b@x.io' }])
      expect((await app.http('/api/v1/auth/me', { method: 'PATCH', token: alice.session, body })).status).toBe(400);
    expect((await me(bob.session)).body.data.name).toBeNull();
    expect((await app.http('/api/v1/auth/me', { method: 'PATCH', body: { name: 'x' } })).status).toBe(401);
  });

  it('changes the password only with the current one, and signs out the other sessions but this one', async () => {
    const user = await kit.newUser();
    const address = await email(user);
    const other = (await login(address, 'oauth password')).body.data.token;
    const wrong = await app.http('/api/v1/auth/password', {
      token: user.session,
      body: { currentPassword: 'not it at all', newPassword: 'a new password' },
    });
    expect([wrong.status, wrong.body.error.code, wrong.body.error.details[0].field]).toEqual([
      403,
      'PASSWORD_INCORRECT',
      'currentPassword',
    ]);
    const short = await app.http('/api/v1/auth/password', {
      token: user.session,
      body: { currentPassword: 'oauth password', newPassword: 'short' },
    });
    expect(short.status).toBe(400);
    expect((await me(other)).status).toBe(200);
    const changed = await app.http('/api/v1/auth/password', {
      token: user.session,
      body: { currentPassword: 'oauth password', newPassword: 'a new password' },
    });
    expect([changed.status, changed.body.data.signedOutSessions]).toEqual([200, 1]);
    expect((await me(other)).status).toBe(401);
    expect((await me(user.session)).status).toBe(200);
    expect((await login(address, 'oauth password')).status).toBe(401);
    expect((await login(address, 'a new password')).status).toBe(200);
  });

  it('stops guessing the current password after the sign-in failure limit', async () => {
    const user = await kit.newUser();
    const statuses: number[] = [];
    for (let i = 0; i < 7; i += 1)
      statuses.push(
        (
          await app.http('/api/v1/auth/password', {
            token: user.session,
            body: { currentPassword: `guess ${i}`, newPassword: 'a new password' },
          })
        ).status,
      );
    expect(statuses.slice(0, 5)).toEqual([403, 403, 403, 403, 403]);
    expect(statuses.slice(5)).toEqual([429, 429]);
  });

  it('keeps the session’s CSRF and Origin rules on these writes', async () => {
    const user = await kit.newUser();
    const noCsrf = await app.http('/api/v1/auth/logout-everywhere', {
      method: 'POST',
      headers: { cookie: user.cookie },
    });
    expect([noCsrf.status, noCsrf.body.error.code]).toEqual([403, 'CSRF_INVALID']);
    const foreign = await app.http('/api/v1/auth/delete-account', {
      body: { password: 'oauth password' },
      headers: { cookie: user.cookie, 'x-csrf-token': user.csrf, origin: 'https://evil.example' },
    });
    expect([foreign.status, foreign.body.error.code]).toEqual([403, 'ORIGIN_FORBIDDEN']);
    expect((await me(user.session)).status).toBe(200);
    const ok = await app.http('/api/v1/auth/me', {
      method: 'PATCH',
      body: { name: 'By cookie' },
      headers: { cookie: user.cookie, 'x-csrf-token': user.csrf, origin: app.url },
    });
    expect(ok.status).toBe(200);
  });

  it('signs out every session, this one too, and no other user’s', async () => {
    const [user, bystander] = [await kit.newUser(), await kit.newUser()];
    const other = (await login(await email(user), 'oauth password')).body.data.token;
    const res = await app.http('/api/v1/auth/logout-everywhere', { method: 'POST', token: user.session });
    expect([res.status, res.body.data.signedOutSessions]).toEqual([200, 2]);
    expect(res.cookies.sy_session).toBe('');
    expect((await me(user.session)).status).toBe(401);
    expect((await me(other)).status).toBe(401);
    expect((await me(bystander.session)).status).toBe(200);
  });

  it('deletes the account: no sign-in, keys, sessions and app tokens stop at once; the ledger stays', async () => {
    const [user, bystander] = [await kit.newUser(), await kit.newUser()];
    const address = await email(user);
    const key = (await app.http('/api/v1/keys', { token: user.session, body: { name: 'k' } })).body.data.key;
    const theirKey = (await app.http('/api/v1/keys', { token: bystander.session, body: { name: 'k' } })).body.data.key;
    const client = await kit.createClient({ clientName: 'Doomed App' });
    const tokens = await kit.tokensFor(client, { user });
    const v1 = (token: string) =>
      app.http('/v1/models', { token, headers: { 'x-service-oauth-client-id': client.clientId } });
    expect((await v1(tokens.access_token)).status).toBe(200);
    expect((await app.http('/v1/models', { token: key })).status).toBe(200);
    const dashboard = await app.http('/dashboard/v1/models', { headers: { cookie: user.cookie } });
    expect(dashboard.status).toBe(200);

    const wrong = await app.http('/api/v1/auth/delete-account', {
      token: user.session,
      body: { password: 'nope nope' },
    });
    expect([wrong.status, wrong.body.error.code]).toEqual([403, 'PASSWORD_INCORRECT']);
    expect((await me(user.session)).status).toBe(200);

    const deleted = await app.http('/api/v1/auth/delete-account', {
      token: user.session,
      body: { password: 'oauth password' },
    });
    expect(deleted.status).toBe(200);
    expect((await me(user.session)).status).toBe(401);
    expect((await login(address, 'oauth password')).status).toBe(401);
    expect((await app.http('/v1/models', { token: key })).status).toBe(403);
    expect((await v1(tokens.access_token)).status).toBe(401);
    expect((await app.http('/dashboard/v1/models', { headers: { cookie: user.cookie } })).status).toBe(401);
    // Another user's things go on.
    expect((await app.http('/v1/models', { token: theirKey })).status).toBe(200);
    expect((await me(bystander.session)).status).toBe(200);

    const [row] = await app.database.dataSource.query(
      `SELECT email, name, handle, deleted_at IS NOT NULL AS deleted,
              (SELECT count(*)::int FROM ledger_entries WHERE user_id = u.id) AS ledger,
              (SELECT count(*)::int FROM api_keys WHERE user_id = u.id AND revoked_at IS NULL) AS live_keys
         FROM users u WHERE id = $1`,
      [user.id],
    );
    expect(row).toMatchObject({ email: `deleted-${user.id}@deleted.invalid`, name: null, handle: null, deleted: true });
    expect(row.ledger).toBeGreaterThan(0);
    expect(row.live_keys).toBe(0);
    // The address is free again: a new account, with nothing of the old one.
    const again = await app.http('/api/v1/auth/register', { body: { email: address, password: 'fresh password' } });
    expect(again.status).toBe(201);
    expect(again.body.data.user.id).not.toBe(user.id);
    expect((await app.http('/api/v1/keys', { token: again.body.data.token })).body.data).toEqual([]);
  });
});
