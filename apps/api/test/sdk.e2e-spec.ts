import Anthropic from '@anthropic-ai/sdk';
import {
  AuthorizationError,
  BudgetExhaustedError,
  createSwitchyard,
  memoryStorage,
  NotSignedInError,
  type StorageLike,
  SwitchyardError,
  toSwitchyardError,
} from '@switchyard/sdk';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import OpenAI from 'openai';
import { CALLBACK, freePort, OAuthTestKit, type OAuthTestUser as User } from './support/oauth-flow';
import { startTestApp, TestApp } from './support/test-app';

/**
 * The SDK (libs/sdk, docs/sdk.md) against the real server, in Node: PKCE and state, storage, refresh once then
 * sign in again, the error mapping, sign-out, and the openai SDK, @anthropic-ai/sdk and the Vercel AI SDK driven
 * through its options. The browser side (popups, the script tag, React) is the browser test's
 * (tools/browser/specs/example-chat.mjs).
 */
describe('the SDK against the server', () => {
  let app: TestApp;
  let kit: OAuthTestKit;
  /** Every request the SDK made, as `METHOD path`, and the token endpoint's bodies. */
  let sent: string[];
  let tokenBodies: Record<string, string>[];

  const recordingFetch: typeof fetch = async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    sent.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    if (url.pathname === '/oauth2/token') tokenBodies.push(JSON.parse(String(init?.body)));
    return fetch(input, init);
  };

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp({ port, publicUrl: `http://127.0.0.1:${port}`, signupCredit: 0 });
    kit = await OAuthTestKit.start(app);
  });
  afterAll(() => app?.close());
  beforeEach(() => {
    sent = [];
    tokenBodies = [];
  });

  /** An SDK client for a new app, and the user's browser taking the authorization URL to the callback. */
  async function signedIn(
    options: { user?: User; storage?: StorageLike; limits?: Record<string, number>; scopes?: string[] } = {},
  ) {
    const client = await kit.createClient({ clientName: 'SDK App', requestedScopes: ['api:access'] });
    const storage = options.storage ?? memoryStorage();
    const sy = createSwitchyard({
      baseUrl: app.url,
      clientId: client.clientId,
      redirectUri: CALLBACK,
      storage,
      fetch: recordingFetch,
      ...(options.scopes ? { scopes: options.scopes } : {}),
    });
    const callback = await browserCallback(sy, options.user ?? kit.alice, options.limits);
    const user = await sy.handleRedirect(callback.toString());
    return { sy, client, storage, user, callback };
  }

  async function browserCallback(
    sy: ReturnType<typeof createSwitchyard>,
    user: User,
    limits?: Record<string, number>,
  ): Promise<URL> {
    const url = new URL(await sy.createAuthorizationUrl());
    const params = Object.fromEntries(url.searchParams);
    let { location } = await kit.authorize(params, user);
    if (location?.startsWith('/consent?')) {
      const decision = await app.http('/api/v1/oauth2/authorize/decision', {
        token: user.session,
        body: { ...params, approve: true, ...(limits ? { limits } : {}) },
      });
      location = decision.body.data.redirectTo;
    }
    return new URL(location!);
  }

  it('signs in with PKCE S256, a checked state and the JSON token body; the ID token names the user', async () => {
    await app.http('/api/v1/auth/me', { method: 'PATCH', token: kit.alice.session, body: { name: 'Alice' } });
    const { sy, client, user, callback } = await signedIn();
    expect(user).toEqual({ id: kit.alice.id, name: 'Alice' });
    expect(sy.state).toEqual({ status: 'signed-in', user });
    expect(tokenBodies).toEqual([
      {
        grantType: 'authorization_code',
        code: callback.searchParams.get('code'),
        codeVerifier: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
        clientId: client.clientId,
        redirectUri: CALLBACK,
      },
    ]);
    // The same answer again: the sign-in it belonged to is over, so the code is not sent a second time (which
    // would end the authorization).
    await expect(sy.handleRedirect(callback.toString())).rejects.toMatchObject({ code: 'state_mismatch' });
    expect(tokenBodies).toHaveLength(1);
    // Not an answer at all: nothing to do.
    expect(await sy.handleRedirect(`${CALLBACK}?foo=1`)).toBeNull();
    expect((await sy.fetch('/v1/models')).status).toBe(200);
  });

  it('refuses an answer whose state differs, or that comes from another issuer, before any token request', async () => {
    const client = await kit.createClient({ clientName: 'State App', requestedScopes: ['api:access'] });
    const sy = createSwitchyard({
      baseUrl: app.url,
      clientId: client.clientId,
      redirectUri: CALLBACK,
      fetch: recordingFetch,
    });
    const callback = await browserCallback(sy, kit.alice);
    const forged = new URL(callback);
    forged.searchParams.set('state', 'attacker-state');
    await expect(sy.handleRedirect(forged.toString())).rejects.toBeInstanceOf(AuthorizationError);
    const other = createSwitchyard({
      baseUrl: app.url,
      clientId: client.clientId,
      redirectUri: CALLBACK,
      fetch: recordingFetch,
    });
    const answer = await browserCallback(other, kit.alice);
    answer.searchParams.set('iss', 'https://evil.example');
    await expect(other.handleRedirect(answer.toString())).rejects.toMatchObject({ code: 'issuer_mismatch' });
    expect(sent.filter((line) => line.endsWith('/oauth2/token'))).toEqual([]);
    // A denial comes back as an AuthorizationError with the server's code.
    const denied = createSwitchyard({ baseUrl: app.url, clientId: client.clientId, redirectUri: CALLBACK });
    const params = Object.fromEntries(new URL(await denied.createAuthorizationUrl()).searchParams);
    const decision = await app.http('/api/v1/oauth2/authorize/decision', {
      token: kit.alice.session,
      body: { ...params, approve: false },
    });
    await expect(denied.handleRedirect(decision.body.data.redirectTo)).rejects.toMatchObject({
      name: 'AuthorizationError',
      code: 'access_denied',
    });
  });

  it('keeps tokens in the storage given: another client on it is signed in, one on memory is not', async () => {
    const shared = memoryStorage();
    const { client } = await signedIn({ storage: shared });
    const again = createSwitchyard({ baseUrl: app.url, clientId: client.clientId, storage: shared });
    expect(again.state.status).toBe('signed-in');
    expect((await again.fetch('/v1/models')).status).toBe(200);
    const fresh = createSwitchyard({ baseUrl: app.url, clientId: client.clientId, storage: 'memory' });
    expect(fresh.state).toEqual({ status: 'signed-out', user: null });
    await expect(fresh.fetch('/v1/models')).rejects.toBeInstanceOf(NotSignedInError);
  });

  it('on a 401 refreshes once for all calls waiting, retries them, and keeps the rotated tokens', async () => {
    const { sy, storage, client } = await signedIn();
    const key = `switchyard:${client.clientId}:tokens`;
    const before = JSON.parse(storage.getItem(key)!);
    // The server ends the access token (the app's user revoked it elsewhere, say); the refresh token lives on.
    await fetch(`${app.url}/oauth2/revoke?token=${before.accessToken}`, { method: 'POST' });
    sent = [];
    const answers = await Promise.all(Array.from({ length: 5 }, () => sy.fetch('/v1/models')));
    expect(answers.map((res) => res.status)).toEqual([200, 200, 200, 200, 200]);
    expect(sent.filter((line) => line === 'POST /oauth2/token')).toHaveLength(1);
    const after = JSON.parse(storage.getItem(key)!);
    expect(after.refreshToken).not.toBe(before.refreshToken);
    expect(tokenBodies.at(-1)).toEqual({
      grantType: 'refresh_token',
      refreshToken: before.refreshToken,
      clientId: client.clientId,
    });
  });

  it('when the refresh is refused, signs out and asks for a sign-in (NotSignedInError)', async () => {
    const { sy, storage, client } = await signedIn();
    const seen: string[] = [];
    sy.subscribe((state) => seen.push(state.status));
    const tokens = JSON.parse(storage.getItem(`switchyard:${client.clientId}:tokens`)!);
    // Revoking the refresh token ends the whole grant: the access token stops too.
    await fetch(`${app.url}/oauth2/revoke?token=${tokens.refreshToken}`, { method: 'POST' });
    await expect(sy.fetch('/v1/models')).rejects.toBeInstanceOf(NotSignedInError);
    expect(sy.state.status).toBe('signed-out');
    expect(storage.getItem(`switchyard:${client.clientId}:tokens`)).toBeNull();
    expect(seen).toEqual(['signed-out']);
    expect(sent.filter((line) => line === 'POST /oauth2/token')).toHaveLength(2); // the code, one refresh
  });

  it('maps refusals: an app cap and the account budget are BudgetExhaustedError of each kind', async () => {
    const broke = await kit.newUser(0);
    const account = await signedIn({ user: broke });
    const chat = { model: 'demo-chat', messages: [{ role: 'user', content: 'Hello' }] };
    const post = (sy: typeof account.sy) =>
      sy.fetch('/v1/chat/completions', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(chat),
      });
    const accountError = await post(account.sy).catch((error: unknown) => error);
    expect(accountError).toBeInstanceOf(BudgetExhaustedError);
    expect(accountError).toMatchObject({ kind: 'account', limit: 'account', status: 403, remainingBudget: 0 });
    expect((accountError as BudgetExhaustedError).topUpUrl).toBe(`${app.url}/billing`);

    const capped = await signedIn({ limits: { perRequest: 0 } });
    const capError = await post(capped.sy).catch((error: unknown) => error);
    expect(capError).toMatchObject({ name: 'BudgetExhaustedError', kind: 'app', limit: 'per_request' });
    // Through the openai SDK the refusal is the SDK's own APIError; toSwitchyardError reads it the same.
    const openai = new OpenAI(capped.sy.openaiOptions());
    const thrown = await openai.chat.completions
      .create({ ...chat, messages: [...chat.messages] } as never)
      .catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(OpenAI.APIError);
    expect(toSwitchyardError(thrown)).toMatchObject({ kind: 'app', limit: 'per_request' });
    // withBudgetRetry gives up at once when told to retry nothing, with the typed error.
    await expect(capped.sy.withBudgetRetry(() => post(capped.sy), { attempts: 0 })).rejects.toBeInstanceOf(
      BudgetExhaustedError,
    );
  });

  it('balance(): the remaining budget and what is left of the app’s caps', async () => {
    const user = await kit.newUser(3_000_000);
    const { sy } = await signedIn({ user, limits: { monthly: 1, perRequest: 0.5 } });
    const balance = await sy.balance();
    expect(balance).toEqual({
      totalCost: 0,
      maxBudget: 3,
      remainingBudget: 3,
      app: {
        limits: { total: null, daily: null, weekly: null, monthly: 1, perRequest: 0.5 },
        remaining: { total: null, daily: null, weekly: null, monthly: 1, perRequest: 0.5 },
      },
      available: 1,
    });
  });

  it('drives the openai SDK (streaming) and @anthropic-ai/sdk through its options, billed to the app', async () => {
    const { sy, client } = await signedIn();
    const openai = new OpenAI(sy.openaiOptions());
    const stream = await openai.chat.completions.create({
      model: 'demo-chat',
      stream: true,
      messages: [{ role: 'user', content: 'Stream through the SDK' }],
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text.length).toBeGreaterThan(0);

    const anthropic = new Anthropic(sy.anthropicOptions());
    const message = await anthropic.messages.create({
      model: 'demo-chat',
      max_tokens: 200,
      messages: [{ role: 'user', content: 'Hello from Anthropic’s SDK' }],
    });
    expect(message.content[0]).toMatchObject({ type: 'text' });
    // Both went with the user's token and the client-id header: the user's activity names the app. Usage records
    // are written in batches a moment after the answer, so wait (bounded) for both.
    let viaApp: { appId: string | null }[] = [];
    for (let tries = 0; tries < 200 && viaApp.length < 2; tries += 1) {
      if (tries > 0) await new Promise((resolve) => setTimeout(resolve, 25));
      const activity = await app.http('/api/v1/usage/me/activity?limit=50', { token: kit.alice.session });
      viaApp = (activity.body.data.items as { appId: string | null }[]).filter(
        (item) => item.appId === client.clientId,
      );
    }
    expect(viaApp).toHaveLength(2);
  });

  it('drives the Vercel AI SDK’s OpenAI-compatible provider through openaiOptions(), and maps its refusal', async () => {
    const { sy, storage, client } = await signedIn();
    void sy;
    const bundle = join(mkdtempSync(join(tmpdir(), 'sdk-')), 'sdk.mjs');
    execFileSync(process.execPath, [join(__dirname, '../../../tools/kit/build.mjs'), 'sdk', '--bundle-to', bundle]);
    const run = async () => {
      const { stdout } = await promisify(execFile)(process.execPath, [join(__dirname, 'support/sdk-ai-check.mjs')], {
        env: {
          ...process.env,
          NODE_OPTIONS: '',
          SDK_MODULE: bundle,
          BASE_URL: app.url,
          CLIENT_ID: client.clientId,
          TOKENS: storage.getItem(`switchyard:${client.clientId}:tokens`)!,
          CHAT_MODEL: 'demo-chat',
        },
        timeout: 30_000,
      });
      return JSON.parse(stdout.trim().split('\n').at(-1)!);
    };
    const streamed = await run();
    expect(streamed.streamedParts).toBeGreaterThan(1);
    expect(streamed.usage.outputTokens).toBeGreaterThan(0);
    await app.http(`/api/v1/oauth2/consents/${client.clientId}/limits`, {
      method: 'PUT',
      token: kit.alice.session,
      body: { perRequest: 0 },
    });
    const refused = await run();
    expect(refused.error).toEqual({ name: 'BudgetExhaustedError', kind: 'app', limit: 'per_request' });
  });

  it('signs out by revoking both tokens (RFC 7009): neither works afterwards', async () => {
    const { sy, storage, client } = await signedIn();
    const tokens = JSON.parse(storage.getItem(`switchyard:${client.clientId}:tokens`)!);
    await sy.signOut();
    expect(sy.state.status).toBe('signed-out');
    expect(sent.filter((line) => line === 'POST /oauth2/revoke')).toHaveLength(2);
    const v1 = await app.http('/v1/models', {
      token: tokens.accessToken,
      headers: { 'x-service-oauth-client-id': client.clientId },
    });
    expect(v1.status).toBe(401);
    const refresh = await app.http('/oauth2/token', {
      body: { grantType: 'refresh_token', refreshToken: tokens.refreshToken, clientId: client.clientId },
    });
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('never sends the user’s token to another origin', async () => {
    const { sy } = await signedIn();
    await expect(sy.fetch('https://evil.example/steal')).rejects.toBeInstanceOf(SwitchyardError);
    expect(sent.some((line) => line.includes('steal'))).toBe(false);
  });
});
