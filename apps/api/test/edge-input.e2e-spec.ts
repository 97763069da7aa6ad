import { type IncomingHttpHeaders, request } from 'node:http';
import { ReservationService, UsageRecorder } from '../src/modules/usage';
import { connect } from 'node:net';
import { MAX_JSON_DEPTH } from '../src/common/http/input-hygiene';
import { startTestApp, TestApp, uniqueEmail } from './support/test-app';

interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: any;
}

/** A request sent byte for byte (fetch would re-encode the path and refuse some bodies). */
function raw(
  base: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: Buffer | string,
): Promise<RawAnswer> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode!, headers: res.headers, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Bytes written straight to a socket (node's client refuses to send a malformed request line); the whole answer. */
function rawHttp(base: string, text: string): Promise<string> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.end(text, 'latin1'));
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString()));
    socket.on('end', () => resolve(answer));
    socket.on('error', reject);
  });
}

type Surface = 'envelope' | 'openai' | 'oauth';

/** The answer is a 400 of the named code, in the error shape of the surface. */
function expectRefused(answer: RawAnswer, surface: Surface, code = 'INVALID_REQUEST'): void {
  expect(answer.status).toBe(400);
  if (surface === 'envelope')
    expect(answer.body).toMatchObject({ success: false, error: { code }, requestId: expect.any(String) });
  if (surface === 'openai')
    expect(answer.body).toMatchObject({ error: { type: 'invalid_request_error', code: code.toLowerCase() } });
  if (surface === 'oauth')
    expect(answer.body).toMatchObject({ error: code.toLowerCase(), error_description: expect.any(String) });
}

