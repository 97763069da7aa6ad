import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { FakeOpenAI } from '../../../test/support/fake-openai';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { UsageRecorder } from '../usage';
import { CatalogService } from './catalog/catalog.service';

const UPSTREAM_KEY = 'sk-upstream-secret-value';

function catalogYaml(upstream: string, extra = ''): string {
  const model = (
    id: string,
    type: string,
    methods: string,
    upstreamModel = id,
    pricing = '{ inputPerMTok: 1, outputPerMTok: 2 }',
  ) =>
    `  - { id: ${id}, provider: fake, upstreamModel: ${upstreamModel}, type: ${type}, methods: [${methods}], capabilities: [streaming], pricing: ${pricing} }\n`;
  return (
    `providers:\n  - { id: fake, type: openai, baseUrl: "${upstream}", apiKey: "\${FAKE_KEY}" }\n` +
    `  - { id: down, type: openai, baseUrl: "http://127.0.0.1:9", apiKey: x }\n` +
    `  - { id: slow, type: openai, baseUrl: "${upstream}", apiKey: x, timeoutMs: 1000 }\n` +
    `  - { id: demo, type: demo }\n` +
    `models:\n` +
    model('up-chat', 'text', 'chat_completions, completions', 'gpt-upstream') +
    model('up-embed', 'embedding', 'embeddings') +
    model('up-image', 'image', 'image_generation, image_edit, image_variation', 'up-image', '{ perImage: 0.04 }') +
    model('up-tts', 'audio', 'audio_speech', 'up-tts', '{ perMChars: 15 }') +
    model('up-stt', 'audio', 'audio_transcription') +
    model('up-resp', 'text', 'responses') +
    model('up-video', 'video', 'video_generation', 'up-video', '{ perSecond: 0.1 }') +
    model('fail-500', 'text', 'chat_completions') +
    model('fail-401', 'text', 'chat_completions') +
    model('fail-400', 'text', 'chat_completions') +
    model('slow-stream', 'text', 'chat_completions') +
    model('paced', 'text', 'chat_completions') +
    `  - { id: unreachable, provider: down, type: text, methods: [chat_completions], free: true }\n` +
    `  - { id: hang, provider: slow, type: text, methods: [chat_completions], free: true }\n` +
    `  - { id: demo-chat, provider: demo, type: text, methods: [chat_completions, responses], pricing: { inputPerMTok: 0.5, outputPerMTok: 1.5 } }\n` +
    // Fallbacks: an unreachable primary served by the next model that answers; a caller's error never falls back.
    `  - { id: fb-unreachable, provider: down, type: text, methods: [chat_completions], fallbacks: [up-image, fail-500, up-chat], pricing: { inputPerMTok: 1, outputPerMTok: 2 } }\n` +
    `  - { id: fb-400, provider: fake, upstreamModel: fail-400, type: text, methods: [chat_completions], fallbacks: [up-chat], pricing: { inputPerMTok: 1, outputPerMTok: 2 } }\n` +
    `  - { id: fb-all-fail, provider: down, type: text, methods: [chat_completions], fallbacks: [fail-500, hang], free: true }\n` +
    `  - { id: up-pricey, provider: fake, upstreamModel: gpt-upstream, type: text, methods: [chat_completions], pricing: { inputPerMTok: 100, outputPerMTok: 200 } }\n` +
    `  - { id: fb-pricey, provider: down, type: text, methods: [chat_completions], fallbacks: [up-pricey], pricing: { inputPerMTok: 1, outputPerMTok: 2 } }\n` +
    extra
  );
}

