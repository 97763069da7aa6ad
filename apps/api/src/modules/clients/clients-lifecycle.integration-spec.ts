import { freePort, OAuthTestKit, type OAuthTestUser as User } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';

const ADMIN = { email: 'lifecycle-admin@example.com', password: 'admin password 123' };

/** An OAuth app's owner edits it, reactivates it and rotates its secret (docs/oauth.md); nobody else can. */
describe('OAuth apps: edit, reactivate, rotate the secret', () => {
  let app: TestApp;
  let kit: OAuthTestKit;
  let owner: User;
  let alice: User;
  let admin: string;

  const clients = (path = '', init: { method?: string; body?: unknown; token?: string } = {}) =>
    app.http(`/api/v1/oauth2/clients${path}`, { token: owner.session, ...init });
  const v1 = (token: string, clientId: string) =>
    app.http('/v1/models', { token, headers: { 'x-service-oauth-client-id': clientId } });
  /** The token endpoint with a made-up refresh token: invalid_client when the secret is wrong, else invalid_grant. */
  const tokenEndpoint = (clientId: string, secret: string) =>
    app.http('/oauth2/token', {
      body: { grantType: 'refresh_token', refreshToken: 'not-a-token', clientId, clientSecret: secret },
    });

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp({
      port,
      publicUrl: `http://127.0.0.1:${port}`,
      signupCredit: 0,
      adminEmail: ADMIN.email,
      adminPassword: ADMIN.password,
    });
    kit = await OAuthTestKit.start(app);
    ({ owner, alice } = kit);
    admin = (await app.http('/api/v1/auth/login', { body: ADMIN })).body.data.token;
  });
  afterAll(() => app?.close());

  it('rotates a confidential app’s secret: shown once, the old one refused at once, tokens kept', async () => {
    const client = await kit.createClient({ generateSecret: true });
    const oldSecret = client.clientSecret!;
    const tokens = await kit.tokensFor(client);
    expect((await tokenEndpoint(client.clientId, oldSecret)).body.error).toBe('invalid_grant');

    const rotated = await clients(`/${client.clientId}/rotate-secret`, { method: 'POST' });
    expect(rotated.status).toBe(200);
    const newSecret = rotated.body.data.clientSecret as string;
    expect(newSecret).toMatch(/^\S{32,}$/);
    expect(newSecret).not.toBe(oldSecret);
    expect((await tokenEndpoint(client.clientId, oldSecret)).body.error).toBe('invalid_client');
    expect((await tokenEndpoint(client.clientId, newSecret)).body.error).toBe('invalid_grant');
    // Shown once: reading the app again does not show it.
    expect((await clients(`/${client.clientId}`)).body.data.clientSecret).toBeUndefined();
    // Tokens already issued keep working, and a new code exchanges with the new secret.
    expect((await v1(tokens.access_token, client.clientId)).status).toBe(200);
    await expect(kit.tokensFor({ clientId: client.clientId, clientSecret: newSecret })).resolves.toHaveProperty(
      'access_token',
    );
    await expect(kit.tokensFor({ clientId: client.clientId, clientSecret: oldSecret })).rejects.toThrow(/401/);
  });

  it('refuses to rotate a public app’s secret, and two rotations at once leave exactly one secret working', async () => {
    const open = await kit.createClient();
    const res = await clients(`/${open.clientId}/rotate-secret`, { method: 'POST' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('CLIENT_HAS_NO_SECRET');

    const client = await kit.createClient({ generateSecret: true });
    const both = await Promise.all([1, 2].map(() => clients(`/${client.clientId}/rotate-secret`, { method: 'POST' })));
    const secrets = both.map((r) => r.body.data.clientSecret as string);
    const verdicts = await Promise.all(secrets.map(async (s) => (await tokenEndpoint(client.clientId, s)).body.error));
    expect(verdicts.filter((v) => v === 'invalid_grant')).toHaveLength(1);
    expect(verdicts.filter((v) => v === 'invalid_client')).toHaveLength(1);
  });

  it('reactivates a deactivated app: authorizations start and its unexpired tokens work again', async () => {
    const client = await kit.createClient();
    const tokens = await kit.tokensFor(client);
    await clients(`/${client.clientId}/deactivate`, { method: 'POST' });
    expect((await v1(tokens.access_token, client.clientId)).status).toBe(401);
    const back = await clients(`/${client.clientId}/reactivate`, { method: 'POST' });
    expect(back.status).toBe(200);
    expect(back.body.data.isActive).toBe(true);
    expect((await v1(tokens.access_token, client.clientId)).status).toBe(200);
    await expect(kit.tokensFor(client)).resolves.toHaveProperty('access_token');
    // Reactivating an active app changes nothing.
    expect((await clients(`/${client.clientId}/reactivate`, { method: 'POST' })).body.data.isActive).toBe(true);
  });

  it("answers 404 for another user's app on every new route, and changes nothing", async () => {
    const client = await kit.createClient({ generateSecret: true });
    await clients(`/${client.clientId}/deactivate`, { method: 'POST' });
    for (const route of ['reactivate', 'rotate-secret']) {
      for (const ref of [client.clientId, String(client.id)]) {
        const res = await clients(`/${ref}/${route}`, { method: 'POST', token: alice.session });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('CLIENT_NOT_FOUND');
      }
      expect((await clients(`/no-such-app/${route}`, { method: 'POST' })).status).toBe(404);
    }
    const still = (await clients(`/${client.clientId}`)).body.data;
    expect(still.isActive).toBe(false);
    expect((await tokenEndpoint(client.clientId, client.clientSecret!)).body.error).toBe('invalid_client'); // inactive
    await clients(`/${client.clientId}/reactivate`, { method: 'POST' });
    expect((await tokenEndpoint(client.clientId, client.clientSecret!)).body.error).toBe('invalid_grant');
  });

  it('edits name, redirect URIs, scopes and lifetimes; the owner cannot set trust, and an edit of the shape ends it', async () => {
    const client = await kit.createClient();
    await app.http(`/api/v1/admin/oauth2/clients/${client.clientId}/trusted`, {
      method: 'PUT',
      token: admin,
      body: { trusted: true },
    });
    const edited = await clients(`/${client.clientId}`, {
      method: 'PUT',
      body: { clientName: 'Renamed App', accessTokenTtlSeconds: 600, refreshTokenTtlSeconds: 86_400 },
    });
    expect(edited.body.data).toMatchObject({
      clientName: 'Renamed App',
      accessTokenTtlSeconds: 600,
      refreshTokenTtlSeconds: 86_400,
      trusted: true,
    });
    // `trusted` is not a field of the update: the validation refuses it.
    expect((await clients(`/${client.clientId}`, { method: 'PUT', body: { trusted: false } })).status).toBe(400);
    const reshaped = await clients(`/${client.clientId}`, {
      method: 'PUT',
      body: { redirectUris: ['http://127.0.0.1:9/other'], requestedScopes: ['api:access'] },
    });
    expect(reshaped.body.data).toMatchObject({
      redirectUris: ['http://127.0.0.1:9/other'],
      scopes: ['api:access'],
      trusted: false,
    });
    expect(
      (await clients(`/${client.clientId}`, { method: 'PUT', body: { clientName: 'x' }, token: alice.session })).status,
    ).toBe(404);
  });
});
