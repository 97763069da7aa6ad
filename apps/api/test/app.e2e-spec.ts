import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { ModulesContainer } from '@nestjs/core';
import express from 'express';
import { ACCESS_KEY } from '../src/common/auth/access.decorator';
import { dashboardStatic } from '../src/common/http/dashboard-static';
import { startTestApp, TestApp } from './support/test-app';
import { createTestDatabase } from './support/test-database';

describe('the app', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  it('answers /healthz and /readyz (which checks the database)', async () => {
    const health = await app.http('/healthz');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', version: expect.any(String) });
    const ready = await app.http('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({
      status: 'ok',
      database: 'ok',
      databaseKind: process.env.DATABASE_URL ? 'postgres' : 'embedded',
    });
  });

  it('serves an OpenAPI document generated from the code, with the shared DTO schemas', async () => {
    const res = await app.http('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.openapi).toMatch(/^3\./);
    expect(Object.keys(res.body.paths)).toEqual(
      expect.arrayContaining([
        '/api/v1/auth/register',
        '/api/v1/auth/login',
        '/api/v1/auth/logout',
        '/api/v1/auth/me',
        '/healthz',
        '/readyz',
      ]),
    );
    const register = res.body.components.schemas.AuthRegisterDto;
    expect(register.required).toEqual(expect.arrayContaining(['email', 'password']));
    expect(register.properties.password.minLength).toBe(8);
    expect(res.body.paths['/api/v1/auth/me'].get.security).toEqual(expect.arrayContaining([{ session: [] }]));
  });

  it('answers unknown routes in the shape of their surface', async () => {
    const api = await app.http('/api/v1/nothing-here');
    expect(api.status).toBe(404);
    expect(api.body).toMatchObject({ success: false, error: { code: 'ROUTE_NOT_FOUND' } });
    // Under the gateway's prefixes, anything off the allowlist is refused, never forwarded.
    const openai = await app.http('/v1/nothing-here', { method: 'POST', body: {} });
    expect(openai.status).toBe(403);
    expect(openai.body).toEqual({
      error: expect.objectContaining({ type: 'permission_error', message: 'Endpoint not allowed' }),
    });
    const oauth = await app.http('/oauth2/token', { method: 'POST', body: {} });
    expect(oauth.body).toEqual(
      expect.objectContaining({ error: expect.any(String), error_description: expect.any(String) }),
    );
    expect(oauth.headers.get('cache-control')).toBe('no-store');
  });

  it('echoes a sane X-Request-Id and replaces an unsafe one', async () => {
    const given = await app.http('/healthz', { headers: { 'x-request-id': 'trace-123' } });
    expect(given.headers.get('x-request-id')).toBe('trace-123');
    const unsafe = await app.http('/healthz', { headers: { 'x-request-id': 'bad id\twith space' } });
    expect(unsafe.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/);
  });

  it('sends security headers, a request id and no X-Powered-By, on Express routes and on the gateway the front door serves', async () => {
    // /healthz goes through Express; /v1 paths never reach it (modules/proxy/front-door.ts), the same headers apply.
    for (const path of ['/healthz', '/v1/models', '/oauth2/v1/models', '/v1/not-a-route']) {
      const res = await app.http(path, { headers: { 'x-request-id': `front-door-${path.length}` } });
      expect([path, res.headers.get('x-content-type-options')]).toEqual([path, 'nosniff']);
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
      expect(res.headers.get('x-powered-by')).toBeNull();
      expect(res.headers.get('x-request-id')).toBe(`front-door-${path.length}`);
    }
    // The gateway answers in OpenAI's error shape, Express's routes in the envelope: each door kept its own.
    expect((await app.http('/v1/models')).body.error).toMatchObject({ code: 'missing_credentials' });
    expect((await app.http('/api/v1/keys')).body).toMatchObject({ success: false });
  });

  it('refuses to start when the default SPACES_ORIGIN would be the dashboard’s own origin', async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', () => resolve()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const database = await createTestDatabase();
    try {
      await expect(startTestApp({ publicUrl: `http://127.0.0.1:${port}`, spacesPort: port }, database)).rejects.toThrow(
        `hosted apps would share the dashboard's origin http://127.0.0.1:${port}: set SPACES_ORIGIN (or SPACES_PORT) to give them their own`,
      );
    } finally {
      await database.drop();
    }
  });

  it('closes the hosted-apps port whenever Nest is closed, as SIGTERM does', async () => {
    const other = await startTestApp();
    expect((await fetch(`${other.spacesUrl}/s/nobody/nothing`)).status).toBe(404);
    await other.app.close();
    await expect(fetch(`${other.spacesUrl}/s/nobody/nothing`)).rejects.toThrow();
    await other.close();
  });

  it('sends no HSTS over plain http', async () => {
    expect((await app.http('/healthz')).headers.get('strict-transport-security')).toBeNull();
  });

  // Any change to this list is an access-control change: review it as one. (Hosted space apps are not in it:
  // they are served by a listener of their own, spaces-host.ts, and this host only redirects /s/* there.)
  it('declares access on every route', () => {
    const routes: string[] = [];
    for (const module of app.app.get(ModulesContainer).values()) {
      for (const wrapper of module.controllers.values()) {
        const controller = wrapper.metatype as { prototype: Record<string, unknown> } | null;
        if (!controller) continue;
        const base = Reflect.getMetadata(PATH_METADATA, controller) as string;
        for (const name of Object.getOwnPropertyNames(controller.prototype)) {
          const handler = controller.prototype[name];
          if (name === 'constructor' || typeof handler !== 'function') continue;
          const path = Reflect.getMetadata(PATH_METADATA, handler) as string | undefined;
          if (path === undefined) continue;
          const method = RequestMethod[Reflect.getMetadata(METHOD_METADATA, handler) as number];
          const access = Reflect.getMetadata(ACCESS_KEY, handler) ?? Reflect.getMetadata(ACCESS_KEY, controller);
          const rule = access?.public
            ? 'public'
            : access?.roles
              ? `roles:${access.roles.join('|')}`
              : access?.oauth
                ? 'user|oauth'
                : access
                  ? 'user'
                  : 'UNDECLARED';
          routes.push(`${method} /${[base, path].filter((p) => p && p !== '/').join('/')} ${rule}`);
        }
      }
    }
    expect(routes.sort()).toMatchInlineSnapshot(`
     [
       "DELETE /api/v1/keys/:id user",
       "DELETE /api/v1/oauth2/clients/:id user",
       "DELETE /api/v1/oauth2/consents/:clientId user",
       "DELETE /api/v1/spaces/:slug user",
       "GET /.well-known/oauth-authorization-server public",
       "GET /.well-known/openid-configuration public",
       "GET /api/v1/admin/audit roles:admin",
       "GET /api/v1/admin/giftcards roles:admin",
       "GET /api/v1/admin/money roles:admin",
       "GET /api/v1/admin/usage roles:admin",
       "GET /api/v1/admin/users roles:admin",
       "GET /api/v1/admin/users/:id roles:admin",
       "GET /api/v1/auth/me user",
       "GET /api/v1/earnings user",
       "GET /api/v1/earnings/export.csv user",
       "GET /api/v1/earnings/payouts user",
       "GET /api/v1/keys user",
       "GET /api/v1/notifications/settings user",
       "GET /api/v1/oauth2/authorize/request user",
       "GET /api/v1/oauth2/clients user",
       "GET /api/v1/oauth2/clients/:id user",
       "GET /api/v1/oauth2/clients/:id/sponsor user",
       "GET /api/v1/oauth2/clients/:id/usage user",
       "GET /api/v1/oauth2/consents user",
       "GET /api/v1/oauth2/consents/:clientId user",
       "GET /api/v1/oauth2/consents/count user",
       "GET /api/v1/oauth2/consents/current user|oauth",
       "GET /api/v1/payment/sandbox/:sessionId public",
       "GET /api/v1/spaces/:handle public",
       "GET /api/v1/spaces/handle/check public",
       "GET /api/v1/spaces/me/apps user",
       "GET /api/v1/spaces/me/apps/:slug user",
       "GET /api/v1/usage/me/activity user",
       "GET /api/v1/usage/me/analytics user",
       "GET /api/v1/usage/me/daily-spend user",
       "GET /api/v1/usage/me/ledger user",
       "GET /api/v1/usage/me/summary user|oauth",
       "GET /healthz public",
       "GET /metrics public",
       "GET /oauth2/authorize public",
       "GET /oauth2/jwks public",
       "GET /oauth2/userinfo user|oauth",
       "GET /readyz public",
       "PATCH /api/v1/auth/me user",
       "PATCH /api/v1/keys/:id user",
       "POST /api/v1/admin/giftcards roles:admin",
       "POST /api/v1/admin/users/:id/adjustments roles:admin",
       "POST /api/v1/admin/users/:id/disable roles:admin",
       "POST /api/v1/admin/users/:id/enable roles:admin",
       "POST /api/v1/admin/users/:id/payments/:paymentId/refund roles:admin",
       "POST /api/v1/auth/delete-account user",
       "POST /api/v1/auth/login public",
       "POST /api/v1/auth/logout user",
       "POST /api/v1/auth/logout-everywhere user",
       "POST /api/v1/auth/password user",
       "POST /api/v1/auth/password-reset public",
       "POST /api/v1/auth/password-reset/confirm public",
       "POST /api/v1/auth/register public",
       "POST /api/v1/auth/verify-email public",
       "POST /api/v1/auth/verify-email/send user",
       "POST /api/v1/earnings/connect user",
       "POST /api/v1/earnings/move user",
       "POST /api/v1/earnings/payouts user",
       "POST /api/v1/giftcard/redeem user",
       "POST /api/v1/keys user",
       "POST /api/v1/oauth2/authorize/decision user",
       "POST /api/v1/oauth2/clients user",
       "POST /api/v1/oauth2/clients/:id/deactivate user",
       "POST /api/v1/oauth2/clients/:id/reactivate user",
       "POST /api/v1/oauth2/clients/:id/rotate-secret user",
       "POST /api/v1/oauth2/clients/:id/sponsor/withdraw user",
       "POST /api/v1/payment/create-checkout-session user",
       "POST /api/v1/payment/sandbox/:sessionId/pay public",
       "POST /api/v1/payment/verify-and-capture user",
       "POST /api/v1/payment/webhook public",
       "POST /api/v1/spaces/:slug/undo user",
       "POST /api/v1/spaces/generate user",
       "POST /api/v1/spaces/remix user",
       "POST /oauth2/introspect public",
       "POST /oauth2/register public",
       "POST /oauth2/revoke public",
       "POST /oauth2/token public",
       "PUT /api/v1/admin/oauth2/clients/:clientId/trusted roles:admin",
       "PUT /api/v1/keys/:id/limits user",
       "PUT /api/v1/notifications/settings user",
       "PUT /api/v1/oauth2/clients/:id user",
       "PUT /api/v1/oauth2/clients/:id/sponsor user",
       "PUT /api/v1/oauth2/consents/:clientId/limits user",
       "PUT /api/v1/spaces/:slug/edit user",
       "PUT /api/v1/spaces/:slug/publish user",
       "PUT /api/v1/spaces/:slug/title user",
       "PUT /api/v1/spaces/handle user",
     ]
    `);
  });
});

