import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeOpenAI, Received } from '../../../test/support/fake-openai';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';

const UPSTREAM_KEY = 'sk-upstream-forwarding-test';

/**
 * Headers an attacker (or a careless client) sends, each with a value marked `evil` so that any of them reaching
 * the provider shows. The caller's own Authorization is added per call (its credential must not go upstream either).
 */
const DANGEROUS: Record<string, string> = {
  cookie: 'session=evil-cookie',
  'x-api-key': 'evil-x-api-key',
  'api-key': 'evil-api-key',
  'openai-organization': 'org-evil',
  'openai-project': 'proj_evil',
  'openai-beta': 'assistants=evil',
  'x-forwarded-for': '203.0.113.66, evil',
  'x-forwarded-host': 'evil.example',
  'x-forwarded-proto': 'evil',
  'x-forwarded-port': '6666',
  forwarded: 'for=203.0.113.66;host=evil.example',
  'x-real-ip': '203.0.113.66-evil',
  host: 'evil-host.example',
  'x-service-oauth-client-id': 'evil-client-id',
  'x-csrf-token': 'evil-csrf',
  'proxy-authorization': 'Basic evil-proxy',
  'x-evil': 'evil-custom',
  origin: 'https://evil.example',
  referer: 'https://evil.example/page',
  'user-agent': 'evil-agent/1.0',
  'x-request-id': 'evil-request-id',
  'x-stainless-os': 'evil-os',
  'idempotency-key': 'evil-idempotency',
  'x-http-method-override': 'DELETE-evil',
  'x-original-url': '/evil',
  'x-rewrite-url': '/evil',
  te: 'trailers',
  'cache-control': 'no-transform, evil',
  connection: 'keep-alive, x-evil',
};

function catalogYaml(upstream: string): string {
  return (
    `providers:\n  - { id: fake, type: openai, baseUrl: "${upstream}", apiKey: "${UPSTREAM_KEY}" }\n` +
    `models:\n` +
    `  - { id: up-chat, provider: fake, upstreamModel: gpt-upstream, type: text, methods: [chat_completions], pricing: { inputPerMTok: 1, outputPerMTok: 2 } }\n` +
    `  - { id: up-stt, provider: fake, type: audio, methods: [audio_transcription], free: true }\n` +
    `  - { id: up-video, provider: fake, type: video, methods: [video_generation], pricing: { perSecond: 0.01 } }\n`
  );
}

/** A raw request with exactly the given headers (fetch would refuse some of them, such as host). */
function send(
  url: string,
  method: string,
  headers: Record<string, string>,
  body?: Buffer,
): Promise<{ status: number; headers: Record<string, unknown>; body: Buffer }> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('headers sent upstream', () => {
  const fake = new FakeOpenAI();
  let app: TestApp;
  let dir: string;
  let key: string;

  beforeAll(async () => {
    await fake.start();
    dir = mkdtempSync(join(tmpdir(), 'sy-headers-'));
    writeFileSync(join(dir, 'models.yaml'), catalogYaml(fake.url));
    app = await startTestApp({ modelsConfig: join(dir, 'models.yaml') });
    const session = (
      await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('hdr'), password: 'forwarding password' } })
    ).body.data.token;
    key = (await app.http('/api/v1/keys', { token: session, body: { name: 'headers' } })).body.data.key;
  });
  afterAll(async () => {
    await app?.close();
    await fake.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const callerHeaders = (extra: Record<string, string> = {}) => ({
    ...DANGEROUS,
    authorization: `Bearer ${key}`,
    ...extra,
  });

  /** Only the gateway's own headers reached the provider: its key, its host, nothing of the caller's list. */
  const expectClean = (received: Received | undefined) => {
    expect(received).toBeDefined();
    const headers = received!.headers;
    expect(headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    expect(headers.host).toBe(new URL(fake.url).host);
    expect(JSON.stringify(headers)).not.toMatch(/evil|203\.0\.113|sy-/);
    for (const name of Object.keys(DANGEROUS).filter((name) => !['host', 'connection', 'user-agent'].includes(name)))
      expect([name, headers[name]]).toEqual([name, undefined]);
    expect(JSON.stringify(headers)).not.toContain(key);
  };

  it('the JSON path (chat completions) forwards none of the caller’s headers', async () => {
    const body = Buffer.from(JSON.stringify({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] }));
    const res = await send(
      `${app.url}/v1/chat/completions`,
      'POST',
      callerHeaders({ 'content-type': 'application/json', range: 'bytes=0-1' }),
      body,
    );
    expect(res.status).toBe(200);
    const received = fake.last('/chat/completions');
    expectClean(received);
    expect(received!.headers.range).toBeUndefined();
  });

  it('the multipart path (audio transcription) forwards none of the caller’s headers', async () => {
    const boundary = 'sy-boundary-1234';
    const body = Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="model"\r\n\r\nup-stt\r\n` +
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\nContent-Type: audio/wav\r\n\r\nRIFF....WAVE\r\n` +
        `--${boundary}--\r\n`,
    );
    const res = await send(
      `${app.url}/v1/audio/transcriptions`,
      'POST',
      callerHeaders({ 'content-type': `multipart/form-data; boundary=${boundary}` }),
      body,
    );
    expect(res.status).toBe(200);
    const received = fake.last('/audio/transcriptions');
    expectClean(received);
    expect(received!.headers['content-type']).not.toContain(boundary);
  });

  it('the binary path (video content) forwards only range and conditional headers, and no body', async () => {
    const created = await app.http('/v1/videos', {
      token: key,
      body: { model: 'up-video', prompt: 'a wave', seconds: '4' },
    });
    expect(created.status).toBe(200);
    const id = created.body.id as string;
    const res = await send(
      `${app.url}/v1/videos/${id}/content`,
      'GET',
      callerHeaders({
        range: 'bytes=0-3',
        'if-none-match': '"v1"',
        accept: 'video/mp4',
        'content-type': 'application/x-evil',
      }),
    );
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('fake-mp4-bytes');
    expect(res.headers['x-upstream-internal']).toBeUndefined();
    const received = fake.last(`/videos/${id}/content`);
    expectClean(received);
    expect(received!.headers).toMatchObject({ range: 'bytes=0-3', 'if-none-match': '"v1"', accept: 'video/mp4' });
    expect(received!.body.length).toBe(0);
  });

  it('the binary path sends the provider’s key even when the caller sends Expect: 100-continue, and drops a GET body', async () => {
    const id = (
      await app.http('/v1/videos', { token: key, body: { model: 'up-video', prompt: 'again', seconds: '4' } })
    ).body.id as string;
    // A body on the GET, with its own framing: it must not be piped to the provider (a smuggled second request).
    const smuggled = Buffer.from('GET /v1/videos/other/content HTTP/1.1\r\nHost: evil\r\n\r\n');
    const res = await send(
      `${app.url}/v1/videos/${id}/content`,
      'GET',
      callerHeaders({ expect: '100-continue', 'content-length': String(smuggled.length) }),
      smuggled,
    );
    expect(res.status).toBe(200);
    const received = fake.received.filter(
      (entry) => entry.path.startsWith('/videos/') && entry.path.endsWith('/content'),
    );
    expectClean(received.at(-1));
    expect(received.at(-1)!.headers.expect).toBeUndefined();
    expect(received.at(-1)!.body.length).toBe(0);
    expect(fake.received.some((entry) => entry.path.includes('other'))).toBe(false);
  });
});