describe('the gateway, through the official openai SDK', () => {
  const fake = new FakeOpenAI();
  let app: TestApp;
  let dir: string;
  let catalogPath: string;
  let key: string;
  let session: string;
  let client: OpenAI;

  beforeAll(async () => {
    await fake.start();
    dir = mkdtempSync(join(tmpdir(), 'sy-catalog-'));
    catalogPath = join(dir, 'models.yaml');
    process.env.FAKE_KEY = UPSTREAM_KEY;
    writeFileSync(catalogPath, catalogYaml(fake.url));
    app = await startTestApp({ modelsConfig: catalogPath });
    const registered = await app.http('/api/v1/auth/register', {
      body: { email: uniqueEmail('gw'), password: 'gateway password' },
    });
    session = registered.body.data.token;
    key = (await app.http('/api/v1/keys', { token: session, body: { name: 'integration key' } })).body.data.key;
    client = new OpenAI({ apiKey: key, baseURL: `${app.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await fake.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const usageRows = async () => {
    await app.app.get(UsageRecorder).flush();
    return app.database.dataSource.query<Array<Record<string, any>>>(
      `SELECT request_id, method, model, status, http_status, error_code, prompt_tokens, completion_tokens, cost_micros::int AS cost, stream
         FROM usage_records ORDER BY started_at`,
    );
  };

  describe('chat completions', () => {
    it('answers, renames the model upstream, swaps the credential, and says what it cost', async () => {
      const { data, response } = await client.chat.completions
        .create({ model: 'up-chat', messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      expect(data.choices[0].message.content).toBe('Hello from the fake');
      expect(data.model).toBe('up-chat');
      // 11 prompt tokens at 1/MTok + 4 completion tokens at 2/MTok = 19 micro-units.
      expect((data.usage as unknown as { cost: number }).cost).toBe(0.000019);
      expect(response.headers.get('x-switchyard-cost')).toBe('0.000019');
      expect(response.headers.get('set-cookie')).toBeNull();
      const upstream = fake.last('/chat/completions')!;
      expect(JSON.parse(upstream.body.toString()).model).toBe('gpt-upstream');
      expect(upstream.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
      expect(JSON.stringify(upstream.headers)).not.toContain(key);
    });

    it('streams chunk by chunk, with usage and cost in the final chunk when asked', async () => {
      const stream = await client.chat.completions.create({
        model: 'up-chat',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let usage: (OpenAI.CompletionUsage & { cost?: number }) | null | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta?.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      expect(text).toBe('Hello from the fake');
      expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 4, cost: 0.000019 });
    });

    it('asks the upstream for usage even when the caller did not, and does not pass the usage chunk on', async () => {
      const stream = await client.chat.completions.create({
        model: 'up-chat',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
      });
      const chunks = [];
      for await (const chunk of stream) chunks.push(chunk);
      expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
      expect(JSON.parse(fake.last('/chat/completions')!.body.toString()).stream_options).toEqual({
        include_usage: true,
      });
      const rows = await usageRows();
      expect(rows.at(-1)).toMatchObject({
        method: 'chat_completions',
        status: 'success',
        stream: true,
        prompt_tokens: 11,
        completion_tokens: 4,
        cost: 19,
      });
    });

    it('relays each chunk as it arrives, not when the stream ends', async () => {
      const stream = await client.chat.completions.create({
        model: 'paced',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
      });
      const arrivals: number[] = [];
      for await (const chunk of stream) if (chunk.choices[0]?.delta?.content) arrivals.push(Date.now());
      expect(arrivals).toHaveLength(2);
      expect(arrivals[0]).toBeLessThan(fake.pacedSecondChunkAt);
      // Not renamed: the caller's own bytes went up, with the usage request and the output bound the call reserved
      // for (the default 4,096: the caller gave none) put in front of them.
      const sent = fake.last('/chat/completions')!.body.toString();
      expect(sent.startsWith('{"stream_options":{"include_usage":true},"max_tokens":4096,')).toBe(true);
      expect(JSON.parse(sent)).toEqual({
        model: 'paced',
        messages: [{ role: 'user', content: 'Hi' }],
        stream: true,
        stream_options: { include_usage: true },
        max_tokens: 4096,
      });
    });
  });

  describe('the other endpoints', () => {
    it('legacy completions', async () => {
      const completion = await client.completions.create({ model: 'up-chat', prompt: 'Say hi' });
      expect(completion.choices[0].text).toBe('Hello from the fake');
    });

    it('embeddings, through the SDK’s default base64 encoding', async () => {
      const result = await client.embeddings.create({ model: 'up-embed', input: ['a', 'b'] });
      expect(result.data).toHaveLength(2);
      expect(result.data[0].embedding).toEqual([0.25, -0.5, 0.75]);
      expect(result.usage.prompt_tokens).toBe(7);
    });

    it('image generation, priced per image', async () => {
      const { data, response } = await client.images
        .generate({ model: 'up-image', prompt: 'a lighthouse', n: 3 })
        .withResponse();
      expect(data.data).toHaveLength(3);
      expect(response.headers.get('x-switchyard-cost')).toBe('0.12');
    });

    it('image edits with repeated image fields and a mask pass through as multipart', async () => {
      const png = (name: string) => toFile(Buffer.from(`\x89PNG ${name}`), `${name}.png`, { type: 'image/png' });
      const result = await client.images.edit({
        model: 'up-image',
        image: [await png('one'), await png('two')],
        mask: await png('mask'),
        prompt: 'add a boat',
        n: 1,
      });
      expect(result.data).toHaveLength(2);
      const sent = fake.last('/images/edits')!;
      const text = sent.body.toString('latin1');
      expect(sent.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
      expect(text.match(/name="image(\[\])?"; filename=/g)).toHaveLength(2);
      expect(text).toContain('name="mask"; filename="mask.png"');
      expect(text).toContain('PNG two');
      expect(text).toMatch(/name="model"\r\n\r\nup-image/);
    });

    it('speech comes back as binary, streamed, priced by characters', async () => {
      const { data, response } = await client.audio.speech
        .create({ model: 'up-tts', input: 'Hello world', voice: 'alloy' })
        .withResponse();
      const bytes = Buffer.from(await data.arrayBuffer());
      expect(bytes.length).toBe(2000);
      expect(bytes[0]).toBe(1);
      expect(bytes[1999]).toBe(2);
      expect(response.headers.get('content-type')).toBe('audio/mpeg');
      expect(response.headers.get('x-switchyard-cost')).toBe(String((11 * 15) / 1e6));
    });

    it('transcriptions', async () => {
      const result = await client.audio.transcriptions.create({
        model: 'up-stt',
        file: await toFile(Buffer.from('RIFF....WAVE'), 'a.wav'),
      });
      expect(result.text).toBe('hello from the fake');
    });

    it('responses, plain and streamed, with the cost in the usage', async () => {
      const response = await client.responses.create({ model: 'up-resp', input: 'Hi' });
      expect(response.output_text).toBe('Hi there');
      expect((response.usage as unknown as { cost: number }).cost).toBe((9 * 1 + 2 * 2) / 1e6);
      const stream = await client.responses.create({ model: 'up-resp', input: 'Hi', stream: true });
      const types: string[] = [];
      let completedCost: number | undefined;
      for await (const event of stream) {
        types.push(event.type);
        if (event.type === 'response.completed')
          completedCost = (event.response.usage as unknown as { cost: number }).cost;
      }
      expect(types).toEqual([
        'response.created',
        'response.output_text.delta',
        'response.output_text.delta',
        'response.completed',
      ]);
      expect(completedCost).toBe(0.000013);
    });

    it('videos: create, retrieve, download the content (passed through untouched) and remix, for their owner only', async () => {
      const video = await client.videos.create({ model: 'up-video', prompt: 'a wave' });
      expect(video.id).toBe('video_fake1');
      expect((await client.videos.retrieve(video.id)).status).toBe('completed');
      const content = await client.videos.downloadContent(video.id);
      expect(Buffer.from(await content.arrayBuffer()).toString()).toBe('fake-mp4-bytes');
      expect(content.headers.get('x-upstream-internal')).toBeNull();
      expect(fake.last(`/videos/${video.id}/content`)!.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
      expect((await client.videos.remix(video.id, { prompt: 'calmer' })).remixed_from_video_id).toBe(video.id);

      const other = await app.http('/api/v1/auth/register', {
        body: { email: uniqueEmail('other'), password: 'another password' },
      });
      const otherKey = (await app.http('/api/v1/keys', { token: other.body.data.token, body: { name: 'k' } })).body.data
        .key;
      const stranger = await app.http(`/v1/videos/${video.id}`, { token: otherKey });
      expect(stranger.status).toBe(404);
      expect(stranger.body.error.code).toBe('video_not_found');
    });
  });

  describe('models', () => {
    it('lists the catalog with filters, as ids with detailed=false, and one model by id', async () => {
      const all = await client.models.list();
      expect(all.data.map((m) => m.id)).toContain('up-chat');
      const images = await app.http('/v1/models?type=image&method=image_edit', { token: key });
      expect(images.body.data.map((m: { id: string }) => m.id)).toEqual(['up-image']);
      expect(images.body.data[0]).toMatchObject({
        object: 'model',
        owned_by: 'fake',
        type: 'image',
        pricing: { perImage: 0.04 },
      });
      const ids = await app.http('/v1/models?detailed=false&capability=streaming&type=audio', { token: key });
      expect(ids.body).toEqual(['up-tts', 'up-stt']);
      expect((await client.models.retrieve('up-embed')).id).toBe('up-embed');
      const bad = await app.http('/v1/models?type=spaceship', { token: key });
      expect(bad.status).toBe(400);
    });

    it('picks up a catalog change without a restart; a removed model answers 404 model_not_found', async () => {
      writeFileSync(catalogPath, catalogYaml(fake.url).replace(/^.*id: up-embed.*$/m, ''));
      expect(app.app.get(CatalogService).reload()).toBe(true);
      const gone = await app.http('/v1/embeddings', { token: key, body: { model: 'up-embed', input: 'x' } });
      expect(gone.status).toBe(404);
      expect(gone.body.error).toMatchObject({ code: 'model_not_found', type: 'not_found_error' });
      // A broken edit keeps the last good catalog.
      writeFileSync(catalogPath, 'providers: [');
      expect(app.app.get(CatalogService).reload()).toBe(false);
      expect((await app.http('/v1/models/up-chat', { token: key })).status).toBe(200);
      writeFileSync(catalogPath, catalogYaml(fake.url));
      expect(app.app.get(CatalogService).reload()).toBe(true);
    });
  });

  describe('refusals', () => {
    const chat = (model: string, token = key, path = '/v1/chat/completions') =>
      app.http(path, { token, body: { model, messages: [{ role: 'user', content: 'Hi' }] } });

    it('refuses paths off the allowlist with 403 Endpoint not allowed, and forwards nothing', async () => {
      const before = fake.received.length;
      for (const [method, path] of [
        ['GET', '/v1/chat/completions'],
        ['GET', '/v1/files'],
        ['DELETE', '/v1/models/up-chat'],
        ['POST', '/v1/chat%2Fcompletions'],
        ['POST', '/v1/chat/../files'],
        ['POST', '/V1/Chat/Completions'],
        ['POST', '/v1//chat/completions'],
      ]) {
        const res = await app.http(path, {
          method,
          token: key,
          ...(method === 'POST' ? { body: { model: 'up-chat' } } : {}),
        });
        expect([path, res.status, res.body.error?.message]).toEqual([path, 403, 'Endpoint not allowed']);
      }
      expect(fake.received.length).toBe(before);
    });

    it('answers CORS preflights and sets the open CORS header', async () => {
      const res = await app.http('/v1/chat/completions', {
        method: 'OPTIONS',
        headers: { origin: 'https://app.example', 'access-control-request-headers': 'authorization,content-type' },
      });
      expect(res.status).toBe(204);
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      // A browser's call carries its Origin and gets the header; a server-side SDK's (no Origin) gets no CORS headers.
      const browser = await app.http('/v1/models', { token: key, headers: { origin: 'https://app.example' } });
      expect(browser.headers.get('access-control-allow-origin')).toBe('*');
      expect(browser.headers.get('access-control-expose-headers')).toContain('x-switchyard-cost');
      const server = await app.http('/v1/models', { token: key });
      expect(server.status).toBe(200);
      expect(server.headers.get('access-control-allow-origin')).toBeNull();
    });

    it('checks credentials: missing 401, a bad or revoked key 403 (at once), API keys not on /oauth2/v1', async () => {
      expect((await app.http('/v1/models')).status).toBe(401);
      expect((await chat('up-chat', 'sy-' + 'x'.repeat(48))).status).toBe(403);
      expect((await chat('up-chat', key, '/apikey/v1/chat/completions')).status).toBe(200);
      const oauthAlias = await chat('up-chat', key, '/oauth2/v1/chat/completions');
      expect(oauthAlias.status).toBe(401);
      expect(oauthAlias.headers.get('www-authenticate')).toBe('Bearer');

      const doomed = (await app.http('/api/v1/keys', { token: session, body: { name: 'doomed' } })).body.data;
      expect((await chat('up-chat', doomed.key)).status).toBe(200);
      const revoked = await app.http(`/api/v1/keys/${doomed.id}`, { method: 'DELETE', token: session });
      expect(revoked.body.data.status).toBe('Revoked');
      const after = await chat('up-chat', doomed.key);
      expect(after.status).toBe(403);
      expect(after.body.error.code).toBe('invalid_api_key');
    });

    it('answers unknown models 404 and unlisted methods 400, in OpenAI’s shape', async () => {
      const missing = await chat('no-such-model');
      expect(missing.status).toBe(404);
      expect(missing.body.error).toMatchObject({ code: 'model_not_found', param: 'model' });
      const wrong = await app.http('/v1/embeddings', { token: key, body: { model: 'up-chat', input: 'x' } });
      expect(wrong.status).toBe(400);
      expect(wrong.body.error.code).toBe('unsupported_method');
      const noModel = await app.http('/v1/chat/completions', { token: key, body: { messages: [] } });
      expect(noModel.status).toBe(400);
      const badJson = await app.http('/v1/chat/completions', { token: key, rawBody: '{"model": ' });
      expect(badJson.status).toBe(400);
      expect(badJson.body.error.code).toBe('invalid_json');
    });

    it('answers a body over 20 MB with 413', async () => {
      const res = await app.http('/v1/chat/completions', {
        token: key,
        body: { model: 'up-chat', messages: [{ role: 'user', content: 'x'.repeat(21 * 1024 * 1024) }] },
      });
      expect(res.status).toBe(413);
      expect(res.body.error.code).toBe('payload_too_large');
    });

    it('answers a multipart upload declared over 100 MB with 413 before reading it', async () => {
      const { request } = await import('node:http');
      const url = new URL(`${app.url}/v1/audio/transcriptions`);
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            path: url.pathname,
            method: 'POST',
            headers: {
              authorization: `Bearer ${key}`,
              'content-type': 'multipart/form-data; boundary=x',
              'content-length': String(200 * 1024 * 1024),
            },
          },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
            req.destroy();
          },
        );
        req.on('error', reject);
        req.write('--x\r\n');
      });
      expect(status).toBe(413);
    });

    it('turns upstream failures into 502/504 without the upstream’s URL or key, and charges nothing', async () => {
      const failed = await chat('fail-500');
      expect(failed.status).toBe(502);
      expect(JSON.stringify(failed.body)).not.toContain('internal.upstream');
      const refused = await chat('fail-401');
      expect(refused.status).toBe(502);
      expect(JSON.stringify(refused.body)).not.toMatch(/sk-|invalid_api_key/);
      const invalid = await chat('fail-400');
      expect(invalid.status).toBe(400);
      expect(invalid.body.error.code).toBe('invalid_value');
      expect(invalid.body.error.message).not.toContain('x.example');
      const down = await chat('unreachable');
      expect(down.status).toBe(502);
      expect(down.body.error.code).toBe('upstream_error');
      expect(JSON.stringify(down.body)).not.toContain('127.0.0.1');
      const timeout = await chat('hang');
      expect(timeout.status).toBe(504);
      expect(timeout.body.error.code).toBe('upstream_timeout');
      const rows = (await usageRows()).filter((row) =>
        ['fail-500', 'fail-401', 'unreachable', 'hang'].includes(row.model),
      );
      expect(rows.map((row) => [row.model, row.status, row.cost])).toEqual([
        ['fail-500', 'upstream_error', 0],
        ['fail-401', 'upstream_error', 0],
        ['unreachable', 'upstream_error', 0],
        ['hang', 'timeout', 0],
      ]);
    });

    it('falls back to the next model when a provider fails before answering, and bills the model that served', async () => {
      const served = await client.chat.completions.create({
        model: 'fb-unreachable',
        messages: [{ role: 'user', content: 'Hi' }],
      });
      expect(served.model).toBe('up-chat');
      expect(served.choices[0].message.content).toBeTruthy();
      const { data: stream, response } = await client.chat.completions
        .create({ model: 'fb-unreachable', stream: true, messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      expect(response.headers.get('x-switchyard-model')).toBe('up-chat');
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
      expect(text).toBeTruthy();
      // The caller's own error (400) is not the provider failing: no fallback.
      expect((await chat('fb-400')).status).toBe(400);
      // Every fallback failing: the last failure is the answer.
      const allFailed = await chat('fb-all-fail');
      expect(allFailed.status).toBe(504);
      expect(allFailed.body.error.code).toBe('upstream_timeout');
      // A fallback that could cost more than the call's reservation holds is skipped.
      expect((await chat('fb-pricey')).status).toBe(502);
      const rows = (await usageRows()).filter((row) => ['up-chat', 'fb-400', 'hang', 'fb-pricey'].includes(row.model));
      expect(rows.slice(-5).map((row) => [row.model, row.status, row.cost > 0])).toEqual([
        ['up-chat', 'success', true],
        ['up-chat', 'success', true],
        ['fb-400', 'rejected', false],
        ['hang', 'timeout', false],
        ['fb-pricey', 'upstream_error', false],
      ]);
    });

    it('aborts the upstream when the client leaves mid-stream and bills what was delivered', async () => {
      const controller = new AbortController();
      const response = await fetch(`${app.url}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'application/json',
          'x-request-id': 'gone-mid-stream',
        },
        body: JSON.stringify({
          model: 'slow-stream',
          stream: true,
          messages: [{ role: 'user', content: 'count slowly please' }],
        }),
        signal: controller.signal,
      });
      const reader = response.body!.getReader();
      let received = '';
      while ((received.match(/word/g) ?? []).length < 3)
        received += new TextDecoder().decode((await reader.read()).value);
      controller.abort();
      const deadline = Date.now() + 5000;
      while (!fake.last('/chat/completions')?.closedEarly && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      expect(fake.last('/chat/completions')!.closedEarly).toBe(true);
      await new Promise((r) => setTimeout(r, 100));
      const row = (await usageRows()).find((r) => r.request_id === 'gone-mid-stream');
      expect(row).toMatchObject({ status: 'client_closed', http_status: 499 });
      expect(row!.completion_tokens).toBeGreaterThanOrEqual(3);
      expect(row!.prompt_tokens).toBeGreaterThan(0);
      expect(row!.cost).toBeGreaterThan(0);
    });
  });

  it('records one usage row per model call, each request id once', async () => {
    const rows = await usageRows();
    expect(rows.length).toBeGreaterThan(15);
    expect(new Set(rows.map((row) => row.request_id)).size).toBe(rows.length);
    expect(rows.filter((row) => row.status === 'success').every((row) => row.http_status === 200)).toBe(true);
  });
});