describe('the edge: input hygiene and request bodies', () => {
  let app: TestApp;
  let session: string;
  let key: string;

  beforeAll(async () => {
    app = await startTestApp();
    session = (
      await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('edge'), password: 'edge password' } })
    ).body.data.token;
    key = (await app.http('/api/v1/keys', { token: session, body: { name: 'edge' } })).body.data.key;
  });
  afterAll(() => app?.close());

  const auth = (path: string) => ({ authorization: `Bearer ${path.startsWith('/api/') ? session : key}` });

  describe('a NUL or invalid UTF-8 in a path or query is refused with 400 at the edge, in each surface’s shape', () => {
    const cases: Array<[string, string, Surface]> = [
      ['GET', '/api/v1/keys/%00', 'envelope'],
      ['DELETE', '/api/v1/keys/a%00b', 'envelope'],
      ['GET', '/api/v1/usage/me/activity?model=%00', 'envelope'],
      ['GET', '/api/v1/spaces/handle/check?handle=a%00', 'envelope'],
      ['GET', '/api/v1/keys/%ff', 'envelope'],
      ['GET', '/api/v1/spaces/%ed%a0%80', 'envelope'],
      ['GET', '/v1/models/%00', 'openai'],
      ['GET', '/v1/models?type=%00', 'openai'],
      ['POST', '/v1/chat/completions?x=%00', 'openai'],
      ['GET', '/v1/models/%ed%a0%80', 'openai'],
      ['GET', '/apikey/v1/models/a%00', 'openai'],
      ['GET', '/oauth2/v1/models/%c0%af', 'openai'],
      ['POST', '/oauth2/token?x=%00', 'oauth'],
      ['POST', '/oauth2/revoke?token=%ff', 'oauth'],
      ['GET', '/oauth2/authorize?client_id=%00&response_type=code', 'envelope'],
      ['GET', '/oauth2/userinfo?%00', 'envelope'],
      ['GET', '/s/ann%00/app', 'envelope'],
      ['GET', '/s/ann/%ff', 'envelope'],
      ['GET', '/u/%00', 'envelope'],
      ['GET', '/keys%00', 'envelope'],
      ['GET', '/billing?session_id=%00', 'envelope'],
      ['GET', '/healthz?%00', 'envelope'],
      ['GET', '/.well-known/oauth-authorization-server?%ff', 'envelope'],
    ];
    it.each(cases)('%s %s', async (method, path, surface) => {
      expectRefused(await raw(app.url, method, path, auth(path)), surface);
    });
  });

  describe('a NUL, a lone surrogate or invalid UTF-8 in a body is refused with 400, in each surface’s shape', () => {
    const json = { 'content-type': 'application/json' };
    it('on /api/v1 (a key name, a sign-up email)', async () => {
      expectRefused(
        await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), ...json }, '{"name":"a\\u0000b"}'),
        'envelope',
      );
      expectRefused(
        await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), ...json }, '{"name":"\\ud800"}'),
        'envelope',
      );
      expectRefused(
        await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), ...json }, '{"name":"\\udfff x"}'),
        'envelope',
      );
      expectRefused(
        await raw(
          app.url,
          'POST',
          '/api/v1/auth/register',
          json,
          '{"email":"a\\u0000@example.com","password":"long enough password"}',
        ),
        'envelope',
      );
      expectRefused(
        await raw(
          app.url,
          'POST',
          '/api/v1/keys',
          { ...auth('/api/'), ...json },
          Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]),
        ),
        'envelope',
      );
    });

    it('on /v1 (a chat message, a model name, a multipart field)', async () => {
      const chat = (content: string) => `{"model":"demo-chat","messages":[{"role":"user","content":"${content}"}]}`;
      expectRefused(
        await raw(app.url, 'POST', '/v1/chat/completions', { ...auth('/v1'), ...json }, chat('a\\u0000')),
        'openai',
      );
      expectRefused(
        await raw(app.url, 'POST', '/v1/chat/completions', { ...auth('/v1'), ...json }, chat('\\ud800')),
        'openai',
      );
      expectRefused(
        await raw(
          app.url,
          'POST',
          '/apikey/v1/embeddings',
          { ...auth('/v1'), ...json },
          '{"model":"demo\\u0000","input":"x"}',
        ),
        'openai',
      );
      expectRefused(
        await raw(
          app.url,
          'POST',
          '/v1/chat/completions',
          { ...auth('/v1'), ...json },
          Buffer.concat([
            Buffer.from(chat('x')).subarray(0, 50),
            Buffer.from([0xff, 0xfe]),
            Buffer.from(chat('x')).subarray(50),
          ]),
        ),
        'openai',
      );
      const boundary = 'edge-boundary';
      const form = `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\ndemo-transcribe\u0000\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF\r\n--${boundary}--\r\n`;
      expectRefused(
        await raw(
          app.url,
          'POST',
          '/v1/audio/transcriptions',
          { ...auth('/v1'), 'content-type': `multipart/form-data; boundary=${boundary}` },
          form,
        ),
        'openai',
      );
    });

    it('on the OAuth token endpoint (form and JSON bodies)', async () => {
      const formType = { 'content-type': 'application/x-www-form-urlencoded' };
      expectRefused(
        await raw(app.url, 'POST', '/oauth2/token', formType, 'grant_type=authorization_code&code=%00&client_id=x'),
        'oauth',
      );
      expectRefused(
        await raw(app.url, 'POST', '/oauth2/token', formType, 'grant_type=authorization_code&code=%ed%a0%80'),
        'oauth',
      );
      expectRefused(await raw(app.url, 'POST', '/oauth2/revoke', formType, 'token=a%00'), 'oauth');
      expectRefused(await raw(app.url, 'POST', '/oauth2/token', json, '{"grant_type":"\\u0000"}'), 'oauth');
    });

    it('while a surrogate pair (an emoji), escaped or not, is an ordinary character', async () => {
      const escaped = await raw(
        app.url,
        'POST',
        '/api/v1/keys',
        { ...auth('/api/'), ...json },
        '{"name":"party \\ud83c\\udf89"}',
      );
      expect(escaped.status).toBe(201);
      expect(escaped.body.data.name).toBe('party 🎉');
      const plain = await raw(
        app.url,
        'POST',
        '/api/v1/keys',
        { ...auth('/api/'), ...json },
        Buffer.from('{"name":"party 🎉"}'),
      );
      expect(plain.status).toBe(201);
    });
  });

  describe(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is refused with 400 before anything walks it`, () => {
    const deep = (levels: number) => `{"name":"x","deep":${'['.repeat(levels)}${']'.repeat(levels)}}`;
    it('5,000 levels on /api/v1/keys and one level too many', async () => {
      expectRefused(
        await raw(
          app.url,
          'POST',
          '/api/v1/keys',
          { ...auth('/api/'), 'content-type': 'application/json' },
          deep(5_000),
        ),
        'envelope',
        'INVALID_JSON',
      );
      expectRefused(
        await raw(
          app.url,
          'POST',
          '/api/v1/keys',
          { ...auth('/api/'), 'content-type': 'application/json' },
          deep(MAX_JSON_DEPTH),
        ),
        'envelope',
        'INVALID_JSON',
      );
      // Within the limit, the body reaches validation (which refuses the unknown field, not the depth).
      const within = await raw(
        app.url,
        'POST',
        '/api/v1/keys',
        { ...auth('/api/'), 'content-type': 'application/json' },
        deep(MAX_JSON_DEPTH - 1),
      );
      expect(within.status).toBe(400);
      expect(within.body.error.code).toBe('VALIDATION_FAILED');
    });

    it('100,000 levels on /v1/chat/completions and on the OAuth token endpoint', async () => {
      const body = `{"model":"demo-chat","messages":[{"role":"user","content":"Hi"}],"metadata":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
      expectRefused(
        await raw(
          app.url,
          'POST',
          '/v1/chat/completions',
          { ...auth('/v1'), 'content-type': 'application/json' },
          body,
        ),
        'openai',
        'INVALID_JSON',
      );
      expectRefused(
        await raw(
          app.url,
          'POST',
          '/oauth2/token',
          { 'content-type': 'application/json' },
          `{"grant_type":${'['.repeat(100_000)}}`,
        ),
        'oauth',
        'INVALID_JSON',
      );
      const fine = `{"model":"demo-chat","messages":[{"role":"user","content":"Hi"}],"metadata":{"k":"${'['.repeat(1000)}"}}`;
      expect(
        (
          await raw(
            app.url,
            'POST',
            '/v1/chat/completions',
            { ...auth('/v1'), 'content-type': 'application/json' },
            fine,
          )
        ).status,
      ).toBe(200);
    });
  });

  it('never lets a caller’s X-Request-Id key a call: two calls sending the same one are each answered, recorded and billed', async () => {
    const call = () =>
      raw(
        app.url,
        'POST',
        '/v1/chat/completions',
        { ...auth('/v1'), 'content-type': 'application/json', 'x-request-id': 'replayed-id' },
        JSON.stringify({ model: 'demo-chat', messages: [{ role: 'user', content: 'Hi' }], max_tokens: 3 }),
      );
    const [first, second] = await Promise.all([call(), call()]);
    expect([first.status, second.status]).toEqual([200, 200]);
    await app.app.get(UsageRecorder).flush();
    await app.app.get(ReservationService).flushSettlements();
    // The caller's id is echoed as given (correlation only); each call is keyed by its own call id.
    expect([first.headers['x-request-id'], second.headers['x-request-id']]).toEqual(['replayed-id', 'replayed-id']);
    const rows = await app.database.dataSource.query<Array<{ call_id: string; status: string; cost: number }>>(
      `SELECT call_id, status, cost_micros::int AS cost FROM usage_records WHERE request_id = 'replayed-id'`,
    );
    expect(rows).toHaveLength(2);
    expect(new Set(rows.map((row) => row.call_id)).size).toBe(2);
    expect(rows.every((row) => row.status === 'success' && row.cost > 0)).toBe(true);
    const debits = await app.database.dataSource.query<unknown[]>(
      `SELECT idempotency_key FROM ledger_entries WHERE kind = 'usage' AND source = ANY($1)`,
      [rows.map((row) => row.call_id)],
    );
    expect(debits).toHaveLength(2);
  });

  it('refuses absurd numbers (n: 1e308, 1e999, an amount written 1e-7) with a 4xx, never a 500', async () => {
    const json = { 'content-type': 'application/json' };
    for (const body of [
      '{"model":"demo-image","prompt":"x","n":1e308}',
      '{"model":"demo-image","prompt":"x","n":1e999}',
      '{"model":"demo-video","prompt":"x","seconds":1e999}',
    ]) {
      const answer = await raw(
        app.url,
        'POST',
        body.includes('video') ? '/v1/videos' : '/v1/images/generations',
        { ...auth('/v1'), ...json },
        body,
      );
      // Refused before anything is reserved: n and seconds are bounded (docs/budgets.md).
      expect([body, answer.status]).toEqual([body, 400]);
      expect(answer.body.error.type).toBe('invalid_request_error');
    }
    const keyId = (await app.http('/api/v1/keys', { token: session })).body.data[0].id as string;
    const limits = await raw(
      app.url,
      'PUT',
      `/api/v1/keys/${keyId}/limits`,
      { ...auth('/api/'), ...json },
      '{"daily":1e-7}',
    );
    expect(limits.status).toBe(400);
    expect(limits.body.error.code).toBe('VALIDATION_FAILED');
  });

  it('answers a request node’s HTTP parser refuses with a JSON error in the path’s shape, then closes the connection', async () => {
    const control = await rawHttp(app.url, 'GET /v1/mod\x01els HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(control).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(control).toContain('Connection: close');
    expect(JSON.parse(control.split('\r\n\r\n')[1])).toMatchObject({
      error: { type: 'invalid_request_error', code: 'bad_request' },
    });
    const method = await rawHttp(app.url, 'FOO /api/v1/keys HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(JSON.parse(method.split('\r\n\r\n')[1])).toMatchObject({ success: false, error: { code: 'BAD_REQUEST' } });
    const raw8bit = await rawHttp(app.url, 'GET /oauth2/token\xff HTTP/1.1\r\nHost: x\r\n\r\n');
    expect(raw8bit).toMatch(/^HTTP\/1\.1 400 /);
    const huge = await rawHttp(
      app.url,
      `GET /api/v1/auth/me HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(JSON.parse(huge.split('\r\n\r\n')[1])).toMatchObject({
      success: false,
      error: { code: 'HEADERS_TOO_LARGE' },
    });
  });

  describe('/api/v1 takes JSON bodies only', () => {
    it.each([
      ['text/plain', '{"name":"x"}'],
      ['application/x-www-form-urlencoded', 'name=x'],
      ['multipart/form-data; boundary=b', '--b\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--b--\r\n'],
      ['application/xml', '<name>x</name>'],
      ['application/json-patch+json', '{"name":"x"}'],
    ])('a %s body is 415 in the envelope', async (type, body) => {
      const answer = await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), 'content-type': type }, body);
      expect(answer.status).toBe(415);
      expect(answer.body).toMatchObject({
        success: false,
        error: { code: 'UNSUPPORTED_MEDIA_TYPE' },
        message: 'Request bodies on /api/v1 must be application/json',
      });
    });

    it('a body without a content type is 415 too; a request without a body (an empty form post) is not', async () => {
      expect(
        (
          await raw(
            app.url,
            'POST',
            '/api/v1/keys',
            { ...auth('/api/'), 'transfer-encoding': 'chunked' },
            '{"name":"x"}',
          )
        ).status,
      ).toBe(415);
      const empty = await raw(app.url, 'POST', '/API/V1/keys', {
        ...auth('/api/'),
        'content-type': 'application/x-www-form-urlencoded',
        'content-length': '0',
      });
      expect(empty.status).toBe(400);
      expect(empty.body.error.code).toBe('VALIDATION_FAILED');
      expect(
        (
          await raw(
            app.url,
            'POST',
            '/api/v1/keys',
            { ...auth('/api/'), 'content-type': 'application/json; charset=utf-8' },
            '{"name":"json"}',
          )
        ).status,
      ).toBe(201);
    });

    it('the OAuth token endpoint keeps its form bodies (RFC 6749)', async () => {
      const answer = await raw(
        app.url,
        'POST',
        '/oauth2/token',
        { 'content-type': 'application/x-www-form-urlencoded' },
        'grant_type=authorization_code&code=nope&client_id=nobody&code_verifier=x',
      );
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(answer.body.error).not.toBe('unsupported_media_type');
      expect(answer.body.error_description).not.toMatch(/grant_type/i);
    });
  });
});
