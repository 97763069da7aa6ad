import { createHash } from 'node:crypto';
import { CALLBACK, freePort, OAuthTestKit, type OAuthTestUser as User } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';

const ADMIN = { email: 'clients-admin@example.com', password: 'admin password 123' };

/**
 * The clients module's rules (docs/oauth.md): registering an app, who may see and change it, its secret, its
 * trust, deactivation and deletion. The OAuth protocol around them is oauth.integration-spec.ts's.
 */
describe('OAuth apps (clients)', () => {
  let app: TestApp;
  let kit: OAuthTestKit;
  let owner: User;
  let alice: User;
  let admin: string;

  const clients = (path = '', init: { method?: string; body?: unknown; token?: string } = {}) =>
    app.http(`/api/v1/oauth2/clients${path}`, { token: owner.session, ...init });
  const v1 = (token: string, clientId: string) =>
    app.http('/v1/models', { token, headers: { 'x-service-oauth-client-id': clientId } });
  const trust = (clientId: string, trusted: boolean) =>
    app.http(`/api/v1/admin/oauth2/clients/${clientId}/trusted`, { method: 'PUT', token: admin, body: { trusted } });
  const authorizeParams = async (clientId: string) => {
    const { challengePromise } = kit.pkce();
    return {
      client_id: clientId,
      response_type: 'code',
      redirect_uri: CALLBACK,
      scope: 'api:access',
      state: 'st',
      code_challenge: await challengePromise,
      code_challenge_method: 'S256',
    };
  };

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

  describe('registration', () => {
    it('validates names, redirect URIs and scopes', async () => {
      const bad = async (body: Record<string, unknown>) => {
        const res = await clients('', { body: { clientName: 'Valid name', redirectUris: [CALLBACK], ...body } });
        expect(res.status).toBe(400);
        return res.body.error;
      };
      expect((await bad({ clientName: 'ab' })).details[0].field).toBe('clientName');
      for (const uri of [
        'https://app.example/cb#frag',
        'https://*.example/cb',
        'http://app.example/cb',
        'javascript:alert(1)',
        'not a uri',
      ])
        expect((await bad({ redirectUris: [uri] })).code).toBe('VALIDATION_FAILED');
      expect((await bad({ requestedScopes: ['admin'] })).code).toBe('VALIDATION_FAILED');
      expect((await bad({ redirectUris: [] })).code).toBe('REDIRECT_URI_REQUIRED');
      // Custom schemes and loopback are fine, and a single redirectUri is accepted too.
      const ok = await clients('', { body: { clientName: 'Mobile', redirectUri: 'com.example.app:/oauth/callback' } });
      expect(ok.status).toBe(201);
      expect(ok.body.data).toMatchObject({
        redirectUris: ['com.example.app:/oauth/callback'],
        scopes: ['api:access'],
        requirePkce: true,
        requireConsent: true,
        trusted: false,
        isActive: true,
        accessTokenTtlSeconds: 3600,
        refreshTokenTtlSeconds: 2592000,
      });
      expect(ok.body.data.createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
    });

    it('needs at least one redirect URI, given either way', async () => {
      const none = await clients('', { body: { clientName: 'Nowhere App' } });
      expect(none).toMatchObject({
        status: 400,
        body: { success: false, error: { code: 'REDIRECT_URI_REQUIRED', details: [{ field: 'redirectUris' }] } },
      });
      // Both fields at once: one list, each URI once.
      const both = await clients('', {
        body: { clientName: 'Both Ways', redirectUri: CALLBACK, redirectUris: [CALLBACK, 'https://app.example/cb'] },
      });
      expect(both.status).toBe(201);
      expect([...both.body.data.redirectUris].sort()).toEqual([CALLBACK, 'https://app.example/cb'].sort());
    });

    it('refuses an app’s own requireConsent: false with 400, on create and on update', async () => {
      const created = await clients('', {
        body: { clientName: 'Silent App', redirectUris: [CALLBACK], requireConsent: false },
      });
      expect(created.status).toBe(400);
      expect(created.body).toMatchObject({
        success: false,
        error: { code: 'VALIDATION_FAILED', details: [{ field: 'requireConsent' }] },
      });
      expect(created.body.error.details[0].messages[0]).toContain('an admin decides');
      const client = await kit.createClient({ requireConsent: true });
      expect(client).toMatchObject({ requireConsent: true, trusted: false });
      const updated = await clients(`/${client.clientId}`, { method: 'PUT', body: { requireConsent: false } });
      expect(updated.status).toBe(400);
      expect(updated.body.error.details[0].field).toBe('requireConsent');
    });

    it('refuses names that pass for the service to owners, on create and rename; an admin may use them', async () => {
      for (const name of ['Switchyard', 'switch yard login', 'Swіtchyard Helper', 'ADMIN tools', 'Оfficial Agent']) {
        const owned = await clients('', { body: { clientName: name, redirectUris: [CALLBACK] } });
        expect([name, owned.status, owned.body.error?.code]).toEqual([name, 400, 'CLIENT_NAME_RESERVED']);
      }
      const rename = await kit.createClient({ clientName: 'Harmless' });
      expect(
        (await clients(`/${rename.clientId}`, { method: 'PUT', body: { clientName: 'Official Harmless' } })).body.error
          .code,
      ).toBe('CLIENT_NAME_RESERVED');
      // An admin names the service's own first-party apps.
      const firstParty = await app.http('/api/v1/oauth2/clients', {
        token: admin,
        body: { clientName: 'Switchyard CLI', redirectUris: [CALLBACK] },
      });
      expect(firstParty.status).toBe(201);
    });

    it('shows a generated secret once, in the create answer only, and stores only its hash', async () => {
      const res = await clients('', {
        body: { clientName: 'Server App', redirectUris: [CALLBACK], generateSecret: true },
      });
      expect(res.status).toBe(201);
      expect(res.body.message).toContain('not shown again');
      const { id, clientId, clientSecret, clientType } = res.body.data;
      expect(clientType).toBe('CONFIDENTIAL');
      expect(clientSecret).toMatch(/^sycs_[A-Za-z0-9_-]{43}$/);
      for (const read of [await clients(`/${id}`), await clients(`/${clientId}`), await clients()]) {
        expect(read.status).toBe(200);
        expect(JSON.stringify(read.body)).not.toContain(clientSecret);
      }
      const [row] = await app.database.dataSource.query('SELECT secret_hash FROM oauth_clients WHERE client_id = $1', [
        clientId,
      ]);
      expect(row.secret_hash).toBe(createHash('sha256').update(clientSecret).digest('hex'));
      // A public app (no generateSecret) has no secret at all.
      const open = await kit.createClient();
      expect([open.clientType, open.clientSecret]).toEqual(['PUBLIC', undefined]);
      const [openRow] = await app.database.dataSource.query(
        'SELECT secret_hash FROM oauth_clients WHERE client_id = $1',
        [open.clientId],
      );
      expect(openRow.secret_hash).toBeNull();
    });

    it('keeps the limit of 50 apps per account under 20 concurrent creates: exactly 50 exist afterwards', async () => {
      const maker = await kit.newUser(0);
      for (let i = 0; i < 45; i += 1) await kit.createClient({ clientName: `Bulk ${i}` }, maker);
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          app.http('/api/v1/oauth2/clients', {
            token: maker.session,
            body: { clientName: `Race ${i}`, redirectUris: [CALLBACK] },
          }),
        ),
      );
      expect(results.filter((res) => res.status === 201)).toHaveLength(5);
      for (const res of results.filter((r) => r.status !== 201))
        expect(res.body).toMatchObject({ success: false, error: { code: 'CLIENT_LIMIT_REACHED' } });
      expect((await app.http('/api/v1/oauth2/clients', { token: maker.session })).body.data).toHaveLength(50);
      // Deleting one frees its place.
      const [one] = (await app.http('/api/v1/oauth2/clients', { token: maker.session })).body.data;
      await app.http(`/api/v1/oauth2/clients/${one.clientId}`, { method: 'DELETE', token: maker.session });
      expect(
        (
          await app.http('/api/v1/oauth2/clients', {
            token: maker.session,
            body: { clientName: 'Again', redirectUris: [CALLBACK] },
          })
        ).status,
      ).toBe(201);
      expect(
        (
          await app.http('/api/v1/oauth2/clients', {
            token: maker.session,
            body: { clientName: 'Too many', redirectUris: [CALLBACK] },
          })
        ).status,
      ).toBe(422);
    });
  });

  describe('ownership', () => {
    it('lists with authorizedUserCount, updates, and keeps other users out (404)', async () => {
      const client = await kit.createClient({ clientName: 'Counted App' });
      await kit.codeFor(client.clientId);
      const list = await clients();
      expect(list.body.data.find((c: { clientId: string }) => c.clientId === client.clientId).authorizedUserCount).toBe(
        1,
      );
      const updated = await clients(`/${client.id}`, {
        method: 'PUT',
        body: { clientName: 'Renamed App', accessTokenTtlSeconds: 600 },
      });
      expect(updated.body.data).toMatchObject({ clientName: 'Renamed App', accessTokenTtlSeconds: 600 });

      const mallory = await kit.newUser(0);
      for (const [method, path] of [
        ['GET', ''],
        ['PUT', ''],
        ['DELETE', ''],
        ['POST', '/deactivate'],
        ['GET', '/usage'],
      ] as const) {
        const res = await app.http(`/api/v1/oauth2/clients/${client.clientId}${path}`, {
          method,
          token: mallory.session,
          ...(method === 'PUT' ? { body: { clientName: 'Stolen' } } : {}),
        });
        expect(res.status).toBe(404);
        expect(res.body.error.code).toBe('CLIENT_NOT_FOUND');
      }
      expect((await app.http('/api/v1/oauth2/clients', { token: mallory.session })).body.data).toEqual([]);
      const deleted = await clients(`/${client.id}`, { method: 'DELETE' });
      expect(deleted.status).toBe(200);
      const consents = await app.http('/api/v1/oauth2/consents', { token: alice.session });
      expect(consents.body.data.map((c: { clientId: string }) => c.clientId)).not.toContain(client.clientId);
    });

    it('answers another user’s app by numeric id exactly like a missing one, and its owner by either id', async () => {
      const client = await kit.createClient({ clientName: 'Two Ids' });
      expect((await clients(`/${client.id}`)).body.data.clientId).toBe(client.clientId);
      expect((await clients(`/${client.clientId}`)).body.data.id).toBe(client.id);
      const mallory = await kit.newUser(0);
      const theirs = await app.http(`/api/v1/oauth2/clients/${client.id}`, { token: mallory.session });
      const missing = await app.http('/api/v1/oauth2/clients/999999999', { token: mallory.session });
      expect([theirs.status, missing.status]).toEqual([404, 404]);
      expect([theirs.body.message, theirs.body.error]).toEqual([missing.body.message, missing.body.error]);
      const row: { client_name: string }[] = await app.database.dataSource.query(
        'SELECT client_name FROM oauth_clients WHERE id = $1',
        [client.id],
      );
      expect(row[0].client_name).toBe('Two Ids');
    });

    it('updates only the fields sent, and refuses to empty the redirect URIs', async () => {
      const client = await kit.createClient({
        clientName: 'Partial',
        requestedScopes: ['profile:read', 'api:access'],
        requestsPerMinute: 30,
      });
      expect(client).toMatchObject({ requestsPerMinute: 30 });
      expect((await clients(`/${client.clientId}`)).body.data.scopes).toEqual(['api:access', 'profile:read']);
      const emptied = await clients(`/${client.clientId}`, { method: 'PUT', body: { redirectUris: [] } });
      expect(emptied).toMatchObject({ status: 400, body: { error: { code: 'REDIRECT_URI_REQUIRED' } } });
      const renamed = await clients(`/${client.clientId}`, { method: 'PUT', body: { clientName: 'Partial Renamed' } });
      expect(renamed.body.data).toMatchObject({
        clientName: 'Partial Renamed',
        redirectUris: [CALLBACK],
        scopes: ['api:access', 'profile:read'],
        requestsPerMinute: 30,
        accessTokenTtlSeconds: 3600,
      });
    });
  });

  describe('trust, deactivation and deletion', () => {
    it('a trusted app whose owner changes its redirect URIs or scopes loses the trust until an admin renews it', async () => {
      const client = await kit.createClient({ clientName: 'Trusted Then Edited' });
      expect((await trust(client.clientId, true)).status).toBe(200);
      const edit = (body: Record<string, unknown>) => clients(`/${client.clientId}`, { method: 'PUT', body });
      // A rename or a new token lifetime keeps it; the same URIs sent again keep it.
      expect(
        (await edit({ clientName: 'Trusted Renamed', accessTokenTtlSeconds: 600, redirectUris: [CALLBACK] })).body.data
          .trusted,
      ).toBe(true);
      expect((await edit({ redirectUris: [CALLBACK, 'https://attacker.example/cb'] })).body.data).toMatchObject({
        trusted: false,
        requireConsent: true,
      });
      expect((await kit.authorize(await authorizeParams(client.clientId))).location).toMatch(/^\/consent\?/);
      expect((await trust(client.clientId, true)).body.data.trusted).toBe(true);
      expect((await edit({ requestedScopes: ['api:access'] })).body.data.trusted).toBe(false);
    });

    it('an owner’s change of the app’s rate applies to the next call of its live tokens', async () => {
      const client = await kit.createClient({ clientName: 'Rate Changed' });
      const tokens = await kit.tokensFor(client);
      // The token's lookup is cached now; the change must reach it anyway.
      expect([
        (await v1(tokens.access_token, client.clientId)).status,
        (await v1(tokens.access_token, client.clientId)).status,
      ]).toEqual([200, 200]);
      expect(
        (await clients(`/${client.clientId}`, { method: 'PUT', body: { requestsPerMinute: 1 } })).body.data
          .requestsPerMinute,
      ).toBe(1);
      // Three calls, so that a minute's window turning between two of them still leaves one past the new rate.
      const after: number[] = [];
      for (let i = 0; i < 3; i += 1) after.push((await v1(tokens.access_token, client.clientId)).status);
      expect(after).toContain(429);
    });

    it('deactivating an app stops its live tokens at once, refuses their refresh and starts no new authorization', async () => {
      const doomed = await kit.createClient();
      const live = await kit.tokensFor(doomed);
      expect((await v1(live.access_token, doomed.clientId)).status).toBe(200);
      const deactivated = await clients(`/${doomed.clientId}/deactivate`, { method: 'POST' });
      expect(deactivated.status).toBe(200);
      expect(deactivated.body.data.isActive).toBe(false);
      expect((await v1(live.access_token, doomed.clientId)).status).toBe(401);
      const refresh = await app.http('/oauth2/token', {
        body: { grantType: 'refresh_token', refreshToken: live.refresh_token, clientId: doomed.clientId },
      });
      expect(refresh.body.error).toBe('invalid_client');
      const page = await kit.authorize(await authorizeParams(doomed.clientId));
      expect(page.status).toBe(400);
      expect(page.location).toBeNull();
      expect(page.text).toContain('unknown or no longer active');
      // The row stays for its owner to see.
      expect((await clients(`/${doomed.clientId}`)).body.data).toMatchObject({
        clientId: doomed.clientId,
        isActive: false,
      });
    });

    it('deleting an app ends every authorization and token of it, and the app is gone', async () => {
      const client = await kit.createClient({ clientName: 'Deleted App' });
      const tokens = await kit.tokensFor(client);
      expect((await v1(tokens.access_token, client.clientId)).status).toBe(200);
      expect(await clients(`/${client.clientId}`, { method: 'DELETE' })).toMatchObject({
        status: 200,
        body: { data: { id: client.id, clientId: client.clientId } },
      });
      expect((await v1(tokens.access_token, client.clientId)).status).toBe(401);
      expect((await clients(`/${client.clientId}`)).status).toBe(404);
      const [left] = await app.database.dataSource.query(
        `SELECT (SELECT count(*)::int FROM oauth_grants WHERE client_pk = $1) AS grants, (SELECT count(*)::int FROM oauth_consents WHERE client_pk = $1) AS consents`,
        [client.id],
      );
      expect(left).toEqual({ grants: 0, consents: 0 });
    });
  });

  describe('usage', () => {
    it('defaults to the last 30 days and refuses a window that runs backwards, spans over 366 days or is no date', async () => {
      const client = await kit.createClient({ clientName: 'Measured' });
      const usage = (query: string) => clients(`/${client.clientId}/usage${query}`);
      const today = new Date().toISOString().slice(0, 10);
      const monthAgo = new Date(Date.parse(`${today}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10);
      expect((await usage('')).body.data).toMatchObject({
        clientId: client.clientId,
        startDate: monthAgo,
        endDate: today,
        requests: 0,
      });
      for (const query of [
        '?startDate=2026-02-01&endDate=2026-01-01',
        '?startDate=2024-01-01&endDate=2026-01-01',
        '?startDate=2026-13-45',
        '?endDate=yesterday',
      ]) {
        const res = await usage(query);
        expect([query, res.status, res.body.error?.code]).toEqual([query, 400, 'INVALID_DATE_RANGE']);
      }
      expect((await usage('?startDate=2026-01-01&endDate=2026-01-31')).body.data).toMatchObject({
        startDate: '2026-01-01',
        endDate: '2026-01-31',
      });
    });
  });
});