describe('the dashboard’s Content-Security-Policy and HSTS', () => {
  let dir: string;
  let app: TestApp;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sy-dash-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(
      join(dir, 'index.html'),
      '<!doctype html><title>Switchyard</title><script type="module" src="/assets/app-abc123.js"></script>',
    );
    writeFileSync(join(dir, 'assets', 'app-abc123.js'), 'console.log(1)');
    app = await startTestApp(
      { publicUrl: 'https://switchyard.example', spacesOrigin: 'https://switchyard-apps.example' },
      undefined,
      { dashboard: true, dashboardDir: dir },
    );
  });
  afterAll(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives the dashboard its own policy: its own scripts and styles only, frames only of the hosted apps’ origin, never framed', async () => {
    for (const path of ['/', '/spaces', '/u/someone', '/assets/app-abc123.js']) {
      const res = await fetch(app.url + path, { headers: { accept: 'text/html' } });
      expect([path, res.status]).toEqual([path, 200]);
      expect(res.headers.get('content-security-policy')).toBe(
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob: https:; media-src 'self' data: blob:; font-src 'self' data:; " +
          "connect-src 'self'; frame-src https://switchyard-apps.example; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'",
      );
      expect(res.headers.get('x-frame-options')).toBe('DENY');
    }
    // The API's own answers keep theirs.
    expect((await app.http('/api/v1/auth/me')).headers.get('content-security-policy')).toBe("frame-ancestors 'none'");
  });

  it('sends HSTS on every answer when PUBLIC_URL is https: the dashboard, the API, the gateway and the hosted-apps listener (SPACES_ORIGIN https too)', async () => {
    for (const url of [
      `${app.url}/`,
      `${app.url}/healthz`,
      `${app.url}/api/v1/auth/me`,
      `${app.url}/v1/models`,
      `${app.url}/s/x/y`,
      `${app.spacesUrl}/s/x/y`,
    ]) {
      const res = await fetch(url, { headers: { accept: 'text/html' }, redirect: 'manual' });
      expect([url, res.headers.get('strict-transport-security')]).toEqual([url, 'max-age=31536000; includeSubDomains']);
    }
    expect(app.spacesOrigin).toBe('https://switchyard-apps.example');
    const redirected = await fetch(`${app.url}/s/x/y`, { redirect: 'manual' });
    expect(redirected.headers.get('location')).toBe('https://switchyard-apps.example/s/x/y');
  });
});

