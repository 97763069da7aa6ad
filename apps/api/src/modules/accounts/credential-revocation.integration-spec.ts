import { freePort, OAuthTestKit, type OAuthTestUser } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';

/**
 * A password change and "sign out everywhere" may also revoke every API key and app authorization (docs/accounts.md,
 * "Settings"): an explicit choice, false unless asked, and never another user's.
 */
describe('revoking every credential with the password change or sign out everywhere', () => {
  let app: TestApp;
  let kit: OAuthTestKit;

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp({ port, publicUrl: `http://127.0.0.1:${port}` });
    kit = await OAuthTestKit.start(app);
  });
  afterAll(() => app?.close());

  const me = (token: string) => app.http('/api/v1/auth/me', { token });

  /** A user with two keys and two apps authorized, and a bystander with a key and the same app. */
  async function holder() {
    const user = await kit.newUser();
    const keys = [];
    for (const name of ['one', 'two'])
      keys.push((await app.http('/api/v1/keys', { token: user.session, body: { name } })).body.data.key as string);
    const apps = [];
    for (const clientName of ['First app', 'Second app']) {
      const client = await kit.createClient({ clientName });
      apps.push({ client, tokens: await kit.tokensFor(client, { user }) });
    }
    return { user, keys, apps };
  }
  const works = async (holding: Awaited<ReturnType<typeof holder>>) => {
    const statuses = [];
    for (const key of holding.keys) statuses.push((await app.http('/v1/models', { token: key })).status);
    for (const { client, tokens } of holding.apps)
      statuses.push(
        (
          await app.http('/v1/models', {
            token: tokens.access_token,
            headers: { 'x-service-oauth-client-id': client.clientId },
          })
        ).status,
      );
    return statuses;
  };
  const refresh = (holding: Awaited<ReturnType<typeof holder>>) =>
    app.http('/oauth2/token', {
      body: {
        grant_type: 'refresh_token',
        refresh_token: holding.apps[0].tokens.refresh_token,
        client_id: holding.apps[0].client.clientId,
      },
    });
  const listed = async (user: OAuthTestUser) => ({
    keys: (await app.http('/api/v1/keys', { token: user.session })).body.data.filter(
      (key: { status: string }) => key.status === 'Active',
    ).length,
    apps: (await app.http('/api/v1/oauth2/consents', { token: user.session })).body.data.length,
  });

  it('keeps keys and apps by default: only sessions end', async () => {
    const holding = await holder();
    const changed = await app.http('/api/v1/auth/password', {
      token: holding.user.session,
      body: { currentPassword: 'oauth password', newPassword: 'another password' },
    });
    expect(changed.body.data).toEqual({ signedOutSessions: 0, revokedApiKeys: 0, revokedAppAuthorizations: 0 });
    expect(await works(holding)).toEqual([200, 200, 200, 200]);
    const out = await app.http('/api/v1/auth/logout-everywhere', { method: 'POST', token: holding.user.session });
    expect(out.body.data).toEqual({ signedOutSessions: 1, revokedApiKeys: 0, revokedAppAuthorizations: 0 });
    expect(await works(holding)).toEqual([200, 200, 200, 200]);
  });

  it('revokes every key and app authorization with the password change when asked, and no one else’s', async () => {
    const holding = await holder();
    const bystander = await holder();
    const changed = await app.http('/api/v1/auth/password', {
      token: holding.user.session,
      body: { currentPassword: 'oauth password', newPassword: 'another password', revokeCredentials: true },
    });
    expect([changed.status, changed.body.data]).toEqual([
      200,
      { signedOutSessions: 0, revokedApiKeys: 2, revokedAppAuthorizations: 2 },
    ]);
    expect(await works(holding)).toEqual([403, 403, 401, 401]);
    expect((await refresh(holding)).status).toBe(400);
    expect(await listed(holding.user)).toEqual({ keys: 0, apps: 0 });
    // The session that changed it stays; the bystander's keys and apps go on.
    expect((await me(holding.user.session)).status).toBe(200);
    expect(await works(bystander)).toEqual([200, 200, 200, 200]);
    expect((await refresh(bystander)).status).toBe(200);
  });

  it('refuses a wrong password before revoking anything', async () => {
    const holding = await holder();
    const wrong = await app.http('/api/v1/auth/password', {
      token: holding.user.session,
      body: { currentPassword: 'not the password', newPassword: 'another password', revokeCredentials: true },
    });
    expect([wrong.status, wrong.body.error.code]).toEqual([403, 'PASSWORD_INCORRECT']);
    expect(await works(holding)).toEqual([200, 200, 200, 200]);
  });

  it('revokes every key and app authorization with sign out everywhere when asked', async () => {
    const holding = await holder();
    const out = await app.http('/api/v1/auth/logout-everywhere', {
      token: holding.user.session,
      body: { revokeCredentials: true },
    });
    expect([out.status, out.body.data]).toEqual([
      200,
      { signedOutSessions: 1, revokedApiKeys: 2, revokedAppAuthorizations: 2 },
    ]);
    expect(await works(holding)).toEqual([403, 403, 401, 401]);
    expect((await me(holding.user.session)).status).toBe(401);
  });

  it('refuses a choice that is not true or false, and unknown fields', async () => {
    const holding = await holder();
    for (const body of [{ revokeCredentials: 'yes' }, { revokeCredentials: 1 }, { everything: true }]) {
      const res = await app.http('/api/v1/auth/logout-everywhere', { token: holding.user.session, body });
      expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    }
    const res = await app.http('/api/v1/auth/password', {
      token: holding.user.session,
      body: { currentPassword: 'oauth password', newPassword: 'another password', revokeCredentials: 'true' },
    });
    expect(res.status).toBe(400);
    expect(await works(holding)).toEqual([200, 200, 200, 200]);
    expect((await me(holding.user.session)).status).toBe(200);
  });
});
