import { request } from 'node:http';
import { MAX_JSON_DEPTH } from '../src/common/http/input-hygiene';
import { startTestApp, TestApp, uniqueEmail } from './support/test-app';

interface RawAnswer {
  status: number;
  body: any; // eslint-disable-line @typescript-eslint/no-explicit-any
}

/** A request sent byte for byte (fetch would re-encode the path and refuse some bodies). */
function raw(base: string, method: string, path: string, headers: Record<string, string> = {}, body?: Buffer | string): Promise<RawAnswer> {
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
        resolve({ status: res.statusCode!, body: parsed });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

type Surface = 'envelope' | 'openai' | 'oauth';

/** The answer is a 400 of the named code, in the error shape of the surface. */
function expectRefused(answer: RawAnswer, surface: Surface, code = 'INVALID_REQUEST'): void {
  expect(answer.status).toBe(400);
  if (surface === 'envelope') expect(answer.body).toMatchObject({ success: false, error: { code }, requestId: expect.any(String) });
  if (surface === 'openai') expect(answer.body).toMatchObject({ error: { type: 'invalid_request_error', code: code.toLowerCase() } });
  if (surface === 'oauth') expect(answer.body).toMatchObject({ error: code.toLowerCase(), error_description: expect.any(String) });
}

describe('the edge: input hygiene and request bodies', () => {
  let app: TestApp;
  let session: string;
  let key: string;

  beforeAll(async () => {
    app = await startTestApp();
    session = (await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('edge'), password: 'edge password' } })).body.data.token;
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
      expectRefused(await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), ...json }, '{"name":"a\\u0000b"}'), 'envelope');
      expectRefused(await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), ...json }, '{"name":"\\ud800"}'), 'envelope');
      expectRefused(await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), ...json }, '{"name":"\\udfff x"}'), 'envelope');
      expectRefused(await raw(app.url, 'POST', '/api/v1/auth/register', json, '{"email":"a\\u0000@example.com","password":"long enough password"}'), 'envelope');
      expectRefused(await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), ...json }, Buffer.from([0x7b, 0x22, 0x6e, 0x61, 0x6d, 0x65, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d])), 'envelope');
    });

    it('on /v1 (a chat message, a model name, a multipart field)', async () => {
      const chat = (content: string) => `{"model":"demo-chat","messages":[{"role":"user","content":"${content}"}]}`;
      expectRefused(await raw(app.url, 'POST', '/v1/chat/completions', { ...auth('/v1'), ...json }, chat('a\\u0000')), 'openai');
      expectRefused(await raw(app.url, 'POST', '/v1/chat/completions', { ...auth('/v1'), ...json }, chat('\\ud800')), 'openai');
      expectRefused(await raw(app.url, 'POST', '/apikey/v1/embeddings', { ...auth('/v1'), ...json }, '{"model":"demo\\u0000","input":"x"}'), 'openai');
      expectRefused(await raw(app.url, 'POST', '/v1/chat/completions', { ...auth('/v1'), ...json }, Buffer.concat([Buffer.from(chat('x')).subarray(0, 50), Buffer.from([0xff, 0xfe]), Buffer.from(chat('x')).subarray(50)])), 'openai');
      const boundary = 'edge-boundary';
      const form = `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\ndemo-transcribe\u0000\r\n--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF\r\n--${boundary}--\r\n`;
      expectRefused(await raw(app.url, 'POST', '/v1/audio/transcriptions', { ...auth('/v1'), 'content-type': `multipart/form-data; boundary=${boundary}` }, form), 'openai');
    });

    it('on the OAuth token endpoint (form and JSON bodies)', async () => {
      const formType = { 'content-type': 'application/x-www-form-urlencoded' };
      expectRefused(await raw(app.url, 'POST', '/oauth2/token', formType, 'grant_type=authorization_code&code=%00&client_id=x'), 'oauth');
      expectRefused(await raw(app.url, 'POST', '/oauth2/token', formType, 'grant_type=authorization_code&code=%ed%a0%80'), 'oauth');
      expectRefused(await raw(app.url, 'POST', '/oauth2/revoke', formType, 'token=a%00'), 'oauth');
      expectRefused(await raw(app.url, 'POST', '/oauth2/token', json, '{"grant_type":"\\u0000"}'), 'oauth');
    });

    it('while a surrogate pair (an emoji), escaped or not, is an ordinary character', async () => {
      const escaped = await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), ...json }, '{"name":"party \\ud83c\\udf89"}');
      expect(escaped.status).toBe(201);
      expect(escaped.body.data.name).toBe('party 🎉');
      const plain = await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), ...json }, Buffer.from('{"name":"party 🎉"}'));
      expect(plain.status).toBe(201);
    });
  });

  describe(`JSON nested deeper than ${MAX_JSON_DEPTH} levels is refused with 400 before anything walks it`, () => {
    const deep = (levels: number) => `{"name":"x","deep":${'['.repeat(levels)}${']'.repeat(levels)}}`;
    it('5,000 levels on /api/v1/keys and one level too many', async () => {
      expectRefused(await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), 'content-type': 'application/json' }, deep(5_000)), 'envelope', 'INVALID_JSON');
      expectRefused(await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), 'content-type': 'application/json' }, deep(MAX_JSON_DEPTH)), 'envelope', 'INVALID_JSON');
      // Within the limit, the body reaches validation (which refuses the unknown field, not the depth).
      const within = await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), 'content-type': 'application/json' }, deep(MAX_JSON_DEPTH - 1));
      expect(within.status).toBe(400);
      expect(within.body.error.code).toBe('VALIDATION_FAILED');
    });

    it('100,000 levels on /v1/chat/completions and on the OAuth token endpoint', async () => {
      const body = `{"model":"demo-chat","messages":[{"role":"user","content":"Hi"}],"metadata":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
      expectRefused(await raw(app.url, 'POST', '/v1/chat/completions', { ...auth('/v1'), 'content-type': 'application/json' }, body), 'openai', 'INVALID_JSON');
      expectRefused(await raw(app.url, 'POST', '/oauth2/token', { 'content-type': 'application/json' }, `{"grant_type":${'['.repeat(100_000)}}`), 'oauth', 'INVALID_JSON');
      const fine = `{"model":"demo-chat","messages":[{"role":"user","content":"Hi"}],"metadata":{"k":"${'['.repeat(1000)}"}}`;
      expect((await raw(app.url, 'POST', '/v1/chat/completions', { ...auth('/v1'), 'content-type': 'application/json' }, fine)).status).toBe(200);
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
      expect(answer.body).toMatchObject({ success: false, error: { code: 'UNSUPPORTED_MEDIA_TYPE' }, message: 'Request bodies on /api/v1 must be application/json' });
    });

    it('a body without a content type is 415 too; a request without a body (an empty form post) is not', async () => {
      expect((await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), 'transfer-encoding': 'chunked' }, '{"name":"x"}')).status).toBe(415);
      const empty = await raw(app.url, 'POST', '/API/V1/keys', { ...auth('/api/'), 'content-type': 'application/x-www-form-urlencoded', 'content-length': '0' });
      expect(empty.status).toBe(400);
      expect(empty.body.error.code).toBe('VALIDATION_FAILED');
      expect((await raw(app.url, 'POST', '/api/v1/keys', { ...auth('/api/'), 'content-type': 'application/json; charset=utf-8' }, '{"name":"json"}')).status).toBe(201);
    });

    it('the OAuth token endpoint keeps its form bodies (RFC 6749)', async () => {
      const answer = await raw(app.url, 'POST', '/oauth2/token', { 'content-type': 'application/x-www-form-urlencoded' }, 'grant_type=authorization_code&code=nope&client_id=nobody&code_verifier=x');
      expect(answer.status).toBeGreaterThanOrEqual(400);
      expect(answer.status).toBeLessThan(500);
      expect(answer.body.error).not.toBe('unsupported_media_type');
      expect(answer.body.error_description).not.toMatch(/grant_type/i);
    });
  });
});