describe('serving the built dashboard', () => {
  let dir: string;
  let server: import('node:http').Server;
  let base: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sy-dash-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), '<!doctype html><title>Switchyard</title>');
    writeFileSync(join(dir, 'assets', 'app-abc123.js'), 'console.log(1)');
    const web = express();
    web.use(...dashboardStatic(dir, "script-src 'self'"));
    web.use((_req, res) => res.status(404).send('fell through to the API'));
    await new Promise<void>((resolve) => {
      server = web.listen(0, '127.0.0.1', () => resolve());
    });
    base = `http://127.0.0.1:${(server.address() as import('node:net').AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves files, hashed assets as immutable, and index.html for client-side routes', async () => {
    const asset = await fetch(`${base}/assets/app-abc123.js`);
    expect(await asset.text()).toBe('console.log(1)');
    expect(asset.headers.get('cache-control')).toContain('immutable');
    expect(asset.headers.get('content-security-policy')).toBe("script-src 'self'");
    for (const page of ['/', '/signin', '/keys/123']) {
      const res = await fetch(base + page, { headers: { accept: 'text/html' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toBe("script-src 'self'");
      expect(await res.text()).toContain('<title>Switchyard</title>');
    }
  });

  it('leaves API paths to the API, even when they ask for HTML', async () => {
    for (const path of [
      '/api/v1/auth/me',
      '/v1/models',
      '/oauth2/authorize',
      '/openapi.json',
      '/healthz',
      '/s/alice/todo-list',
    ]) {
      const res = await fetch(base + path, { headers: { accept: 'text/html' } });
      expect(await res.text()).toBe('fell through to the API');
    }
  });
});
