import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import * as oauth from 'oauth4webapi';
import OpenAI from 'openai';
import {
  CALLBACK,
  freePort,
  insecure,
  OAuthTestKit,
  type OAuthTestUser as User,
} from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';
import { ClientsService } from '../clients';
import { UsageRecorder } from '../usage';

const ADMIN = { email: 'oauth-admin@example.com', password: 'admin password 123' };
const CHAT = { model: 'demo-chat', messages: [{ role: 'user' as const, content: 'Hello from an app' }] };

describe('OAuth2 for third-party apps', () => {
  let app: TestApp;
  let kit: OAuthTestKit;
  let as: oauth.AuthorizationServer;
  let owner: User;
  let alice: User;
  let admin: string;

  const v1 = (token: string, clientId: string | null, path = '/v1/models', init: { body?: unknown } = {}) =>
    app.http(path, { token, headers: clientId ? { 'x-service-oauth-client-id': clientId } : {}, ...init });

  const tokenRequest = (body: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${app.url}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      body: new URLSearchParams(body),
    }).then(async (res) => ({
      status: res.status,
      body: (await res.json()) as any,
      headers: res.headers,
    }));

  /** A GET through node:http, which sends header bytes as given (latin1), unlike fetch's normalisation. */
  const rawGet = (path: string, headers: Record<string, string>) =>
    new Promise<{ status: number }>((resolve, reject) => {
      const req = request(`${app.url}${path}`, { headers }, (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0 }));
      });
      req.on('error', reject);
      req.end();
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
    ({ as, owner, alice } = kit);
    admin = (await app.http('/api/v1/auth/login', { body: ADMIN })).body.data.token;
  });
  afterAll(() => app?.close());

  describe('discovery and CORS', () => {
    it('publishes RFC 8414 metadata with S256 only and the iss parameter', () => {
      expect(as).toMatchObject({
        issuer: app.url,
        authorization_endpoint: `${app.url}/oauth2/authorize`,
        token_endpoint: `${app.url}/oauth2/token`,
        code_challenge_methods_supported: ['S256'],
        authorization_response_iss_parameter_supported: true,
        registration_endpoint: `${app.url}/oauth2/register`,
      });
    });

    it('opens CORS on the token endpoint and the resource prefixes, not on /api/v1', async () => {
      const preflight = await fetch(`${app.url}/oauth2/token`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(preflight.status).toBe(204);
      expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
      const resource = await fetch(`${app.url}/v1/models`, {
        method: 'OPTIONS',
        headers: {
          origin: 'https://app.example',
          'access-control-request-method': 'GET',
          'access-control-request-headers': 'authorization, x-service-oauth-client-id',
        },
      });
      expect(resource.headers.get('access-control-allow-headers')).toContain('x-service-oauth-client-id');
      const management = await fetch(`${app.url}/api/v1/oauth2/clients`, {
        headers: { origin: 'https://app.example' },
      });
      expect(management.headers.get('access-control-allow-origin')).toBeNull();
    });
  });

  describe('the whole flow, as an app maker writes it with oauth4webapi', () => {
    it('public client, form body: code + PKCE, then streaming chat completions with the openai SDK, billed to the app', async () => {
      const client = await kit.createClient({ clientName: 'Streaming App' });
      expect(client.clientSecret).toBeUndefined();
      expect(client.clientType).toBe('PUBLIC');
      const state = `s-${randomBytes(8).toString('hex')} &=?/`; // echoed exactly, odd characters included
      const tokens = await kit.tokensFor(client, { state });
      expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: 3600, scope: 'api:access profile:read' });
      expect(tokens.access_token).toMatch(/^sya_/);
      expect(tokens.refresh_token).toMatch(/^syr_/);

      const openai = new OpenAI({
        apiKey: tokens.access_token,
        baseURL: `${app.url}/v1`,
        defaultHeaders: { 'X-Service-OAuth-Client-Id': client.clientId },
      });
      const stream = await openai.chat.completions.create({
        ...CHAT,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let chunks = 0;
      for await (const chunk of stream) {
        chunks += 1;
        text += chunk.choices[0]?.delta?.content ?? '';
      }
      expect(chunks).toBeGreaterThan(2);
      expect(text.length).toBeGreaterThan(0);

      // The record is written when the stream's ending has settled, a moment after the last chunk.
      let activity = await app.http('/api/v1/usage/me/activity', { token: alice.session });
      for (let tries = 0; !activity.body.data.items.length && tries < 100; tries += 1) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        await app.app.get(UsageRecorder).flush();
        activity = await app.http('/api/v1/usage/me/activity', { token: alice.session });
      }
      expect(activity.body.data.items[0]).toMatchObject({
        name: 'Streaming App',
        credentialType: 'oauth',
        model: 'demo-chat',
        status: 'success',
      });
      const usage = await app.http(`/api/v1/oauth2/clients/${client.clientId}/usage`, { token: owner.session });
      expect(usage.status).toBe(200);
      expect(usage.body.data).toMatchObject({ clientId: client.clientId, requests: 1, users: 1 });
      expect(usage.body.data.totalTokens).toBeGreaterThan(0);
      expect(usage.body.data.byModel[0].model).toBe('demo-chat');
      // The user's own summary is readable by the app (scope api:access, client-id header).
      const summary = await v1(tokens.access_token, client.clientId, '/api/v1/usage/me/summary');
      expect(summary.status).toBe(200);
      expect(summary.body.data.totalCost).toBeGreaterThan(0);
    });

    it('the interface’s JSON body works the same', async () => {
      const client = await kit.createClient();
      const { callback, verifier } = await kit.codeFor(client.clientId);
      const res = await app.http('/oauth2/token', {
        body: {
          grantType: 'authorization_code',
          code: callback.searchParams.get('code'),
          codeVerifier: verifier,
          clientId: client.clientId,
          redirectUri: CALLBACK,
        },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(callback.searchParams.get('iss')).toBe(app.url);
      const refreshed = await app.http('/oauth2/token', {
        body: { grantType: 'refresh_token', refreshToken: res.body.refresh_token, clientId: client.clientId },
      });
      expect(refreshed.status).toBe(200);
      expect(refreshed.body.refresh_token).not.toBe(res.body.refresh_token);
    });

    it('confidential client: Basic auth, refresh rotation, userinfo, introspection and revocation', async () => {
      const client = await kit.createClient({ generateSecret: true, clientName: 'Server App' });
      expect(client.clientType).toBe('CONFIDENTIAL');
      expect(client.clientSecret).toMatch(/^sycs_/);
      const listed = await app.http(`/api/v1/oauth2/clients/${client.id}`, { token: owner.session });
      expect(listed.body.data.clientSecret).toBeUndefined();
      const oauthClient: oauth.Client = { client_id: client.clientId };
      const auth = oauth.ClientSecretBasic(client.clientSecret!);
      const first = await kit.tokensFor(client);

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        oauthClient,
        await oauth.refreshTokenGrantRequest(as, oauthClient, auth, first.refresh_token!, insecure),
      );
      expect(refreshed.access_token).not.toBe(first.access_token);

      const info = await oauth.processUserInfoResponse(
        as,
        oauthClient,
        alice.id,
        await oauth.userInfoRequest(as, oauthClient, refreshed.access_token, insecure),
      );
      expect(info).toMatchObject({ sub: alice.id, email: expect.stringContaining('@example.com') });

      const introspected = await oauth.processIntrospectionResponse(
        as,
        oauthClient,
        await oauth.introspectionRequest(as, oauthClient, auth, refreshed.access_token, insecure),
      );
      expect(introspected).toMatchObject({
        active: true,
        client_id: client.clientId,
        sub: alice.id,
        scope: 'api:access profile:read',
      });

      // A wrong secret is invalid_client, 401, with the Basic challenge.
      const wrong = await tokenRequest(
        { grant_type: 'refresh_token', refresh_token: refreshed.refresh_token! },
        { authorization: `Basic ${Buffer.from(`${client.clientId}:nope`).toString('base64')}` },
      );
      expect(wrong.status).toBe(401);
      expect(wrong.body.error).toBe('invalid_client');
      expect(wrong.headers.get('www-authenticate')).toMatch(/^Basic/);

      await oauth.processRevocationResponse(
        await oauth.revocationRequest(as, oauthClient, auth, refreshed.access_token, insecure),
      );
      expect((await v1(refreshed.access_token, client.clientId)).status).toBe(401);
      const after = await oauth.processIntrospectionResponse(
        as,
        oauthClient,
        await oauth.introspectionRequest(as, oauthClient, auth, refreshed.access_token, insecure),
      );
      expect(after.active).toBe(false);
    });

    it('sends a signed-out browser to sign in, then back to the same authorization', async () => {
      const client = await kit.createClient();
      const { challengePromise } = kit.pkce();
      const res = await kit.authorize(
        {
          client_id: client.clientId,
          response_type: 'code',
          redirect_uri: CALLBACK,
          state: 'z',
          code_challenge: await challengePromise,
          code_challenge_method: 'S256',
        },
        null,
      );
      expect(res.status).toBe(302);
      const next = new URL(res.location!, app.url).searchParams.get('next')!;
      expect(new URL(res.location!, app.url).pathname).toBe('/signin');
      expect(next).toMatch(/^\/oauth2\/authorize\?client_id=/);
    });
  });

  describe('who is asked for consent (only admin-trusted first-party apps skip it; RFC 8252 section 8.6)', () => {
    const request = async (clientId: string, extra: Record<string, string> = {}) => {
      const { challengePromise } = kit.pkce();
      return {
        client_id: clientId,
        response_type: 'code',
        redirect_uri: CALLBACK,
        scope: 'api:access',
        state: 'st',
        code_challenge: await challengePromise,
        code_challenge_method: 'S256',
        ...extra,
      };
    };
    const approve = async (params: Record<string, string>, user: User = alice) => {
      const decision = await app.http('/api/v1/oauth2/authorize/decision', {
        token: user.session,
        body: { ...params, approve: true },
      });
      expect(decision.status).toBe(200);
      return decision.body.data.redirectTo as string;
    };
    const trust = (clientId: string, trusted: boolean, token = admin) =>
      app.http(`/api/v1/admin/oauth2/clients/${clientId}/trusted`, { method: 'PUT', token, body: { trusted } });

    it('an untrusted public app with a loopback redirect is asked every time, even after the user consented', async () => {
      const client = await kit.createClient();
      const params = await request(client.clientId);
      expect((await kit.authorize(params)).location).toMatch(/^\/consent\?/);
      expect(await approve(params)).toMatch(/^http:\/\/127\.0\.0\.1:8765\/callback\?code=/);
      // The consent exists, yet any program on the device could be this client: the page comes again.
      const again = await kit.authorize(await request(client.clientId));
      expect(again.location).toMatch(/^\/consent\?/);
      expect(
        (await app.http('/api/v1/oauth2/consents', { token: alice.session })).body.data.map(
          (c: { clientId: string }) => c.clientId,
        ),
      ).toContain(client.clientId);
    });

    it('a confidential app reuses this user’s earlier consent when it covers the scopes, and asks again for more', async () => {
      const client = await kit.createClient({ generateSecret: true });
      const params = await request(client.clientId);
      expect((await kit.authorize(params)).location).toMatch(/^\/consent\?/);
      await approve(params);
      expect((await kit.authorize(await request(client.clientId))).location).toMatch(
        /^http:\/\/127\.0\.0\.1:8765\/callback\?code=/,
      );
      expect(
        (await kit.authorize(await request(client.clientId, { scope: 'api:access profile:read' }))).location,
      ).toMatch(/^\/consent\?/);
    });

    it('user A’s consent never authorizes user B', async () => {
      const client = await kit.createClient({ generateSecret: true });
      const params = await request(client.clientId);
      await approve(params, alice);
      expect((await kit.authorize(await request(client.clientId), alice)).location).toMatch(/code=/);
      const bob = await kit.newUser();
      const forBob = await kit.authorize(await request(client.clientId), bob);
      expect(forBob.location).toMatch(/^\/consent\?/);
      expect((await app.http('/api/v1/oauth2/consents', { token: bob.session })).body.data).toEqual([]);
    });

    it('an owner’s public app with an https redirect reuses the consent; a dynamically registered one never does', async () => {
      const https = 'https://app.example/callback';
      const client = await kit.createClient({ redirectUris: [https] });
      const params = await request(client.clientId, { redirect_uri: https });
      expect((await kit.authorize(params)).location).toMatch(/^\/consent\?/);
      await approve(params);
      expect((await kit.authorize(await request(client.clientId, { redirect_uri: https }))).location).toMatch(
        /^https:\/\/app\.example\/callback\?code=/,
      );

      const registered = await app.http('/oauth2/register', {
        body: { redirect_uris: [https], client_name: 'Agent Host' },
      });
      expect(registered.status).toBe(201);
      const dynamic = await request(registered.body.client_id, { redirect_uri: https });
      await approve(dynamic);
      expect((await kit.authorize(await request(registered.body.client_id, { redirect_uri: https }))).location).toMatch(
        /^\/consent\?/,
      );
    });

    it('a trusted first-party app skips the page for every user; only an admin may trust it, and untrusting brings the page back', async () => {
      const client = await kit.createClient({ clientName: 'First-party App' });
      expect((await kit.authorize(await request(client.clientId))).location).toMatch(/^\/consent\?/);
      // Its owner is not an admin: the same 403 as any admin route; an unknown app is 404.
      expect(await trust(client.clientId, true, owner.session)).toMatchObject({
        status: 403,
        body: { success: false, error: { code: 'FORBIDDEN' } },
      });
      expect(await trust('syc_unknown', true)).toMatchObject({
        status: 404,
        body: { error: { code: 'CLIENT_NOT_FOUND' } },
      });
      expect(
        (
          await app.http(`/api/v1/admin/oauth2/clients/${client.clientId}/trusted`, {
            method: 'PUT',
            token: admin,
            body: { trusted: 'yes' },
          })
        ).status,
      ).toBe(400);
      const trusted = await trust(client.clientId, true);
      expect(trusted.status).toBe(200);
      expect(trusted.body.data).toMatchObject({ clientId: client.clientId, trusted: true, requireConsent: false });
      for (const user of [alice, await kit.newUser()]) {
        const direct = await kit.authorize(await request(client.clientId), user);
        expect(direct.location).toMatch(/^http:\/\/127\.0\.0\.1:8765\/callback\?code=/);
        // The consent is recorded all the same, so the user sees the app and can revoke it.
        expect(
          (await app.http('/api/v1/oauth2/consents', { token: user.session })).body.data.map(
            (c: { clientId: string }) => c.clientId,
          ),
        ).toContain(client.clientId);
      }
      expect((await trust(client.clientId, false)).body.data).toMatchObject({ trusted: false, requireConsent: true });
      expect((await kit.authorize(await request(client.clientId))).location).toMatch(/^\/consent\?/);

      const registered = await app.http('/oauth2/register', {
        body: { redirect_uris: [CALLBACK], client_name: 'Anonymous Agent' },
      });
      expect((await trust(registered.body.client_id, true)).body.error.code).toBe('CLIENT_NOT_TRUSTABLE');
    });
  });

  describe('refused as the RFCs require', () => {
    let client: Awaited<ReturnType<OAuthTestKit['createClient']>>;
    beforeAll(async () => {
      client = await kit.createClient({ clientName: 'Refusals App' });
    });

    const exchange = (code: string, verifier: string | undefined, clientId = client.clientId, redirectUri = CALLBACK) =>
      tokenRequest({
        grant_type: 'authorization_code',
        code,
        client_id: clientId,
        redirect_uri: redirectUri,
        ...(verifier !== undefined ? { code_verifier: verifier } : {}),
      });

    it('a code replayed by its own client with the verifier ends the tokens of its first use', async () => {
      const { callback, verifier } = await kit.codeFor(client.clientId);
      const code = callback.searchParams.get('code')!;
      const first = await exchange(code, verifier);
      expect(first.status).toBe(200);
      expect((await v1(first.body.access_token, client.clientId)).status).toBe(200);
      const second = await exchange(code, verifier);
      expect(second).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect(second.headers.get('cache-control')).toBe('no-store');
      expect((await v1(first.body.access_token, client.clientId)).status).toBe(401);
    });

    it('a code replayed without its verifier, or by another client, revokes nothing (the replaying client is authenticated first)', async () => {
      const { callback, verifier } = await kit.codeFor(client.clientId);
      const code = callback.searchParams.get('code')!;
      const first = await exchange(code, verifier);
      expect(first.status).toBe(200);
      const other = await kit.createClient();
      for (const attempt of [
        await exchange(code, oauth.generateRandomCodeVerifier()),
        await exchange(code, undefined),
        await exchange(code, verifier, other.clientId),
        await tokenRequest({
          grant_type: 'authorization_code',
          code,
          client_id: 'syc_unknown',
          redirect_uri: CALLBACK,
          code_verifier: verifier,
        }),
      ])
        expect(attempt.status).toBeGreaterThanOrEqual(400);
      expect((await v1(first.body.access_token, client.clientId)).status).toBe(200);

      // A confidential client's replay with a wrong secret fails client authentication before the code is looked at.
      const server = await kit.createClient({ generateSecret: true });
      const issued = await kit.codeFor(server.clientId);
      const serverCode = issued.callback.searchParams.get('code')!;
      const basic = (secret: string) => ({
        authorization: `Basic ${Buffer.from(`${server.clientId}:${secret}`).toString('base64')}`,
      });
      const body = {
        grant_type: 'authorization_code',
        code: serverCode,
        redirect_uri: CALLBACK,
        code_verifier: issued.verifier,
      };
      const ok = await tokenRequest(body, basic(server.clientSecret!));
      expect(ok.status).toBe(200);
      expect(await tokenRequest(body, basic('sycs_wrong'))).toMatchObject({
        status: 401,
        body: { error: 'invalid_client' },
      });
      expect((await v1(ok.body.access_token, server.clientId)).status).toBe(200);
      expect((await tokenRequest(body, basic(server.clientSecret!))).body.error).toBe('invalid_grant');
      expect((await v1(ok.body.access_token, server.clientId)).status).toBe(401);
    });

    it('a code sent by another client', async () => {
      const other = await kit.createClient();
      const { callback, verifier } = await kit.codeFor(client.clientId);
      const res = await exchange(callback.searchParams.get('code')!, verifier, other.clientId);
      expect(res).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    });

    it('a wrong or missing code_verifier', async () => {
      const wrong = await kit.codeFor(client.clientId);
      expect(
        await exchange(wrong.callback.searchParams.get('code')!, oauth.generateRandomCodeVerifier()),
      ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      const missing = await kit.codeFor(client.clientId);
      expect(await exchange(missing.callback.searchParams.get('code')!, undefined)).toMatchObject({
        status: 400,
        body: { error: 'invalid_request' },
      });
    });

    it('a plain or missing code_challenge, answered on the redirect URI with the state', async () => {
      const base = { client_id: client.clientId, response_type: 'code', redirect_uri: CALLBACK, state: 'keep-me' };
      for (const extra of [{ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, {}] as Record<
        string,
        string
      >[]) {
        const res = await kit.authorize({ ...base, ...extra });
        expect(res.status).toBe(302);
        const location = new URL(res.location!);
        expect(location.searchParams.get('error')).toBe('invalid_request');
        expect(location.searchParams.get('state')).toBe('keep-me');
        expect(location.searchParams.get('iss')).toBe(app.url);
        expect(location.searchParams.get('code')).toBeNull();
      }
    });

    it('a redirect_uri other than the registered one, or an unknown client: an error page, never a redirect', async () => {
      const { challengePromise } = kit.pkce();
      const challenge = await challengePromise;
      for (const params of [
        { client_id: client.clientId, redirect_uri: 'http://127.0.0.1:8765/callback/evil' },
        { client_id: client.clientId, redirect_uri: 'https://attacker.example/callback' },
        { client_id: 'syc_unknown', redirect_uri: CALLBACK },
      ]) {
        const res = await kit.authorize({
          ...params,
          response_type: 'code',
          state: 's',
          code_challenge: challenge,
          code_challenge_method: 'S256',
        });
        expect(res.status).toBe(400);
        expect(res.location).toBeNull();
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        expect(res.text).toContain('not valid');
      }
      expect(
        (await tokenRequest({ grant_type: 'authorization_code', code: 'x', client_id: 'syc_unknown' })).body.error,
      ).toBe('invalid_client');
    });

    it('a redirect_uri at the token endpoint that differs from the authorization request', async () => {
      const { callback, verifier } = await kit.codeFor(client.clientId);
      expect(
        await exchange(callback.searchParams.get('code')!, verifier, client.clientId, 'http://127.0.0.1:8765/other'),
      ).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    });

    it('a token in the query string', async () => {
      const tokens = await kit.tokensFor(client);
      const res = await app.http(`/v1/models?access_token=${tokens.access_token}`, {
        headers: { 'x-service-oauth-client-id': client.clientId },
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    });

    it('scope escalation on refresh; narrowing is allowed and holds', async () => {
      const narrow = await kit.tokensFor(client, { scope: 'profile:read' });
      expect(narrow.scope).toBe('profile:read');
      const escalate = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: narrow.refresh_token!,
        client_id: client.clientId,
        scope: 'profile:read api:access',
      });
      expect(escalate).toMatchObject({ status: 400, body: { error: 'invalid_scope' } });
      // The refused request did not use the refresh token up.
      const ok = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: narrow.refresh_token!,
        client_id: client.clientId,
      });
      expect(ok.status).toBe(200);
      const denied = await v1(ok.body.access_token, client.clientId);
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe('insufficient_scope');

      const full = await kit.tokensFor(client);
      const narrowed = await tokenRequest({
        grant_type: 'refresh_token',
        refresh_token: full.refresh_token!,
        client_id: client.clientId,
        scope: 'profile:read',
      });
      expect(narrowed.body.scope).toBe('profile:read');
      expect((await v1(narrowed.body.access_token, client.clientId)).status).toBe(403);
    });

    const refresh = (token: string, extra: Record<string, string> = {}) =>
      tokenRequest({ grant_type: 'refresh_token', refresh_token: token, client_id: client.clientId, ...extra });
    /** Moves a refresh token's use back in time, past the retry grace. */
    const ageUse = (token: string, seconds: number) =>
      app.database.dataSource.query(
        `UPDATE oauth_tokens SET used_at = now() - make_interval(secs => $2) WHERE token_hash = encode(sha256(convert_to($1, 'UTF8')), 'hex')`,
        [token, seconds],
      );

    it('a refresh token replayed after the 10-second retry grace ends the whole grant', async () => {
      const tokens = await kit.tokensFor(client);
      const rotated = await refresh(tokens.refresh_token!);
      expect(rotated.status).toBe(200);
      expect((await v1(rotated.body.access_token, client.clientId)).status).toBe(200);
      await ageUse(tokens.refresh_token!, 11);
      const replay = await refresh(tokens.refresh_token!);
      expect(replay).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect((await v1(rotated.body.access_token, client.clientId)).status).toBe(401);
      expect((await refresh(rotated.body.refresh_token)).body.error).toBe('invalid_grant');
    });

    it('ten parallel refreshes of one token all succeed and the grant stays alive (a retry within the grace gets a pair too)', async () => {
      const tokens = await kit.tokensFor(client);
      const results = await Promise.all(Array.from({ length: 10 }, () => refresh(tokens.refresh_token!)));
      expect(results.map((result) => result.status)).toEqual(results.map(() => 200));
      expect(new Set(results.map((result) => result.body.refresh_token)).size).toBe(10);
      for (const result of results) expect((await v1(result.body.access_token, client.clientId)).status).toBe(200);
      // The client goes on with the pair it kept; the other new refresh tokens are revoked then, the grant lives.
      const [kept, ...others] = results;
      const next = await refresh(kept.body.refresh_token);
      expect(next.status).toBe(200);
      for (const other of others) expect((await refresh(other.body.refresh_token)).body.error).toBe('invalid_grant');
      expect((await v1(next.body.access_token, client.clientId)).status).toBe(200);
      expect((await refresh(next.body.refresh_token)).status).toBe(200);
    });

    it('an older refresh token (its successor already used) ends the grant, even within the grace', async () => {
      const tokens = await kit.tokensFor(client);
      const second = await refresh(tokens.refresh_token!);
      const third = await refresh(second.body.refresh_token);
      expect(third.status).toBe(200);
      expect(await refresh(tokens.refresh_token!)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
      expect((await v1(third.body.access_token, client.clientId)).status).toBe(401);
    });

    it('a retry within the grace that asks for more scopes is refused and ends nothing', async () => {
      const tokens = await kit.tokensFor(client, { scope: 'profile:read' });
      const rotated = await refresh(tokens.refresh_token!);
      expect(rotated.status).toBe(200);
      expect(await refresh(tokens.refresh_token!, { scope: 'api:access profile:read' })).toMatchObject({
        status: 400,
        body: { error: 'invalid_scope' },
      });
      expect((await refresh(rotated.body.refresh_token)).status).toBe(200);
    });

    it('refreshes alongside chat traffic: every statement stands alone, so none breaks the other', async () => {
      const grants = await Promise.all(Array.from({ length: 8 }, () => kit.tokensFor(client)));
      const [refreshes, chats] = await Promise.all([
        Promise.all(
          grants.map((grant) =>
            tokenRequest({
              grant_type: 'refresh_token',
              refresh_token: grant.refresh_token!,
              client_id: client.clientId,
            }),
          ),
        ),
        Promise.all(
          grants.flatMap((grant) =>
            [1, 2, 3].map(() => v1(grant.access_token, client.clientId, '/v1/chat/completions', { body: CHAT })),
          ),
        ),
      ]);
      expect(refreshes.map((res) => res.status)).toEqual(grants.map(() => 200));
      expect(chats.map((res) => res.status)).toEqual(chats.map(() => 200));
    });

    it('a revoked and an expired token', async () => {
      const revoked = await kit.tokensFor(client);
      const revoke = await fetch(`${app.url}/oauth2/revoke?token=${encodeURIComponent(revoked.access_token)}`, {
        method: 'POST',
      });
      expect(revoke.status).toBe(200);
      expect((await v1(revoked.access_token, client.clientId)).status).toBe(401);

      const expired = await kit.tokensFor(client);
      await app.database.dataSource.query(
        `UPDATE oauth_tokens SET expires_at = now() - interval '1 second' WHERE kind = 'access' AND expires_at > now()`,
      );
      const res = await v1(expired.access_token, client.clientId);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toMatch(/^Bearer/);
    });

    it('a missing or foreign client-id header; optional on /oauth2/v1; OAuth tokens never on /apikey/v1', async () => {
      const tokens = await kit.tokensFor(client);
      const missing = await v1(tokens.access_token, null);
      expect(missing.status).toBe(400);
      expect(missing.body.error.code).toBe('invalid_request');
      const foreign = await v1(tokens.access_token, 'syc_someone_else');
      expect(foreign.status).toBe(401);
      expect(foreign.body.error.code).toBe('invalid_token');
      expect((await v1(tokens.access_token, null, '/oauth2/v1/models')).status).toBe(200);
      expect((await v1(tokens.access_token, 'syc_someone_else', '/oauth2/v1/models')).status).toBe(401);
      expect((await v1(tokens.access_token, client.clientId, '/apikey/v1/models')).status).toBe(403);
      expect((await v1(tokens.access_token, null, '/api/v1/usage/me/summary')).status).toBe(400);
      // A dashboard-only route refuses an app's token.
      expect((await app.http('/api/v1/keys', { token: tokens.access_token })).status).toBe(401);
    });

    it('compares the client-id header exactly: a value that matches only once trimmed is refused', async () => {
      const tokens = await kit.tokensFor(client);
      // Node already drops spaces and tabs around header values; a no-break space (0xA0) survives and String.trim() drops it.
      for (const header of [`${client.clientId}\u00a0`, `\u00a0${client.clientId}`]) {
        for (const path of ['/v1/models', '/oauth2/v1/models', '/api/v1/usage/me/summary']) {
          const res = await rawGet(path, {
            authorization: `Bearer ${tokens.access_token}`,
            'x-service-oauth-client-id': header,
          });
          expect([path, res.status]).toEqual([path, 401]);
        }
      }
      expect(
        (
          await rawGet('/v1/models', {
            authorization: `Bearer ${tokens.access_token}`,
            'x-service-oauth-client-id': client.clientId,
          })
        ).status,
      ).toBe(200);
    });

    it('CSRF on the consent decision, and a consent page that refuses to be framed', async () => {
      const { challengePromise } = kit.pkce();
      const params = {
        client_id: client.clientId,
        response_type: 'code',
        redirect_uri: CALLBACK,
        scope: 'api:access',
        state: 'csrf',
        code_challenge: await challengePromise,
        code_challenge_method: 'S256',
      };
      const post = (headers: Record<string, string>) =>
        fetch(`${app.url}/api/v1/oauth2/authorize/decision`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', cookie: alice.cookie, ...headers },
          body: JSON.stringify({ ...params, approve: true }),
        });
      const forged = await post({});
      expect(forged.status).toBe(403);
      expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('CSRF_INVALID');
      const genuine = await post({ 'x-csrf-token': alice.csrf });
      expect(genuine.status).toBe(200);
      const page = await kit.authorize(params);
      expect(page.headers.get('x-frame-options')).toBe('DENY');
      expect(page.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    });

    it('Deny sends access_denied back to the app with the state', async () => {
      const fresh = await kit.createClient();
      const { challengePromise } = kit.pkce();
      const params = {
        client_id: fresh.clientId,
        response_type: 'code',
        redirect_uri: CALLBACK,
        scope: 'api:access',
        state: 'deny-me',
        code_challenge: await challengePromise,
        code_challenge_method: 'S256',
      };
      expect((await kit.authorize(params)).location).toMatch(/^\/consent\?/);
      // Parameters it does not know (an MCP client's `resource`, OIDC's `nonce`) are ignored, not refused.
      const consentUrl = (await kit.authorize({ ...params, resource: 'https://mcp.example/', nonce: 'n' })).location!;
      expect(consentUrl).not.toContain('resource');
      const info = await app.http(`/api/v1/oauth2/authorize/request?${consentUrl.split('?')[1]}`, {
        token: alice.session,
      });
      expect(info.body.data).toMatchObject({
        client: { clientName: 'Test App', redirectHost: '127.0.0.1:8765' },
        scopes: [{ scope: 'api:access' }],
      });
      const decision = await app.http('/api/v1/oauth2/authorize/decision', {
        token: alice.session,
        body: { ...params, approve: false },
      });
      const location = new URL(decision.body.data.redirectTo);
      expect(location.searchParams.get('error')).toBe('access_denied');
      expect(location.searchParams.get('state')).toBe('deny-me');
    });
  });

  describe('requests per minute per app', () => {
    it('limits each user of an app to the app’s rate, with 429 and Retry-After', async () => {
      const client = await kit.createClient({ clientName: 'Busy App', requestsPerMinute: 2 });
      expect(client).toMatchObject({ requestsPerMinute: 2 });
      const first = await kit.tokensFor(client);
      const statuses = [];
      for (let i = 0; i < 3; i += 1) statuses.push((await v1(first.access_token, client.clientId)).status);
      expect(statuses).toEqual([200, 200, 429]);
      // Another user of the same app has a rate of their own.
      const bob = await kit.newUser();
      const second = await kit.tokensFor(client, { user: bob });
      expect((await v1(second.access_token, client.clientId)).status).toBe(200);
    });
  });

  describe('dynamic registration (RFC 7591) for agent hosts', () => {
    it('registers a public PKCE client that then completes the flow; refuses confidential ones', async () => {
      const response = await oauth.dynamicClientRegistrationRequest(
        as,
        { redirect_uris: [CALLBACK], client_name: 'MCP Agent', token_endpoint_auth_method: 'none' },
        insecure,
      );
      const registered = await oauth.processDynamicClientRegistrationResponse(response);
      expect(registered).toMatchObject({
        client_name: 'MCP Agent',
        token_endpoint_auth_method: 'none',
        redirect_uris: [CALLBACK],
      });
      const tokens = await kit.tokensFor({ clientId: registered.client_id }, { scope: 'api:access' });
      expect((await v1(tokens.access_token, registered.client_id)).status).toBe(200);

      const confidential = await app.http('/oauth2/register', {
        body: { redirect_uris: [CALLBACK], token_endpoint_auth_method: 'client_secret_basic' },
      });
      expect(confidential).toMatchObject({ status: 400, body: { error: 'invalid_client_metadata' } });
      const badUri = await app.http('/oauth2/register', { body: { redirect_uris: ['http://evil.example/cb'] } });
      expect(badUri).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
    });

    it('an invalid request of a dynamically registered app never redirects a signed-out browser to it (no open redirect)', async () => {
      const attacker = 'https://attacker.example/landing';
      const registered = await app.http('/oauth2/register', {
        body: { redirect_uris: [attacker], client_name: 'Helpful Agent' },
      });
      expect(registered.status).toBe(201);
      const bad = { client_id: registered.body.client_id, redirect_uri: attacker, response_type: 'token', state: 's' };
      const signedOut = await kit.authorize(bad, null);
      expect(signedOut.status).toBe(400);
      expect(signedOut.location).toBeNull();
      expect(signedOut.headers.get('content-type')).toMatch(/^text\/html/);
      // The page is the dashboard's: its card and title classes.
      expect(signedOut.text).toContain('class="center-page"');
      expect(signedOut.text).toContain('class="auth-title"');
      expect(signedOut.text).toContain('response_type must be code');
      // Once the user has signed in here, the error goes back to the app as RFC 6749 says.
      const signedIn = await kit.authorize(bad, alice);
      expect(signedIn.status).toBe(302);
      expect(new URL(signedIn.location!).origin + new URL(signedIn.location!).pathname).toBe(attacker);
      expect(new URL(signedIn.location!).searchParams.get('error')).toBe('unsupported_response_type');
    });

    it('a signed-out browser is sent back with an error only to an admin-trusted app; any other app shows the error page', async () => {
      // Any user may register an app whose https redirect URI is anywhere: without this rule an authorize error
      // of such an app, sent to a signed-out browser, turns this origin into an open redirector.
      const landing = 'https://landing.example/after';
      const owned = await kit.createClient({ clientName: 'Landing App', redirectUris: [landing] });
      const bad = { client_id: owned.clientId, redirect_uri: landing, response_type: 'token', state: 's' };
      const signedOut = await kit.authorize(bad, null);
      expect(signedOut.status).toBe(400);
      expect(signedOut.location).toBeNull();
      expect(signedOut.text).toContain('response_type must be code');
      const pkceMissing = await kit.authorize({ ...bad, response_type: 'code' }, null);
      expect([pkceMissing.status, pkceMissing.location]).toEqual([400, null]);
      // Signed in, the error goes back to the app (RFC 6749 section 4.1.2.1).
      const signedIn = await kit.authorize(bad, alice);
      expect(signedIn.status).toBe(302);
      expect(signedIn.location).toMatch(/^https:\/\/landing\.example\/after\?error=unsupported_response_type/);
      // An app an admin trusted gets its errors even for a signed-out browser.
      const trusted = await kit.createClient({ clientName: 'First Party' });
      const trust = await app.http(`/api/v1/admin/oauth2/clients/${trusted.clientId}/trusted`, {
        method: 'PUT',
        token: admin,
        body: { trusted: true },
      });
      expect(trust.status).toBe(200);
      const trustedError = await kit.authorize({ ...bad, client_id: trusted.clientId, redirect_uri: CALLBACK }, null);
      expect(trustedError.status).toBe(302);
      expect(trustedError.location).toMatch(/^http:\/\/127\.0\.0\.1:8765\/callback\?error=unsupported_response_type/);
    });

    it('refuses app names that pass for the service (switchyard, admin, official; any case, spacing or look-alike letters)', async () => {
      // An owner's app: clients.integration-spec.ts.
      for (const name of ['Switchyard', 'switch yard login', 'Swіtchyard Helper', 'ADMIN tools', 'Оfficial Agent']) {
        const res = await app.http('/oauth2/register', { body: { redirect_uris: [CALLBACK], client_name: name } });
        expect([name, res.status, res.body.error]).toEqual([name, 400, 'invalid_client_metadata']);
        expect(res.body.error_description).toContain('must not contain');
      }
    });

    it('a registration that obtained no token within 24 hours is ignored, then deleted; a used one stays', async () => {
      const register = async (client_name: string) =>
        (await app.http('/oauth2/register', { body: { redirect_uris: [CALLBACK], client_name } })).body
          .client_id as string;
      const unused = await register('Forgotten Agent');
      const used = await register('Busy Agent');
      const tokens = await kit.tokensFor({ clientId: used }, { scope: 'api:access' });
      await app.database.dataSource.query(
        `UPDATE oauth_clients SET created_at = now() - interval '25 hours' WHERE client_id = ANY($1)`,
        [[unused, used]],
      );
      const { challengePromise } = kit.pkce();
      const page = await kit.authorize({
        client_id: unused,
        redirect_uri: CALLBACK,
        response_type: 'code',
        code_challenge: await challengePromise,
        code_challenge_method: 'S256',
      });
      expect(page.status).toBe(400);
      expect(page.text).toContain('unknown or no longer active');
      expect(
        (await tokenRequest({ grant_type: 'refresh_token', refresh_token: 'syr_x', client_id: unused })).body.error,
      ).toBe('invalid_client');
      expect(
        (await tokenRequest({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: used }))
          .status,
      ).toBe(200);
      expect(await app.app.get(ClientsService).purgeUnusedRegistrations()).toBeGreaterThanOrEqual(1);
      const left: { client_id: string }[] = await app.database.dataSource.query(
        'SELECT client_id FROM oauth_clients WHERE client_id = ANY($1)',
        [[unused, used]],
      );
      expect(left.map((row) => row.client_id)).toEqual([used]);
    });

    it('is limited to 20 registrations per hour per client address (429 with Retry-After)', async () => {
      const fresh = await startTestApp({ signupCredit: 0 });
      try {
        const statuses: number[] = [];
        let last: Awaited<ReturnType<TestApp['http']>> | undefined;
        for (let i = 0; i < 21; i += 1) {
          last = await fresh.http('/oauth2/register', {
            body: { redirect_uris: [CALLBACK], client_name: `Agent ${i}` },
          });
          statuses.push(last.status);
        }
        expect(statuses).toEqual([...Array.from({ length: 20 }, () => 201), 429]);
        expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
        const [{ count }] = await fresh.database.dataSource.query(
          `SELECT count(*)::int AS count FROM oauth_clients WHERE registration = 'dynamic'`,
        );
        expect(count).toBe(20);
      } finally {
        await fresh.close();
      }
    });
  });
});
