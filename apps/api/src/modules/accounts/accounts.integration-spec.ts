import { CSRF_COOKIE, CSRF_HEADER, SESSION_COOKIE } from '@switchyard/shared-dto';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';

describe('accounts over HTTP', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      adminEmail: 'root-admin@example.com',
      adminPassword: 'an admin password',
      loginFailuresPerAccount: 3,
    });
  });
  afterAll(() => app?.close());

  const register = (email: string, password = 'correct horse battery', name?: string) =>
    app.http('/api/v1/auth/register', { body: { email, password, ...(name ? { name } : {}) } });

  describe('register', () => {
    it('creates the account, answers 201 with the user and a token, and sets the session and CSRF cookies', async () => {
      const email = uniqueEmail();
      const res = await register(email, 'correct horse battery', 'Ada');
      expect(res.status).toBe(201);
      expect(res.body).toMatchObject({
        success: true,
        data: { user: { email, name: 'Ada', role: 'user', handle: null } },
      });
      expect(res.body.data.token).toMatch(/^sys_[A-Za-z0-9_-]{43}$/);
      expect(typeof res.body.timestamp).toBe('string');
      expect(res.cookies[SESSION_COOKIE]).toBe(res.body.data.token);
      expect(res.cookies[CSRF_COOKIE]).toMatch(/^[A-Za-z0-9_-]{43}$/);
      const sessionCookie = res.headers.getSetCookie().find((line) => line.startsWith(`${SESSION_COOKIE}=`));
      expect(sessionCookie).toMatch(/HttpOnly/);
      expect(sessionCookie).toMatch(/SameSite=Lax/);
      expect(res.body.data.user).not.toHaveProperty('passwordHash');
    });

    it('answers 409 EMAIL_TAKEN for a duplicate email, whatever its case', async () => {
      const email = uniqueEmail();
      expect((await register(email)).status).toBe(201);
      const again = await register(email.toUpperCase());
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ success: false, error: { code: 'EMAIL_TAKEN' } });
    });

    it('lets exactly one of ten concurrent registrations of one email through', async () => {
      const email = uniqueEmail('race');
      const results = await Promise.all(Array.from({ length: 10 }, () => register(email)));
      expect(results.filter((r) => r.status === 201)).toHaveLength(1);
      expect(results.filter((r) => r.status === 409)).toHaveLength(9);
    });

    it('rejects a short password with a per-field detail', async () => {
      const res = await register(uniqueEmail(), 'short');
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details).toEqual([
        { field: 'password', messages: ['password must be at least 8 characters'] },
      ]);
    });

    it('rejects unknown fields, a bad email and a missing password', async () => {
      const res = await app.http('/api/v1/auth/register', { body: { email: 'not-an-email', role: 'admin' } });
      expect(res.status).toBe(400);
      const fields = res.body.error.details.map((d: { field: string }) => d.field).sort();
      expect(fields).toEqual(['email', 'password', 'role']);
    });

    it('answers malformed JSON with 400 INVALID_JSON in the envelope', async () => {
      const res = await app.http('/api/v1/auth/register', { rawBody: '{"email": "a@b.c", ' });
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({
        success: false,
        error: { code: 'INVALID_JSON' },
        message: 'Request body is not valid JSON',
      });
      expect(res.body.requestId).toBe(res.headers.get('x-request-id'));
    });

    it('answers a body over the limit with 413', async () => {
      const res = await app.http('/api/v1/auth/register', {
        body: { email: 'a@b.co', password: 'x'.repeat(2_000_000) },
      });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('PAYLOAD_TOO_LARGE');
    });
  });

  describe('login, me and logout', () => {
    const password = 'a long enough password';
    let email: string;

    beforeAll(async () => {
      email = uniqueEmail('login');
      expect((await register(email, password)).status).toBe(201);
    });

    it('signs in and reads /me with the bearer token', async () => {
      const login = await app.http('/api/v1/auth/login', { body: { email, password } });
      expect(login.status).toBe(200);
      const me = await app.http('/api/v1/auth/me', { token: login.body.data.token });
      expect(me.status).toBe(200);
      expect(me.body.data).toMatchObject({ email, role: 'user' });
      expect(Object.keys(me.body.data).sort()).toEqual([
        'createdAt',
        'email',
        'emailVerified',
        'handle',
        'id',
        'name',
        'role',
      ]);
    });

    it('answers a wrong password with 401 INVALID_CREDENTIALS, the same as an unknown email', async () => {
      const wrong = await app.http('/api/v1/auth/login', { body: { email, password: 'not the password' } });
      expect(wrong.status).toBe(401);
      expect(wrong.body.error.code).toBe('INVALID_CREDENTIALS');
      const unknown = await app.http('/api/v1/auth/login', { body: { email: uniqueEmail('ghost'), password } });
      expect(unknown.status).toBe(401);
      expect(unknown.body.message).toBe(wrong.body.message);
    });

    it('answers 429 with Retry-After after repeated wrong passwords, even for the right one', async () => {
      const victim = uniqueEmail('victim');
      await register(victim, password);
      for (let i = 0; i < 3; i += 1) {
        expect(
          (await app.http('/api/v1/auth/login', { body: { email: victim, password: 'wrong password' } })).status,
        ).toBe(401);
      }
      const limited = await app.http('/api/v1/auth/login', { body: { email: victim, password } });
      expect(limited.status).toBe(429);
      expect(limited.body.error.code).toBe('RATE_LIMITED');
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      // Another account is not affected.
      expect((await app.http('/api/v1/auth/login', { body: { email, password } })).status).toBe(200);
    });

    it('answers 401 for a forged, a malformed and a missing token', async () => {
      for (const token of ['sys_' + 'A'.repeat(43), 'garbage']) {
        const res = await app.http('/api/v1/auth/me', { token });
        expect(res.status).toBe(401);
        expect(res.body.error.code).toBe('SESSION_INVALID');
        expect(res.headers.get('www-authenticate')).toBe('Bearer');
      }
      const none = await app.http('/api/v1/auth/me');
      expect(none.status).toBe(401);
      expect(none.body.error.code).toBe('UNAUTHENTICATED');
    });

    it('answers 401 for an expired session', async () => {
      const login = await app.http('/api/v1/auth/login', { body: { email, password } });
      await app.database.dataSource.query(
        `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE user_id = $1`,
        [login.body.data.user.id],
      );
      const res = await app.http('/api/v1/auth/me', { token: login.body.data.token });
      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('SESSION_INVALID');
    });

    it('ends the session on logout: the token stops working at once', async () => {
      const login = await app.http('/api/v1/auth/login', { body: { email, password } });
      const token = login.body.data.token;
      const out = await app.http('/api/v1/auth/logout', { method: 'POST', token });
      expect(out.status).toBe(200);
      expect((await app.http('/api/v1/auth/me', { token })).status).toBe(401);
    });
  });

  describe('the session cookie', () => {
    it('authenticates reads, and writes only with the CSRF header that matches the session', async () => {
      const email = uniqueEmail('cookie');
      const reg = await register(email);
      const cookie = `${SESSION_COOKIE}=${reg.cookies[SESSION_COOKIE]}; ${CSRF_COOKIE}=${reg.cookies[CSRF_COOKIE]}`;

      const me = await app.http('/api/v1/auth/me', { headers: { cookie } });
      expect(me.status).toBe(200);
      expect(me.body.data.email).toBe(email);

      const noHeader = await app.http('/api/v1/auth/logout', { method: 'POST', headers: { cookie } });
      expect(noHeader.status).toBe(403);
      expect(noHeader.body.error.code).toBe('CSRF_INVALID');

      // A CSRF token of another session does not pass.
      const other = await register(uniqueEmail('cookie'));
      const wrong = await app.http('/api/v1/auth/logout', {
        method: 'POST',
        headers: { cookie, [CSRF_HEADER]: other.cookies[CSRF_COOKIE] },
      });
      expect(wrong.status).toBe(403);

      const ok = await app.http('/api/v1/auth/logout', {
        method: 'POST',
        headers: { cookie, [CSRF_HEADER]: reg.cookies[CSRF_COOKIE] },
      });
      expect(ok.status).toBe(200);
      expect(ok.cookies[SESSION_COOKIE]).toBe('');
      expect((await app.http('/api/v1/auth/me', { headers: { cookie } })).status).toBe(401);
    });

    it('does not lock a stale cookie out of signing in again', async () => {
      const email = uniqueEmail('stale');
      await register(email, 'correct horse battery');
      const res = await app.http('/api/v1/auth/login', {
        body: { email, password: 'correct horse battery' },
        headers: { cookie: `${SESSION_COOKIE}=sys_expired_or_forged` },
      });
      expect(res.status).toBe(200);
    });
  });

  describe('writes from another site (login CSRF): the Origin rule', () => {
    const port = () => new URL(app.url).port;
    const refused = (res: { status: number; body: any }) => {
      expect(res.status).toBe(403);
      expect(res.body).toMatchObject({
        success: false,
        error: { code: 'ORIGIN_FORBIDDEN' },
        requestId: expect.any(String),
      });
      expect(res.body.message).toMatch(/other sites/);
    };

    it('refuses sign-in and registration whose Origin is another site’s, even a form post, with 403 in the envelope', async () => {
      const email = uniqueEmail('csrf');
      await register(email);
      for (const origin of [
        'https://attacker.example',
        'null',
        `http://localhost.attacker.example:${port()}`,
        `http://127.0.0.1:${Number(port()) + 1}`,
        `https://127.0.0.1:${port()}`,
      ]) {
        refused(
          await app.http('/api/v1/auth/login', {
            body: { email, password: 'correct horse battery' },
            headers: { origin },
          }),
        );
        refused(
          await app.http('/api/v1/auth/register', {
            body: { email: uniqueEmail('csrf'), password: 'correct horse battery' },
            headers: { origin },
          }),
        );
      }
      // The attacker's form post: form-encoded, cross-site.
      const form = await fetch(`${app.url}/api/v1/auth/login`, {
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          origin: 'https://attacker.example',
          'sec-fetch-site': 'cross-site',
        },
        body: new URLSearchParams({ email, password: 'correct horse battery' }),
      });
      refused({ status: form.status, body: await form.json() });
      expect(form.headers.getSetCookie()).toEqual([]);
    });

    it('refuses Sec-Fetch-Site: cross-site even without an Origin', async () => {
      refused(
        await app.http('/api/v1/auth/login', {
          body: { email: uniqueEmail(), password: 'whatever it is' },
          headers: { 'sec-fetch-site': 'cross-site' },
        }),
      );
    });

    it('lets the service’s own origins through (PUBLIC_URL’s, and localhost or 127.0.0.1 on this port when it is loopback), and browsers’ same-origin fetches', async () => {
      const email = uniqueEmail('own');
      await register(email);
      for (const origin of [`http://localhost:${port()}`, `http://127.0.0.1:${port()}`, app.config.publicUrl]) {
        const res = await app.http('/api/v1/auth/login', {
          body: { email, password: 'correct horse battery' },
          headers: { origin, 'sec-fetch-site': 'same-origin' },
        });
        expect([origin, res.status]).toEqual([origin, 200]);
      }
    });

    it('refuses a cookie-authenticated write from another origin even with the right CSRF token', async () => {
      const reg = await register(uniqueEmail('cookie-origin'));
      const cookie = `${SESSION_COOKIE}=${reg.cookies[SESSION_COOKIE]}; ${CSRF_COOKIE}=${reg.cookies[CSRF_COOKIE]}`;
      const headers = { cookie, [CSRF_HEADER]: reg.cookies[CSRF_COOKIE] };
      refused(
        await app.http('/api/v1/keys', {
          body: { name: 'forged' },
          headers: { ...headers, origin: 'https://attacker.example' },
        }),
      );
      refused(
        await app.http('/api/v1/keys', {
          body: { name: 'forged' },
          headers: { ...headers, 'sec-fetch-site': 'cross-site' },
        }),
      );
      expect(
        (
          await app.http('/api/v1/keys', {
            body: { name: 'mine' },
            headers: { ...headers, origin: `http://127.0.0.1:${port()}` },
          })
        ).status,
      ).toBe(201);
      // Reads are not writes.
      expect(
        (await app.http('/api/v1/auth/me', { headers: { cookie, origin: 'https://attacker.example' } })).status,
      ).toBe(200);
    });

    it('leaves bearer calls and clients that send neither header alone', async () => {
      const reg = await register(uniqueEmail('bearer'));
      const bearer = await app.http('/api/v1/keys', {
        token: reg.body.data.token,
        body: { name: 'script' },
        headers: { origin: 'https://tool.example', 'sec-fetch-site': 'cross-site' },
      });
      expect(bearer.status).toBe(201);
      expect(
        (
          await app.http('/api/v1/auth/login', {
            body: { email: reg.body.data.user.email, password: 'correct horse battery' },
          })
        ).status,
      ).toBe(200);
    });
  });

  describe('the admin account', () => {
    it('is created from ADMIN_EMAIL and ADMIN_PASSWORD with the admin role', async () => {
      const login = await app.http('/api/v1/auth/login', {
        body: { email: 'root-admin@example.com', password: 'an admin password' },
      });
      expect(login.status).toBe(200);
      expect(login.body.data.user.role).toBe('admin');
    });
  });
});

describe('the per-address limit on sign-in and registration', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ authRateLimitPerIp: 3 });
  });
  afterAll(() => app?.close());

  it('answers 429 once one address has made too many attempts', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      statuses.push(
        (await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('ip'), password: 'long enough pw' } }))
          .status,
      );
    }
    expect(statuses).toEqual([201, 201, 201, 429]);
  });
});

describe('the Origin rule on a public PUBLIC_URL', () => {
  it('accepts only PUBLIC_URL’s origin: loopback names are not the service’s own there', async () => {
    const app = await startTestApp({ publicUrl: 'https://switchyard.example' });
    try {
      const port = new URL(app.url).port;
      const body = { email: uniqueEmail('public'), password: 'correct horse battery' };
      const local = await app.http('/api/v1/auth/register', { body, headers: { origin: `http://127.0.0.1:${port}` } });
      expect(local.status).toBe(403);
      expect(local.body.error.code).toBe('ORIGIN_FORBIDDEN');
      expect(
        (await app.http('/api/v1/auth/register', { body, headers: { origin: 'https://switchyard.example' } })).status,
      ).toBe(201);
    } finally {
      await app.close();
    }
  });
});
