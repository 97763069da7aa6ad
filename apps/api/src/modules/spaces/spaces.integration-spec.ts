import { request as httpRequest } from 'node:http';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { ReservationService } from '../usage';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FAKE_PAGE, fakeChatCatalog, FakeOpenAI } from '../../../test/support/fake-openai';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { CatalogService } from '../proxy';
import { appPageCsp } from './spaces-host';
import { UsageRecorder } from '../usage';

interface User {
  token: string;
  userId: string;
}

async function register(app: TestApp, tag: string): Promise<User> {
  const res = await app.http('/api/v1/auth/register', {
    body: { email: uniqueEmail(tag), password: `${tag} password` },
  });
  return { token: res.body.data.token, userId: res.body.data.user.id };
}

let handles = 0;
function uniqueHandle(tag: string): string {
  handles += 1;
  return `${tag}-${Date.now().toString(36)}-${handles}`;
}

/** Polls the owner's app until it is no longer generating (bounded). */
async function settled(app: TestApp, user: User, slug: string, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const res = await app.http(`/api/v1/spaces/me/apps/${slug}`, { token: user.token });
    if (res.body.data?.status !== 'generating') return res.body.data;
    if (Date.now() > deadline) throw new Error(`app ${slug} still generating after ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** The user's ledger once every call has settled, and what the usage records say was charged. */
async function money(app: TestApp, userId: string) {
  await app.app.get(ReservationService).flushSettlements();
  await app.app.get(UsageRecorder).flush();
  const [balance] = await app.database.dataSource.query(
    'SELECT debits_micros::bigint AS debits, reserved_micros::bigint AS reserved FROM balances WHERE user_id = $1',
    [userId],
  );
  const [ledger] = await app.database.dataSource.query(
    'SELECT COALESCE(-sum(amount_micros) FILTER (WHERE amount_micros < 0), 0)::bigint AS debits FROM ledger_entries WHERE user_id = $1',
    [userId],
  );
  const records: Array<{
    request_id: string;
    model: string;
    status: string;
    credential_name: string;
    cost: number;
    completion_tokens: number;
  }> = await app.database.dataSource.query(
    `SELECT request_id, model, status, credential_name, cost_micros::int AS cost, completion_tokens FROM usage_records WHERE user_id = $1 ORDER BY started_at`,
    [userId],
  );
  return {
    debits: Number(balance.debits),
    reserved: Number(balance.reserved),
    ledgerDebits: Number(ledger.debits),
    records,
  };
}

/** An app's URL (its own origin) fetched from the hosted-apps listener itself, with the Host a browser sends. */
const hosted = (app: TestApp, url: string, init: { headers?: Record<string, string> } = {}) => {
  const target = new URL(url);
  expect(target.host.endsWith(`.${new URL(app.spacesOrigin).host}`)).toBe(true);
  const listener = new URL(app.spacesUrl);
  return new Promise<Response>((resolve, reject) => {
    const req = httpRequest(
      {
        host: listener.hostname,
        port: listener.port,
        path: target.pathname + target.search,
        headers: { ...init.headers, host: target.host },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          const headers = new Headers();
          for (const [name, value] of Object.entries(res.headers))
            for (const one of [value ?? []].flat()) headers.append(name, one);
          resolve(
            new Response(res.statusCode === 301 ? null : Buffer.concat(chunks), { status: res.statusCode, headers }),
          );
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
};

/** An app's own origin (with a slash), as the API gives it. */
const appOrigin = (app: TestApp, handle: string, slug: string) =>
  `http://${handle}--${slug}.${new URL(app.spacesOrigin).host}/`;

/** What every hosted page is served with (docs/spaces.md), for a dashboard at `dashboard`. */
const hostedCsp = (dashboard: string) =>
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data: blob:; media-src data: blob:; font-src data:; " +
  `connect-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors ${dashboard}; sandbox allow-scripts`;

describe('spaces with the demo provider', () => {
  let app: TestApp;
  let alice: User;
  let bob: User;
  let aliceHandle: string;

  beforeAll(async () => {
    app = await startTestApp();
    alice = await register(app, 'alice');
    bob = await register(app, 'bob');
  });
  afterAll(() => app?.close());

  it('claims a handle: checked publicly, taken once, reserved words refused', async () => {
    aliceHandle = uniqueHandle('alice');
    const generateFirst = await app.http('/api/v1/spaces/generate', {
      token: alice.token,
      body: { prompt: 'A counter with a big button' },
    });
    expect(generateFirst.status).toBe(422);
    expect(generateFirst.body.error.code).toBe('SPACE_HANDLE_REQUIRED');

    expect((await app.http(`/api/v1/spaces/handle/check?handle=${aliceHandle}`)).body.data).toEqual({
      available: true,
    });
    const set = await app.http('/api/v1/spaces/handle', {
      method: 'PUT',
      token: alice.token,
      body: { handle: aliceHandle },
    });
    expect(set.status).toBe(200);
    expect(set.body.data).toEqual({ handle: aliceHandle, profileUrl: `${app.config.publicUrl}/u/${aliceHandle}` });
    expect((await app.http('/api/v1/auth/me', { token: alice.token })).body.data.handle).toBe(aliceHandle);
    expect((await app.http(`/api/v1/spaces/handle/check?handle=${aliceHandle}`)).body.data).toEqual({
      available: false,
      reason: 'taken',
    });
    expect((await app.http('/api/v1/spaces/handle/check?handle=admin')).body.data).toEqual({
      available: false,
      reason: 'reserved',
    });

    const taken = await app.http('/api/v1/spaces/handle', {
      method: 'PUT',
      token: bob.token,
      body: { handle: aliceHandle },
    });
    expect(taken.status).toBe(409);
    expect(taken.body.error.code).toBe('HANDLE_TAKEN');
    // Setting one's own handle again is fine.
    expect(
      (await app.http('/api/v1/spaces/handle', { method: 'PUT', token: alice.token, body: { handle: aliceHandle } }))
        .status,
    ).toBe(200);
  });

  it('never hands a released handle to someone else; the old profile and URLs lead to the new handle', async () => {
    const carol = await register(app, 'carol');
    const first = uniqueHandle('carol');
    const second = uniqueHandle('carol2');
    await app.http('/api/v1/spaces/handle', { method: 'PUT', token: carol.token, body: { handle: first } });
    const generated = await app.http('/api/v1/spaces/generate', {
      token: carol.token,
      body: { prompt: 'A ticking clock for my desk' },
    });
    await settled(app, carol, generated.body.data.slug);
    await app.http(`/api/v1/spaces/${generated.body.data.slug}/publish`, {
      method: 'PUT',
      token: carol.token,
      body: { published: true },
    });
    await app.http('/api/v1/spaces/handle', { method: 'PUT', token: carol.token, body: { handle: second } });

    expect((await app.http(`/api/v1/spaces/handle/check?handle=${first}`)).body.data).toEqual({
      available: false,
      reason: 'taken',
    });
    expect(
      (await app.http('/api/v1/spaces/handle', { method: 'PUT', token: bob.token, body: { handle: first } })).status,
    ).toBe(409);
    expect((await app.http(`/api/v1/spaces/${first}`)).body.data.profile.handle).toBe(second);
    const old = await fetch(`${app.spacesUrl}/s/${first}/${generated.body.data.slug}`, { redirect: 'manual' });
    expect(old.status).toBe(301);
    expect(old.headers.get('location')).toBe(appOrigin(app, second, generated.body.data.slug));
    // The app's old origin leads to its new one, and its client's redirect URI followed the handle.
    const oldOrigin = await hosted(app, appOrigin(app, first, generated.body.data.slug));
    expect(oldOrigin.status).toBe(301);
    expect(oldOrigin.headers.get('location')).toBe(appOrigin(app, second, generated.body.data.slug));
    const moved = await app.http(`/api/v1/spaces/me/apps/${generated.body.data.slug}`, { token: carol.token });
    const client = await app.http(`/api/v1/oauth2/clients/${moved.body.data.clientId}`, { token: carol.token });
    expect(client.body.data.redirectUris).toEqual([appOrigin(app, second, generated.body.data.slug)]);
    // Its owner may take it back.
    expect(
      (await app.http('/api/v1/spaces/handle', { method: 'PUT', token: carol.token, body: { handle: first } })).status,
    ).toBe(200);
  });

  it('generates, previews, publishes, edits, undoes, unpublishes and deletes an app, all on the owner’s budget', async () => {
    const before = await money(app, alice.userId);
    const generated = await app.http('/api/v1/spaces/generate', {
      token: alice.token,
      body: { prompt: 'A counter with a big button for counting birds' },
    });
    expect(generated.status).toBe(202);
    const slug = generated.body.data.slug;
    expect(generated.body.data).toMatchObject({
      slug: 'counter-big-button-counting-birds',
      // A title of its own: "New app" until the page names it (docs/spaces.md, "Titles").
      title: 'New app',
      prompt: 'A counter with a big button for counting birds',
      models: ['demo-chat'],
      status: 'generating',
      published: false,
      url: appOrigin(app, aliceHandle, 'counter-big-button-counting-birds'),
      clientId: null,
      remixOf: null,
      version: null,
      canUndo: false,
    });
    expect(Object.keys(generated.body.data).sort()).toEqual([
      'canUndo',
      'clientId',
      'createdAt',
      'models',
      'prompt',
      'published',
      'remixOf',
      'slug',
      'status',
      'title',
      'updatedAt',
      'url',
      'version',
    ]);

    const ready = await settled(app, alice, slug);
    expect(ready).toMatchObject({
      status: 'ready',
      version: 1,
      canUndo: false,
      title: 'Counter with a big button',
    });
    expect(ready.error).toBeUndefined();
    expect(ready.html).toMatch(/^<!DOCTYPE html>\n<html lang="en">[\s\S]*<body>[\s\S]*<\/html>$/);
    expect(ready.html).toContain('id="add"');
    expect(ready.versions).toEqual([
      expect.objectContaining({ version: 1, kind: 'generate', model: 'demo-chat', current: true }),
    ]);

    // Unpublished: not served, not listed.
    expect((await hosted(app, ready.url)).status).toBe(404);
    expect((await app.http(`/api/v1/spaces/${aliceHandle}`)).body.data.apps).toEqual([]);

    const published = await app.http(`/api/v1/spaces/${slug}/publish`, {
      method: 'PUT',
      token: alice.token,
      body: { published: true },
    });
    expect(published.body.data).toMatchObject({ published: true, status: 'ready' });
    const page = await hosted(app, ready.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toBe(appPageCsp(new URL(app.config.publicUrl).origin));
    expect(page.headers.get('x-frame-options')).toBeNull();
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('set-cookie')).toBeNull();
    expect(await page.text()).toBe(ready.html);

    const profile = await app.http(`/api/v1/spaces/${aliceHandle}`);
    expect(profile.body.data).toEqual({
      profile: { handle: aliceHandle, displayName: null, bio: null, avatarUrl: null },
      apps: [expect.objectContaining({ slug, published: true })],
      isOwner: false,
    });
    expect((await app.http(`/api/v1/spaces/${aliceHandle}`, { token: alice.token })).body.data.isOwner).toBe(true);
    expect((await app.http(`/api/v1/spaces/${aliceHandle}`, { token: bob.token })).body.data.isOwner).toBe(false);

    const edit = await app.http(`/api/v1/spaces/${slug}/edit`, {
      method: 'PUT',
      token: alice.token,
      body: { prompt: 'Make it green' },
    });
    expect(edit.status).toBe(202);
    expect(edit.body.data).toMatchObject({ status: 'generating', version: 1, canUndo: false });
    const edited = await settled(app, alice, slug);
    expect(edited).toMatchObject({ status: 'ready', canUndo: true });
    expect(edited.html).toContain('--accent: #16a34a;');
    expect(edited.html).toContain('<li>Make it green</li>');
    expect(await (await hosted(app, ready.url)).text()).toBe(edited.html);

    const undone = await app.http(`/api/v1/spaces/${slug}/undo`, { method: 'POST', token: alice.token });
    expect(undone.status).toBe(200);
    expect(undone.body.data).toMatchObject({ version: 1, canUndo: false });
    expect(await (await hosted(app, ready.url)).text()).toBe(ready.html);
    const again = await app.http(`/api/v1/spaces/${slug}/undo`, { method: 'POST', token: alice.token });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('SPACE_NOTHING_TO_UNDO');
    const detail = (await app.http(`/api/v1/spaces/me/apps/${slug}`, { token: alice.token })).body.data;
    expect(
      detail.versions.map((v: { version: number; kind: string; current: boolean }) => [v.version, v.kind, v.current]),
    ).toEqual([
      [2, 'edit', false],
      [1, 'generate', true],
    ]);

    // Every page was a gateway call on Alice's budget, recorded as "Spaces" and charged exactly once.
    const after = await money(app, alice.userId);
    const calls = after.records.slice(before.records.length);
    expect(calls.length).toBe(detail.versions.length);
    expect(
      calls.every(
        (call) =>
          call.credential_name === 'Spaces' &&
          call.status === 'success' &&
          call.cost > 0 &&
          call.request_id.startsWith('spaces-'),
      ),
    ).toBe(true);
    expect(after.debits - before.debits).toBe(calls.reduce((sum, call) => sum + call.cost, 0));
    expect(after).toMatchObject({ reserved: 0, ledgerDebits: after.debits });
    const activity = (await app.http('/api/v1/usage/me/activity', { token: alice.token })).body.data.items;
    expect(activity[0]).toMatchObject({ name: 'Spaces', model: 'demo-chat', status: 'success' });

    await app.http(`/api/v1/spaces/${slug}/publish`, { method: 'PUT', token: alice.token, body: { published: false } });
    expect((await hosted(app, ready.url)).status).toBe(404);
    expect((await app.http(`/api/v1/spaces/${aliceHandle}`)).body.data.apps).toEqual([]);
    expect(
      (await app.http('/api/v1/spaces/me/apps', { token: alice.token })).body.data.map((a: { slug: string }) => a.slug),
    ).toContain(slug);

    const deleted = await app.http(`/api/v1/spaces/${slug}`, { method: 'DELETE', token: alice.token });
    expect(deleted.status).toBe(200);
    expect(
      (await app.http('/api/v1/spaces/me/apps', { token: alice.token })).body.data.map((a: { slug: string }) => a.slug),
    ).not.toContain(slug);
    expect((await app.http(`/api/v1/spaces/${slug}`, { method: 'DELETE', token: alice.token })).status).toBe(404);
  });

  it('gives each of the owner’s apps its own slug', async () => {
    const prompt = 'A todo list for the garden';
    const first = (await app.http('/api/v1/spaces/generate', { token: alice.token, body: { prompt } })).body.data;
    const second = (
      await app.http('/api/v1/spaces/generate', { token: alice.token, body: { prompt, models: ['demo-chat'] } })
    ).body.data;
    expect([first.slug, second.slug]).toEqual(['todo-list-garden', 'todo-list-garden-2']);
    expect((await settled(app, alice, second.slug)).html).toContain('id="tasks"');
    expect((await settled(app, alice, first.slug)).status).toBe('ready');
  });

  it('validates every field', async () => {
    const handle = (body: unknown) => app.http('/api/v1/spaces/handle', { method: 'PUT', token: bob.token, body });
    for (const body of [
      {},
      { handle: 42 },
      { handle: 'ab' },
      { handle: 'a'.repeat(41) },
      { handle: 'Bobby' },
      { handle: '-bob' },
      { handle: 'bob_' },
      { handle: 'bo b' },
      { handle: 'admin' },
      { handle: 'oauth2' },
      { handle: 'bobby', extra: 1 },
    ]) {
      const res = await handle(body);
      expect([JSON.stringify(body), res.status, res.body.error.code]).toEqual([
        JSON.stringify(body),
        400,
        'VALIDATION_FAILED',
      ]);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(
        'extra' in body ? 'extra' : 'handle',
      );
    }
    for (const query of [
      '',
      '?handle=',
      '?handle=ab',
      '?handle=UPPER',
      `?handle=${'x'.repeat(41)}`,
      '?handle=a&handle=b',
    ]) {
      const res = await app.http(`/api/v1/spaces/handle/check${query}`);
      expect([query, res.status]).toEqual([query, 400]);
    }

    const bobHandle = uniqueHandle('bob');
    expect((await handle({ handle: bobHandle })).status).toBe(200);
    const generate = (body: unknown) => app.http('/api/v1/spaces/generate', { token: bob.token, body });
    const cases: Array<[unknown, string]> = [
      [{}, 'prompt'],
      [{ prompt: 42 }, 'prompt'],
      [{ prompt: 'too short' }, 'prompt'],
      [{ prompt: `   ${'x'.repeat(8)}   ` }, 'prompt'],
      [{ prompt: 'x'.repeat(2001) }, 'prompt'],
      [{ prompt: 'A valid prompt here', models: 'demo-chat' }, 'models'],
      [{ prompt: 'A valid prompt here', models: [] }, 'models'],
      [{ prompt: 'A valid prompt here', models: ['a', 'b', 'c', 'd', 'e', 'f'] }, 'models'],
      [{ prompt: 'A valid prompt here', models: ['demo-chat', 'demo-chat'] }, 'models'],
      [{ prompt: 'A valid prompt here', models: [42] }, 'models'],
      [{ prompt: 'A valid prompt here', models: [''] }, 'models'],
      [{ prompt: 'A valid prompt here', title: '' }, 'title'],
      [{ prompt: 'A valid prompt here', title: 42 }, 'title'],
      [{ prompt: 'A valid prompt here', extra: 'no' }, 'extra'],
    ];
    for (const [body, field] of cases) {
      const res = await generate(body);
      expect([JSON.stringify(body).slice(0, 80), res.status, res.body.error.code]).toEqual([
        JSON.stringify(body).slice(0, 80),
        400,
        'VALIDATION_FAILED',
      ]);
      expect(res.body.error.details.map((d: { field: string }) => d.field)).toContain(field);
    }
    for (const models of [['no-such-model'], ['demo-embedding'], ['demo-chat', 'demo-image']]) {
      const res = await generate({ prompt: 'A valid prompt here', models });
      expect([models, res.status, res.body.error.code]).toEqual([models, 400, 'SPACE_MODEL_UNSUPPORTED']);
      expect(res.body.error.details).toEqual([
        { field: 'models', messages: [expect.stringContaining('is not a chat model')] },
      ]);
    }
    // The boundaries themselves are fine.
    expect((await generate({ prompt: 'x'.repeat(10) })).status).toBe(202);
    const long = await generate({ prompt: 'y'.repeat(2000) });
    expect(long.status).toBe(202);
    const slug = long.body.data.slug;
    await settled(app, bob, slug);

    const edit = (body: unknown) => app.http(`/api/v1/spaces/${slug}/edit`, { method: 'PUT', token: bob.token, body });
    for (const body of [
      {},
      { prompt: 5 },
      { prompt: 'four' },
      { prompt: '    four    ' },
      { prompt: 'z'.repeat(2001) },
      { prompt: 'valid edit', models: ['demo-chat'] },
    ]) {
      const res = await edit(body);
      expect([JSON.stringify(body).slice(0, 60), res.status]).toEqual([JSON.stringify(body).slice(0, 60), 400]);
    }
    expect((await edit({ prompt: 'fives' })).status).toBe(202);
    await settled(app, bob, slug);

    const publish = (body: unknown) =>
      app.http(`/api/v1/spaces/${slug}/publish`, { method: 'PUT', token: bob.token, body });
    for (const body of [
      {},
      { published: 'true' },
      { published: 1 },
      { published: null },
      { published: true, slug: 'x' },
    ]) {
      const res = await publish(body);
      expect([JSON.stringify(body), res.status]).toEqual([JSON.stringify(body), 400]);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
    expect((await publish({ published: true })).status).toBe(200);
  });

  it('answers 404 for another user’s app on every owner route, exactly as for a missing one', async () => {
    const generated = (
      await app.http('/api/v1/spaces/generate', { token: alice.token, body: { prompt: 'A private counter of mine' } })
    ).body.data;
    await settled(app, alice, generated.slug);
    const attempts: Array<[string, string, unknown?]> = [
      ['GET', `/api/v1/spaces/me/apps/${generated.slug}`],
      ['PUT', `/api/v1/spaces/${generated.slug}/edit`, { prompt: 'Take it over' }],
      ['PUT', `/api/v1/spaces/${generated.slug}/publish`, { published: true }],
      ['POST', `/api/v1/spaces/${generated.slug}/undo`],
      ['DELETE', `/api/v1/spaces/${generated.slug}`],
    ];
    for (const [method, path, body] of attempts) {
      const theirs = await app.http(path, { method, token: bob.token, body });
      const missing = await app.http(path.replace(generated.slug, 'no-such-app'), { method, token: bob.token, body });
      expect([method, path, theirs.status, theirs.body.error.code]).toEqual([method, path, 404, 'SPACE_APP_NOT_FOUND']);
      expect(missing.body).toMatchObject({ error: { code: 'SPACE_APP_NOT_FOUND' }, message: theirs.body.message });
      // Before validation: a bad body does not reveal that the app exists either.
      if (body) expect((await app.http(path, { method, token: bob.token, body: {} })).status).toBe(404);
      expect((await app.http(path, { method, body })).status).toBe(401);
    }
    const mine = (await app.http(`/api/v1/spaces/me/apps/${generated.slug}`, { token: alice.token })).body.data;
    expect(mine).toMatchObject({ status: 'ready', published: false, version: 1 });
    expect(
      (await app.http('/api/v1/spaces/me/apps', { token: bob.token })).body.data.map((a: { slug: string }) => a.slug),
    ).not.toContain(generated.slug);
    expect((await app.http('/api/v1/spaces/no-such-handle-here')).status).toBe(404);
  });

  /** A published demo app of a new user who signed in with a password: the session cookies, the app. */
  async function publishedWithCookies(tag: string) {
    const email = uniqueEmail(tag);
    const registered = await app.http('/api/v1/auth/register', { body: { email, password: `${tag} password` } });
    const token = registered.body.data.token as string;
    const handle = uniqueHandle(tag);
    await app.http('/api/v1/spaces/handle', { method: 'PUT', token, body: { handle } });
    const generated = (await app.http('/api/v1/spaces/generate', { token, body: { prompt: `A counter for ${tag}` } }))
      .body.data;
    await settled(app, { token, userId: registered.body.data.user.id }, generated.slug);
    await app.http(`/api/v1/spaces/${generated.slug}/publish`, { method: 'PUT', token, body: { published: true } });
    const login = await app.http('/api/v1/auth/login', { body: { email, password: `${tag} password` } });
    const cookie = Object.entries(login.cookies)
      .map(([name, value]) => `${name}=${value}`)
      .join('; ');
    expect(cookie).toContain('sy_session=');
    return {
      token,
      handle,
      slug: generated.slug as string,
      url: generated.url as string,
      cookie,
      csrf: login.cookies.sy_csrf,
    };
  }

  it('serves hosted apps only from SPACES_ORIGIN (by default another port): the dashboard host answers /s/* with a 307 to the same address there', async () => {
    const { handle, slug, url } = await publishedWithCookies('origin');
    expect(new URL(app.spacesOrigin).origin).not.toBe(new URL(app.config.publicUrl).origin);
    expect(new URL(app.spacesOrigin).port).toBe(new URL(app.spacesUrl).port);
    expect(app.spacesUrl).not.toBe(app.url);
    expect(url).toBe(appOrigin(app, handle, slug));
    for (const path of [
      `/s/${handle}/${slug}`,
      `/s/${handle}/${slug}/?v=1`,
      '/s',
      '/s/',
      '/s/anything',
      '/s/_preview',
      '/s//evil.example/x',
    ]) {
      for (const method of ['GET', 'HEAD', 'POST']) {
        const res = await fetch(app.url + path, { method, redirect: 'manual' });
        expect([path, method, res.status, res.headers.get('location')]).toEqual([
          path,
          method,
          307,
          app.spacesOrigin + path,
        ]);
        expect(res.headers.get('set-cookie')).toBeNull();
      }
    }
    // Followed, the redirect lands on the hosted-apps listener, which leads to the app's own origin.
    const followed = await fetch(`${app.url}/s/${handle}/${slug}`, { redirect: 'manual' });
    const onSpaces = await fetch(followed.headers.get('location')!.replace(app.spacesOrigin, app.spacesUrl), {
      redirect: 'manual',
    });
    expect(onSpaces.status).toBe(301);
    expect(onSpaces.headers.get('location')).toBe(url);
    const landed = await hosted(app, url);
    expect(landed.status).toBe(200);
    expect(await landed.text()).toContain('id="add"');
  });

  it('the hosted-apps listener serves hosted apps and nothing else, and never acts on a cookie: no API, no dashboard, no gateway', async () => {
    const { token, handle, slug, url, cookie, csrf } = await publishedWithCookies('listener');
    // On the dashboard host the cookie is a session.
    expect((await fetch(`${app.url}/api/v1/auth/me`, { headers: { cookie } })).status).toBe(200);
    const credentials = { cookie, authorization: `Bearer ${token}`, 'x-csrf-token': csrf };
    const paths = [
      '/api/v1/auth/me',
      '/api/v1/keys',
      '/v1/models',
      '/oauth2/v1/models',
      '/healthz',
      '/readyz',
      '/metrics',
      '/openapi.json',
      '/',
      `/u/${handle}`,
    ];
    for (const path of [
      ...paths,
      '/oauth2/authorize?client_id=x',
      '/s',
      '/s/',
      `/s/${handle}`,
      `/s/${handle}/${slug}/more`,
      `/s/${handle}/unknown-app`,
      '/s/%E0%A4%A/x',
      `/s/Not_A_Handle/${slug}`,
    ]) {
      const res = await fetch(app.spacesUrl + path, { headers: credentials, redirect: 'manual' });
      expect([path, res.status, res.headers.get('content-type')]).toEqual([path, 404, 'text/html; charset=utf-8']);
      expect(res.headers.get('set-cookie')).toBeNull();
      expect(res.headers.get('content-security-policy')).toMatch(/^default-src 'none';.*; sandbox$/);
      expect(await res.text()).toContain('No published app here');
    }
    // Writes are not even routed: a sign-out posted here with the cookie and its CSRF token leaves the session alone.
    for (const path of ['/api/v1/auth/logout', '/api/v1/keys', '/v1/chat/completions', `/s/${handle}/${slug}`]) {
      const res = await fetch(app.spacesUrl + path, {
        method: 'POST',
        headers: { ...credentials, 'content-type': 'application/json' },
        body: '{"name":"stolen","model":"demo-chat","messages":[]}',
      });
      expect([path, res.status, res.headers.get('allow')]).toEqual([path, 405, 'GET, HEAD']);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    expect((await fetch(`${app.url}/api/v1/auth/me`, { headers: { cookie } })).status).toBe(200);
    expect((await app.http('/api/v1/keys', { token })).body.data).toEqual([]);
    // The page itself is the same with and without the visitor's cookie, and sets none.
    const withCookie = await hosted(app, url, { headers: { cookie } });
    const without = await hosted(app, url);
    expect(withCookie.headers.get('set-cookie')).toBeNull();
    expect(await withCookie.text()).toBe(await without.text());
  });

  it('an app on its origin runs its own scripts, keeps its own storage, reaches the gateway only, is framed by nobody; previews stay sandboxed', async () => {
    const { url } = await publishedWithCookies('policy');
    const page = await hosted(app, url);
    const csp = page.headers.get('content-security-policy')!;
    const gateway = new URL(app.config.publicUrl).origin;
    const directives = new Map(csp.split('; ').map((part) => [part.split(' ')[0], part.slice(part.indexOf(' ') + 1)]));
    expect(directives.get('sandbox')).toBe(
      'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox',
    );
    expect(directives.get('script-src')).toBe("'self' 'unsafe-inline'");
    expect(directives.get('connect-src')).toBe(gateway);
    expect(directives.get('form-action')).toBe("'none'");
    expect(directives.get('frame-ancestors')).toBe("'none'");
    expect(directives.get('frame-src')).toBe("'none'");
    expect(directives.get('default-src')).toBe("'none'");
    expect(page.headers.get('x-frame-options')).toBeNull();
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');

    // The owner's preview page: the same policy, and it shows only what its parent posts to it.
    const preview = await fetch(`${app.spacesUrl}/s/_preview`, { headers: { accept: 'text/html' } });
    expect(preview.status).toBe(200);
    expect(preview.headers.get('content-security-policy')).toBe(hostedCsp(gateway));
    const shell = await preview.text();
    expect(shell).toContain('event.source !== window.parent');
    expect(shell).toContain('window.parent.postMessage({ type: "switchyard-preview-ready" }, \'*\')');
  });

  it('refuses a handle with an xn-- label (punycode shows as another script: homograph phishing), with a clear message', async () => {
    const dave = await register(app, 'dave');
    for (const handle of ['xn--80ak6aa92e', 'xn--pple-43d', 'xn--switchyard', 'ab--cd']) {
      const set = await app.http('/api/v1/spaces/handle', { method: 'PUT', token: dave.token, body: { handle } });
      expect([handle, set.status, set.body.error.code]).toEqual([handle, 400, 'VALIDATION_FAILED']);
      expect(set.body.error.details).toEqual([
        {
          field: 'handle',
          messages: ['handle may not have "--" as its third and fourth characters (xn-- is punycode)'],
        },
      ]);
      const check = await app.http(`/api/v1/spaces/handle/check?handle=${handle}`);
      expect([handle, check.status, check.body.error.code]).toEqual([handle, 400, 'VALIDATION_FAILED']);
    }
    expect((await app.http('/api/v1/auth/me', { token: dave.token })).body.data.handle).toBeNull();
    // Double hyphens elsewhere are fine.
    const fine = uniqueHandle('dave--xn');
    expect(
      (await app.http('/api/v1/spaces/handle', { method: 'PUT', token: dave.token, body: { handle: fine } })).status,
    ).toBe(200);
  });
});

/** A catalog on the fake upstream; `writer` is a model whose upstream the tests switch (the catalog is live). */
function spacesCatalog(upstream: string, writerUpstream = 'html-page'): string {
  return fakeChatCatalog(
    upstream,
    [
      'html-page',
      'html-slow',
      'html-remote',
      { id: 'up-chat', upstreamModel: 'gpt-upstream' },
      'fail-500',
      { id: 'writer', upstreamModel: writerUpstream },
      { id: 'pricey', upstreamModel: 'html-page', pricing: '{ inputPerMTok: 1000000, outputPerMTok: 1000000 }' },
    ],
    'sk-fake-upstream-key',
  );
}

describe('spaces with a fake upstream', () => {
  const fake = new FakeOpenAI();
  let dir: string;
  let catalogPath: string;
  let app: TestApp;
  let user: User;

  beforeAll(async () => {
    await fake.start();
    fake.slowPageMs = 1_500;
    dir = mkdtempSync(join(tmpdir(), 'sy-spaces-'));
    catalogPath = join(dir, 'models.yaml');
    writeFileSync(catalogPath, spacesCatalog(fake.url));
    app = await startTestApp({ modelsConfig: catalogPath, signupCredit: 1 });
    user = await register(app, 'fake');
    await app.http('/api/v1/spaces/handle', {
      method: 'PUT',
      token: user.token,
      body: { handle: uniqueHandle('fake') },
    });
  });
  // A test that holds the slow model's pages (fake.slowPageMs = 'held': a job stays busy until it releases them)
  // leaves none held for the next, and the slow model at its 1.5 s again.
  afterEach(() => {
    fake.releaseSlowPages();
    fake.slowPageMs = 1_500;
  });
  afterAll(async () => {
    await app?.close();
    await fake.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const generate = async (models: string[], prompt = 'A page from the fake upstream') => {
    const res = await app.http('/api/v1/spaces/generate', { token: user.token, body: { prompt, models } });
    expect(res.status).toBe(202);
    return res.body.data as { slug: string; url: string };
  };

  it('checks a page before hosting it: one that loads a script from elsewhere fails with the reason', async () => {
    const { slug } = await generate(['html-remote'], 'A page that loads a tracker');
    const failed = await settled(app, user, slug);
    expect(failed.status).toBe('failed');
    expect(failed.error).toContain('html-remote: It loads the script https://cdn.evil.example/tracker.js');
    expect(failed.html).toBeNull();
    const published = await app.http(`/api/v1/spaces/${slug}/publish`, {
      method: 'PUT',
      token: user.token,
      body: { published: true },
    });
    expect(published.status).toBe(409);
    // With a good model after it, the next model's page is hosted instead.
    const { slug: second } = await generate(['html-remote', 'html-page'], 'A page that loads a tracker, or not');
    expect((await settled(app, user, second)).status).toBe('ready');
  });

  it('defaults to the catalog’s first chat model', async () => {
    const res = await app.http('/api/v1/spaces/generate', {
      token: user.token,
      body: { prompt: 'Whatever the default writes' },
    });
    expect(res.body.data.models).toEqual(['html-page']);
    expect((await settled(app, user, res.body.data.slug)).status).toBe('ready');
  });

  it('tries the models in order and hosts the page the first good one wrote, taken out of its markdown fence', async () => {
    const before = await money(app, user.userId);
    const { slug, url } = await generate(['fail-500', 'html-page']);
    const ready = await settled(app, user, slug);
    expect(ready).toMatchObject({
      status: 'ready',
      version: 1,
      title: 'Fake & Page',
      models: ['fail-500', 'html-page'],
    });
    expect(ready.html).toBe(FAKE_PAGE);
    expect(ready.versions[0].model).toBe('html-page');
    // What went upstream: the builder's instructions and the prompt, with the gateway's key, never the caller's.
    const sent = fake.last('/chat/completions')!;
    const body = JSON.parse(sent.body.toString());
    expect(body.messages[0]).toEqual({
      role: 'system',
      content: expect.stringContaining('single self-contained HTML page'),
    });
    expect(body.messages[1]).toEqual({ role: 'user', content: 'A page from the fake upstream' });
    expect(sent.headers.authorization).toBe('Bearer sk-fake-upstream-key');

    const after = await money(app, user.userId);
    const calls = after.records.slice(before.records.length);
    expect(calls.map((call) => [call.model, call.status, call.cost])).toEqual([
      ['fail-500', 'upstream_error', 0],
      ['html-page', 'success', 120 * 1 + 80 * 2],
    ]);
    expect(after.debits - before.debits).toBe(280);
    expect(after).toMatchObject({ reserved: 0, ledgerDebits: after.debits });

    await app.http(`/api/v1/spaces/${slug}/publish`, { method: 'PUT', token: user.token, body: { published: true } });
    expect(await (await hosted(app, url)).text()).toBe(FAKE_PAGE);
  });

  it('fails with the reason when the upstream fails, and charges nothing', async () => {
    const before = await money(app, user.userId);
    const { slug } = await generate(['fail-500']);
    const failed = await settled(app, user, slug);
    expect(failed).toMatchObject({ status: 'failed', version: null, html: null, canUndo: false });
    expect(failed.error).toBe('fail-500: The model provider failed (status 500)');
    expect(failed.error).not.toContain('internal.upstream.example');
    const after = await money(app, user.userId);
    expect(after.debits).toBe(before.debits);
    expect(after.records.slice(before.records.length).map((call) => [call.status, call.cost])).toEqual([
      ['upstream_error', 0],
    ]);
    expect(
      (
        await app.http(`/api/v1/spaces/${slug}/publish`, {
          method: 'PUT',
          token: user.token,
          body: { published: true },
        })
      ).body.error.code,
    ).toBe('SPACE_APP_NOT_READY');
    expect(
      (
        await app.http(`/api/v1/spaces/${slug}/edit`, {
          method: 'PUT',
          token: user.token,
          body: { prompt: 'Try again' },
        })
      ).body.error.code,
    ).toBe('SPACE_APP_NOT_READY');
  });

  it('fails when the model writes no page, and charges exactly what the upstream used', async () => {
    const before = await money(app, user.userId);
    const { slug } = await generate(['up-chat']);
    const failed = await settled(app, user, slug);
    expect(failed).toMatchObject({
      status: 'failed',
      error: 'up-chat: The model did not write an HTML page (no <html> with a <body>)',
    });
    const after = await money(app, user.userId);
    const calls = after.records.slice(before.records.length);
    // The fake reports 11 prompt and 4 completion tokens at 1 and 2 per million.
    expect(calls.map((call) => [call.status, call.cost])).toEqual([['success', 11 + 8]]);
    expect(after.debits - before.debits).toBe(19);
    expect(after).toMatchObject({ reserved: 0, ledgerDebits: after.debits });
  });

  it('fails at once when the budget cannot cover the call, and charges nothing', async () => {
    const before = await money(app, user.userId);
    const { slug } = await generate(['pricey', 'html-page']);
    const failed = await settled(app, user, slug);
    expect(failed.status).toBe('failed');
    expect(failed.error).toMatch(/^Your budget does not cover a page from pricey: /);
    const after = await money(app, user.userId);
    expect(after.debits).toBe(before.debits);
    expect(after.records.slice(before.records.length).map((call) => [call.model, call.status])).toEqual([
      ['pricey', 'rejected'],
    ]);
  });

  it('runs one job per app: edits and undo wait while a model writes, and deleting abandons the job', async () => {
    fake.slowPageMs = 'held';
    const { slug } = await generate(['html-slow']);
    const busyEdit = await app.http(`/api/v1/spaces/${slug}/edit`, {
      method: 'PUT',
      token: user.token,
      body: { prompt: 'Another change' },
    });
    expect([busyEdit.status, busyEdit.body.error.code]).toEqual([409, 'SPACE_APP_BUSY']);
    fake.releaseSlowPages();
    expect((await settled(app, user, slug)).status).toBe('ready');
    fake.slowPageMs = 'held';
    expect(
      (
        await app.http(`/api/v1/spaces/${slug}/edit`, {
          method: 'PUT',
          token: user.token,
          body: { prompt: 'First change' },
        })
      ).status,
    ).toBe(202);
    for (const [method, path, body] of [
      ['PUT', 'edit', { prompt: 'Second change' }],
      ['POST', 'undo', undefined],
    ] as const) {
      const res = await app.http(`/api/v1/spaces/${slug}/${path}`, { method, token: user.token, body });
      expect([path, res.status, res.body.error.code]).toEqual([path, 409, 'SPACE_APP_BUSY']);
    }
    fake.releaseSlowPages();
    expect((await settled(app, user, slug)).version).toBe(2);

    fake.slowPageMs = 'held';
    const doomed = await generate(['html-slow'], 'An app deleted while it is written');
    expect((await app.http(`/api/v1/spaces/${doomed.slug}`, { method: 'DELETE', token: user.token })).status).toBe(200);
    const [{ n }] = await app.database.dataSource.query(
      `SELECT count(*)::int AS n FROM space_jobs j JOIN space_apps a ON a.id = j.app_id WHERE a.slug = $1`,
      [doomed.slug],
    );
    expect(n).toBe(0);
    expect((await app.http(`/api/v1/spaces/me/apps/${doomed.slug}`, { token: user.token })).status).toBe(404);
  });

  it('writes at most three apps of one user at once (429 beyond)', async () => {
    fake.slowPageMs = 'held';
    const slugs = [];
    for (let n = 1; n <= 3; n++) slugs.push((await generate(['html-slow'], `Slow app number ${n} of three`)).slug);
    const fourth = await app.http('/api/v1/spaces/generate', {
      token: user.token,
      body: { prompt: 'One app too many for now', models: ['html-slow'] },
    });
    expect([fourth.status, fourth.body.error.code]).toEqual([429, 'SPACE_TOO_MANY_JOBS']);
    fake.releaseSlowPages();
    for (const slug of slugs) expect((await settled(app, user, slug)).status).toBe('ready');
    expect(
      (
        await app.http('/api/v1/spaces/generate', {
          token: user.token,
          body: { prompt: 'Now there is room again', models: ['html-page'] },
        })
      ).status,
    ).toBe(202);
  });

  it('keeps at most 100 apps per user under concurrent generations (the app limit is atomic); the others get 422 SPACE_APP_LIMIT_REACHED', async () => {
    const many = await register(app, 'many');
    await app.http('/api/v1/spaces/handle', {
      method: 'PUT',
      token: many.token,
      body: { handle: uniqueHandle('many') },
    });
    await app.database.dataSource.query(
      `INSERT INTO space_apps (user_id, slug, title, prompt, models, status) SELECT $1, 'old-' || n, 'Old', 'old', ARRAY['html-page'], 'failed' FROM generate_series(1, 99) AS n`,
      [many.userId],
    );
    // Three at once (the job limit lets three start together): only one fits under 100.
    const results = await Promise.all(
      Array.from({ length: 3 }, (_, n) =>
        app.http('/api/v1/spaces/generate', {
          token: many.token,
          body: { prompt: `The hundredth app, take ${n + 1}`, models: ['html-slow'] },
        }),
      ),
    );
    expect(results.map((res) => res.status).sort()).toEqual([202, 422, 422]);
    expect(results.find((res) => res.status === 422)!.body.error.code).toBe('SPACE_APP_LIMIT_REACHED');
    const [{ apps }] = await app.database.dataSource.query(
      `SELECT count(*)::int AS apps FROM space_apps WHERE user_id = $1`,
      [many.userId],
    );
    expect(apps).toBe(100);
    // Deleting one frees a place.
    await app.http('/api/v1/spaces/old-1', { method: 'DELETE', token: many.token });
    expect(
      (
        await app.http('/api/v1/spaces/generate', {
          token: many.token,
          body: { prompt: 'After a deletion', models: ['html-slow'] },
        })
      ).status,
    ).not.toBe(422);
  });

  it('accepts exactly three of twelve concurrent generations of one user (the job limit is atomic); the other nine get 429 SPACE_TOO_MANY_JOBS', async () => {
    const burst = await register(app, 'burst');
    await app.http('/api/v1/spaces/handle', {
      method: 'PUT',
      token: burst.token,
      body: { handle: uniqueHandle('burst') },
    });
    fake.slowPageMs = 'held';
    const generateAll = () =>
      Promise.all(
        Array.from({ length: 12 }, (_, n) =>
          app.http('/api/v1/spaces/generate', {
            token: burst.token,
            body: { prompt: `Slow concurrent app number ${n + 1}`, models: ['html-slow'] },
          }),
        ),
      );
    const results = await generateAll();
    const accepted = results.filter((res) => res.status === 202);
    const refused = results.filter((res) => res.status !== 202);
    expect(accepted).toHaveLength(3);
    expect(refused.map((res) => [res.status, res.body.error.code])).toEqual(
      Array.from({ length: 9 }, () => [429, 'SPACE_TOO_MANY_JOBS']),
    );
    expect(refused[0].body).toEqual({
      success: false,
      message: 'At most 3 apps are written at once; wait until one is ready',
      error: { code: 'SPACE_TOO_MANY_JOBS' },
      timestamp: expect.any(String),
      requestId: expect.any(String),
    });
    const [{ apps, jobs }] = await app.database.dataSource.query(
      `SELECT (SELECT count(*)::int FROM space_apps WHERE user_id = $1) AS apps,
              (SELECT count(*)::int FROM space_jobs WHERE user_id = $1 AND status IN ('queued', 'running')) AS jobs`,
      [burst.userId],
    );
    expect({ apps, jobs }).toEqual({ apps: 3, jobs: 3 });

    // Edits share the limit: with the three apps ready, three edits and nine generations race for three slots.
    const slugs = accepted.map((res) => res.body.data.slug as string);
    fake.releaseSlowPages();
    for (const slug of slugs) expect((await settled(app, burst, slug)).status).toBe('ready');
    fake.slowPageMs = 'held';
    const mixed = await Promise.all([
      ...slugs.map((slug) =>
        app.http(`/api/v1/spaces/${slug}/edit`, {
          method: 'PUT',
          token: burst.token,
          body: { prompt: 'Make it teal' },
        }),
      ),
      ...Array.from({ length: 9 }, (_, n) =>
        app.http('/api/v1/spaces/generate', {
          token: burst.token,
          body: { prompt: `Slow racing app number ${n + 1}`, models: ['html-slow'] },
        }),
      ),
    ]);
    expect(mixed.filter((res) => res.status === 202)).toHaveLength(3);
    expect(
      mixed
        .filter((res) => res.status !== 202)
        .every((res) => res.status === 429 && res.body.error.code === 'SPACE_TOO_MANY_JOBS'),
    ).toBe(true);
    const [{ active }] = await app.database.dataSource.query(
      `SELECT count(*)::int AS active FROM space_jobs WHERE user_id = $1 AND status IN ('queued', 'running')`,
      [burst.userId],
    );
    expect(active).toBe(3);
    fake.releaseSlowPages();
    const mine = (await app.http('/api/v1/spaces/me/apps', { token: burst.token })).body.data as Array<{
      slug: string;
    }>;
    for (const { slug } of mine) await settled(app, burst, slug);
  });

  it('keeps the page when an edit fails, and says why', async () => {
    const { slug } = await generate(['writer']);
    const ready = await settled(app, user, slug);
    writeFileSync(catalogPath, spacesCatalog(fake.url, 'fail-500'));
    expect(app.app.get(CatalogService).reload()).toBe(true);
    try {
      await app.http(`/api/v1/spaces/${slug}/edit`, { method: 'PUT', token: user.token, body: { prompt: 'Break it' } });
      const after = await settled(app, user, slug);
      expect(after).toMatchObject({
        status: 'ready',
        version: 1,
        error: 'writer: The model provider failed (status 500)',
        html: ready.html,
      });
      expect(after.versions).toHaveLength(1);
    } finally {
      writeFileSync(catalogPath, spacesCatalog(fake.url));
      app.app.get(CatalogService).reload();
    }
    // The next edit that works clears the error.
    await app.http(`/api/v1/spaces/${slug}/edit`, { method: 'PUT', token: user.token, body: { prompt: 'Fix it' } });
    const fixed = await settled(app, user, slug);
    expect(fixed).toMatchObject({ status: 'ready', version: 2, canUndo: true });
    expect(fixed.error).toBeUndefined();
  });
});
