import { request } from 'node:http';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CSRF_COOKIE } from '@switchyard/shared-dto';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { appPageCsp } from './spaces-host';

interface User {
  token: string;
  userId: string;
  csrf: string;
}

async function register(app: TestApp, tag: string): Promise<User> {
  const res = await app.http('/api/v1/auth/register', {
    body: { email: uniqueEmail(tag), password: `${tag} password` },
  });
  return { token: res.body.data.token, userId: res.body.data.user.id, csrf: res.cookies[CSRF_COOKIE] };
}

let handles = 0;
const uniqueHandle = (tag: string) => `${tag}${Date.now().toString(36)}${(handles += 1)}`;

/** A request to the hosted-apps listener with the Host header a browser sends for `host`. */
function onHost(app: TestApp, host: string, path = '/'): Promise<{ status: number; headers: any; body: string }> {
  const target = new URL(app.spacesUrl);
  return new Promise((resolve, reject) => {
    const req = request({ host: target.hostname, port: target.port, path, method: 'GET', headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function settled(app: TestApp, user: User, slug: string) {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const res = await app.http(`/api/v1/spaces/me/apps/${slug}`, { token: user.token });
    if (res.body.data?.status !== 'generating') return res.body.data;
    if (Date.now() > deadline) throw new Error(`app ${slug} still generating`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function readyApp(app: TestApp, user: User, prompt: string) {
  const res = await app.http('/api/v1/spaces/generate', { token: user.token, body: { prompt } });
  expect(res.status).toBe(202);
  const done = await settled(app, user, res.body.data.slug);
  expect(done.status).toBe('ready');
  return done as { slug: string; url: string; html: string };
}

describe('each published app: an origin and an OAuth client of its own', () => {
  let app: TestApp;
  let alice: User;
  let bob: User;
  let aliceHandle: string;
  let bobHandle: string;
  let spacesHost: string;

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-sdk-'));
    writeFileSync(join(dir, 'switchyard.js'), 'var Switchyard = { init: function (o) { return o; } };');
    app = await startTestApp({}, undefined, { sdkScript: join(dir, 'switchyard.js') });
    spacesHost = new URL(app.spacesOrigin).host;
    alice = await register(app, 'alice');
    bob = await register(app, 'bob');
    aliceHandle = uniqueHandle('al');
    bobHandle = uniqueHandle('bo');
    for (const [user, handle] of [
      [alice, aliceHandle],
      [bob, bobHandle],
    ] as const)
      expect(
        (await app.http('/api/v1/spaces/handle', { method: 'PUT', token: user.token, body: { handle } })).status,
      ).toBe(200);
  });
  afterAll(() => app?.close());

  it('serves the app on {handle}--{slug}. the spaces host, with its client, its policy and the kit', async () => {
    expect(app.spacesOrigin).toMatch(/^http:\/\/localhost:\d+$/);
    const made = await readyApp(app, alice, 'A counter with a big button');
    const host = `${aliceHandle}--${made.slug}.${spacesHost}`;
    expect(made.url).toBe(`http://${host}/`);
    // Not published yet: nothing there, and no client.
    expect((await onHost(app, host)).status).toBe(404);
    const published = await app.http(`/api/v1/spaces/${made.slug}/publish`, {
      method: 'PUT',
      token: alice.token,
      body: { published: true },
    });
    expect(published.status).toBe(200);
    const clientId = published.body.data.clientId as string;
    expect(clientId).toMatch(/^syc_/);

    // The creator sees it among their apps: public, PKCE, redirect URI = the app's origin, a small visitor cap.
    const clients = await app.http('/api/v1/oauth2/clients', { token: alice.token });
    const client = clients.body.data.find((c: { clientId: string }) => c.clientId === clientId);
    expect(client).toMatchObject({
      clientType: 'PUBLIC',
      requirePkce: true,
      isActive: true,
      redirectUris: [made.url],
      clientName: expect.stringContaining(`@${aliceHandle}`),
    });
    // Not among bob's, and not his to read.
    expect(
      (await app.http('/api/v1/oauth2/clients', { token: bob.token })).body.data.some(
        (c: { clientId: string }) => c.clientId === clientId,
      ),
    ).toBe(false);
    expect((await app.http(`/api/v1/oauth2/clients/${clientId}`, { token: bob.token })).status).toBe(404);

    const page = await onHost(app, host);
    expect(page.status).toBe(200);
    expect(page.body).toBe(made.html);
    expect(page.headers['content-security-policy']).toBe(appPageCsp(new URL(app.config.publicUrl).origin));
    expect(page.headers['set-cookie']).toBeUndefined();
    // The same host in capitals is the same app (host names are case-insensitive).
    expect((await onHost(app, host.toUpperCase())).status).toBe(200);

    const kit = await onHost(app, host, '/sdk/v1/switchyard.js');
    expect(kit.status).toBe(200);
    expect(kit.headers['content-type']).toContain('text/javascript');
    expect(kit.body).toContain(JSON.stringify({ baseUrl: app.config.publicUrl, clientId }));

    // The old address leads there.
    const old = await onHost(app, spacesHost, `/s/${aliceHandle}/${made.slug}`);
    expect(old.status).toBe(301);
    expect(old.headers.location).toBe(made.url);

    // Unpublishing deactivates the client; the origin and the kit answer 404. Publishing again reuses it.
    await app.http(`/api/v1/spaces/${made.slug}/publish`, {
      method: 'PUT',
      token: alice.token,
      body: { published: false },
    });
    expect((await app.http(`/api/v1/oauth2/clients/${clientId}`, { token: alice.token })).body.data.isActive).toBe(
      false,
    );
    expect((await onHost(app, host)).status).toBe(404);
    expect((await onHost(app, host, '/sdk/v1/switchyard.js')).status).toBe(404);
    const again = await app.http(`/api/v1/spaces/${made.slug}/publish`, {
      method: 'PUT',
      token: alice.token,
      body: { published: true },
    });
    expect(again.body.data.clientId).toBe(clientId);
    expect((await app.http(`/api/v1/oauth2/clients/${clientId}`, { token: alice.token })).body.data.isActive).toBe(
      true,
    );

    // A visitor's first consent starts with the small visitor cap.
    const params = new URLSearchParams({
      client_id: clientId,
      redirect_uri: made.url,
      response_type: 'code',
      scope: 'openid profile api:access',
      state: 'xyz',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGKSJwM4mA',
      code_challenge_method: 'S256',
    });
    const described = await app.http(`/api/v1/oauth2/authorize/request?${params.toString()}`, { token: bob.token });
    expect(described.status).toBe(200);
    expect(described.body.data.limits).toMatchObject({ monthly: 1 });
    const decision = await app.http('/api/v1/oauth2/authorize/decision', {
      token: bob.token,
      body: { ...Object.fromEntries(params), approve: true },
    });
    expect(decision.status).toBe(200);
    expect(decision.body.data.redirectTo.startsWith(`${made.url}?code=`)).toBe(true);
    const consents = await app.http('/api/v1/oauth2/consents', { token: bob.token });
    expect(consents.body.data.find((c: { clientId: string }) => c.clientId === clientId).limits.monthly).toBe(1);

    // Deleting the app deletes its client.
    expect((await app.http(`/api/v1/spaces/${made.slug}`, { method: 'DELETE', token: alice.token })).status).toBe(200);
    expect((await app.http(`/api/v1/oauth2/clients/${clientId}`, { token: alice.token })).status).toBe(404);
    expect((await onHost(app, host)).status).toBe(404);
  });

  it("answers 404 to host names that name no app: another's handle, injection, other hosts", async () => {
    const made = await readyApp(app, alice, 'A clock that shows the time');
    await app.http(`/api/v1/spaces/${made.slug}/publish`, {
      method: 'PUT',
      token: alice.token,
      body: { published: true },
    });
    expect((await onHost(app, `${aliceHandle}--${made.slug}.${spacesHost}`)).status).toBe(200);
    const refused = [
      `${bobHandle}--${made.slug}.${spacesHost}`, // bob has no such app
      `${aliceHandle}--${made.slug}.evil.example`, // not the spaces host
      `${aliceHandle}--${made.slug}.${spacesHost}.evil.example`,
      `x.${aliceHandle}--${made.slug}.${spacesHost}`, // a label too many
      `${aliceHandle}-${made.slug}.${spacesHost}`, // no separator
      `${aliceHandle}--${made.slug}--.${spacesHost}`,
      `${aliceHandle}%2f--${made.slug}.${spacesHost}`,
      `${aliceHandle}--${made.slug}@evil.example.${spacesHost}`,
      `admin--${made.slug}.${spacesHost}`,
      `localhost`,
      '',
    ];
    for (const host of refused) {
      const res = await onHost(app, host);
      expect({ host, status: res.status }).toEqual({ host, status: 404 });
      expect(res.body).not.toContain('<script');
    }
    // The app's origin serves its page and the kit only: no API, no old paths, no other files.
    for (const path of [
      '/api/v1/auth/me',
      '/v1/models',
      `/s/${aliceHandle}/${made.slug}`,
      '/index.html',
      '/s/_preview',
    ])
      expect((await onHost(app, `${aliceHandle}--${made.slug}.${spacesHost}`, path)).status).toBe(404);
    // Bob cannot publish, unpublish or delete alice's app, nor its client.
    for (const [method, path, body] of [
      ['PUT', `/api/v1/spaces/${made.slug}/publish`, { published: false }],
      ['DELETE', `/api/v1/spaces/${made.slug}`, undefined],
    ] as const)
      expect((await app.http(path, { method, token: bob.token, body })).status).toBe(404);
    const mine = await app.http(`/api/v1/spaces/me/apps/${made.slug}`, { token: alice.token });
    expect(mine.body.data.published).toBe(true);
    const clientId = mine.body.data.clientId as string;
    expect((await app.http(`/api/v1/oauth2/clients/${clientId}`, { method: 'DELETE', token: bob.token })).status).toBe(
      404,
    );
  });

  it("remixes a published app into the visitor's space, crediting the original and its creator", async () => {
    const original = await readyApp(app, alice, 'a haiku generator');
    // Offline, the demo model wrote an AI app: the kit from the app's own origin, a sign-in button, a chat call.
    expect(original.html).toContain('<script src="/sdk/v1/switchyard.js"></script>');
    expect(original.html).toContain('data-switchyard-button');
    expect(original.html).toContain("call('/v1/chat/completions'");
    const remix = (by: User, handle: string, slug: string) =>
      app.http('/api/v1/spaces/remix', { token: by.token, body: { handle, slug } });
    // Not published yet: nobody can remix it (404, as for a missing one).
    expect((await remix(bob, aliceHandle, original.slug)).body.error.code).toBe('SPACE_REMIX_NOT_FOUND');
    await app.http(`/api/v1/spaces/${original.slug}/publish`, {
      method: 'PUT',
      token: alice.token,
      body: { published: true },
    });
    const made = await remix(bob, aliceHandle, original.slug);
    expect(made.status).toBe(201);
    expect(made.body.data).toMatchObject({
      slug: original.slug,
      status: 'ready',
      published: false,
      version: 1,
      canUndo: false,
      clientId: null,
      url: `http://${bobHandle}--${original.slug}.${spacesHost}/`,
      remixOf: {
        handle: aliceHandle,
        slug: original.slug,
        title: expect.any(String),
        url: `http://${aliceHandle}--${original.slug}.${spacesHost}/`,
      },
    });
    const detail = await app.http(`/api/v1/spaces/me/apps/${original.slug}`, { token: bob.token });
    expect(detail.body.data.html).toBe(original.html);
    expect(detail.body.data.versions).toEqual([
      expect.objectContaining({ version: 1, kind: 'remix', prompt: `Remixed from @${aliceHandle}/${original.slug}` }),
    ]);
    // Its own history: bob edits his copy; alice's page stays as it was.
    const edit = await app.http(`/api/v1/spaces/${original.slug}/edit`, {
      method: 'PUT',
      token: bob.token,
      body: { prompt: 'Make it green' },
    });
    expect(edit.status).toBe(202);
    expect((await settled(app, bob, original.slug)).version).toBe(2);
    expect((await app.http(`/api/v1/spaces/me/apps/${original.slug}`, { token: alice.token })).body.data.html).toBe(
      original.html,
    );
    // A second remix gets the next slug; bob's copy publishes under his own client, credit shown on his profile.
    expect((await remix(bob, aliceHandle, original.slug)).body.data.slug).toBe(`${original.slug}-2`);
    const published = await app.http(`/api/v1/spaces/${original.slug}/publish`, {
      method: 'PUT',
      token: bob.token,
      body: { published: true },
    });
    const aliceApp = await app.http(`/api/v1/spaces/me/apps/${original.slug}`, { token: alice.token });
    expect(published.body.data.clientId).toMatch(/^syc_/);
    expect(published.body.data.clientId).not.toBe(aliceApp.body.data.clientId);
    const profile = await app.http(`/api/v1/spaces/${bobHandle}`);
    expect(profile.body.data.apps[0].remixOf).toMatchObject({ handle: aliceHandle, slug: original.slug });
    // The attacker's view: unknown handles and slugs, bad forms, and no handle of one's own.
    expect((await remix(bob, aliceHandle, 'no-such-app')).status).toBe(404);
    expect((await remix(bob, 'nobody-here-at-all', original.slug)).status).toBe(404);
    for (const body of [
      { handle: aliceHandle, slug: '../x' },
      { handle: aliceHandle, slug: 'A B' },
      { handle: 'x', slug: original.slug },
      { handle: aliceHandle },
    ])
      expect((await app.http('/api/v1/spaces/remix', { token: bob.token, body })).status).toBe(400);
    const carol = await register(app, 'carol');
    expect((await remix(carol, aliceHandle, original.slug)).body.error.code).toBe('SPACE_HANDLE_REQUIRED');
    expect(
      (await app.http('/api/v1/spaces/remix', { body: { handle: aliceHandle, slug: original.slug } })).status,
    ).toBe(401);
    // Deleting the original keeps the credit.
    await app.http(`/api/v1/spaces/${original.slug}`, { method: 'DELETE', token: alice.token });
    const kept = await app.http(`/api/v1/spaces/me/apps/${original.slug}`, { token: bob.token });
    expect(kept.body.data.remixOf).toMatchObject({ handle: aliceHandle, slug: original.slug });
  });
});
