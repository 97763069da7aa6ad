import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { join } from 'node:path';
import OpenAI, { APIError } from 'openai';
import { fakeProviders } from '../../../test/support/local-server';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';

const fixture = (provider: string, name: string) =>
  readFileSync(join(__dirname, 'providers', provider, 'fixtures', name), 'utf8');

/** A fake Anthropic and Gemini in one server, answering with the providers' documented wire-format fixtures. */
function fakeUpstreams() {
  const seen: { path: string; headers: IncomingMessage['headers']; body: any }[] = [];
  const answer = async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    const body = JSON.parse(raw || '{}');
    seen.push({ path: req.url!, headers: req.headers, body });
    const send = (status: number, type: string, text: string) => {
      res.writeHead(status, { 'content-type': type });
      res.end(text);
    };
    if (req.url === '/anthropic/v1/messages') {
      if (body.model === 'claude-broken')
        return send(400, 'application/json', fixture('anthropic', 'error-invalid-request.json'));
      const tools = Array.isArray(body.tools) && body.tools.length > 0;
      if (body.stream)
        return send(200, 'text/event-stream', fixture('anthropic', tools ? 'stream-tool-use.sse' : 'stream-text.sse'));
      return send(
        200,
        'application/json',
        fixture('anthropic', tools ? 'tool-use-response.json' : 'text-response.json'),
      );
    }
    if (req.url!.startsWith('/gemini/v1beta/models/gemini-test:streamGenerateContent'))
      return send(200, 'text/event-stream', fixture('gemini', 'stream-text.sse'));
    if (req.url!.startsWith('/gemini/v1beta/models/gemini-test:generateContent'))
      return send(200, 'application/json', fixture('gemini', 'text-response.json'));
    send(404, 'application/json', '{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}');
  };
  return { answer, seen };
}

describe('Anthropic and Gemini providers behind the OpenAI interface', () => {
  const fake = fakeUpstreams();
  let app: TestApp;
  let providers: Awaited<ReturnType<typeof fakeProviders>> | undefined;
  let client: OpenAI;

  beforeAll(async () => {
    providers = await fakeProviders(fake.answer, (base) => ({
      providers: [
        { id: 'anthropic', type: 'anthropic', baseUrl: `${base}/anthropic/v1`, apiKey: 'anthropic-upstream-key' },
        { id: 'google', type: 'gemini', baseUrl: `${base}/gemini/v1beta`, apiKey: 'gemini-upstream-key' },
      ],
      models: [
        {
          id: 'claude',
          provider: 'anthropic',
          upstreamModel: 'claude-sonnet-4-20250514',
          type: 'text',
          methods: ['chat_completions'],
          pricing: { inputPerMTok: 3, outputPerMTok: 15 },
        },
        { id: 'claude-broken', provider: 'anthropic', type: 'text', methods: ['chat_completions'], free: true },
        {
          id: 'gemini',
          provider: 'google',
          upstreamModel: 'gemini-test',
          type: 'text',
          methods: ['chat_completions'],
          pricing: { inputPerMTok: 1, outputPerMTok: 1 },
        },
      ],
    }));
    app = await startTestApp({ modelsConfig: providers.catalogPath });
    const session = (
      await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('tr'), password: 'translate me' } })
    ).body.data.token;
    const key = (await app.http('/api/v1/keys', { token: session, body: { name: 'k' } })).body.data.key;
    client = new OpenAI({ apiKey: key, baseURL: `${app.url}/v1`, maxRetries: 0 });
  });
  afterAll(async () => {
    await app?.close();
    await providers?.close();
  });

  it('translates a chat completion to the Messages API and back, with the provider’s key', async () => {
    const completion = await client.chat.completions.create({
      model: 'claude',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hello' },
      ],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('claude');
    expect(typeof completion.choices[0].message.content).toBe('string');
    expect(completion.usage!.prompt_tokens).toBeGreaterThan(0);
    expect((completion.usage as unknown as { cost: number }).cost).toBeGreaterThan(0);
    const sent = fake.seen.at(-1)!;
    expect(sent.headers['x-api-key']).toBe('anthropic-upstream-key');
    expect(sent.headers.authorization).toBeUndefined();
    expect(sent.body).toMatchObject({
      model: 'claude-sonnet-4-20250514',
      system: 'Be brief.',
      max_tokens: expect.any(Number),
    });
  });

  it('streams Anthropic events as OpenAI chunks, ending with usage and [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'claude',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text.length).toBeGreaterThan(0);
    expect(usage!.completion_tokens).toBeGreaterThan(0);
  });

  it('round-trips tool calls', async () => {
    const completion = await client.chat.completions.create({
      model: 'claude',
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
      tools: [
        {
          type: 'function',
          function: {
            name: 'get_weather',
            parameters: { type: 'object', properties: { location: { type: 'string' } } },
          },
        },
      ],
    });
    const call = completion.choices[0].message.tool_calls?.[0];
    expect(completion.choices[0].finish_reason).toBe('tool_calls');
    expect(call?.type).toBe('function');
    expect(fake.seen.at(-1)!.body.tools[0]).toMatchObject({ name: 'get_weather', input_schema: { type: 'object' } });
  });

  it('passes a provider’s invalid-request error on in OpenAI’s shape', async () => {
    const res = await client.chat.completions
      .create({ model: 'claude-broken', messages: [{ role: 'user', content: 'x' }] })
      .catch((e: APIError) => e);
    expect(res).toBeInstanceOf(APIError);
    expect((res as APIError).status).toBe(400);
  });

  it('translates to Gemini generateContent, plain and streamed', async () => {
    const completion = await client.chat.completions.create({
      model: 'gemini',
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(completion.choices[0].message.content!.length).toBeGreaterThan(0);
    expect(fake.seen.at(-1)!.headers['x-goog-api-key']).toBe('gemini-upstream-key');
    const stream = await client.chat.completions.create({
      model: 'gemini',
      messages: [{ role: 'user', content: 'Hello' }],
      stream: true,
    });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text.length).toBeGreaterThan(0);
  });

  it('fetches an image URL for Gemini only through the guarded fetcher, which refuses loopback', async () => {
    const before = fake.seen.length;
    const res = await client.chat.completions
      .create({
        model: 'gemini',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'What is this?' },
              { type: 'image_url', image_url: { url: 'http://127.0.0.1:1/secret.png' } },
            ],
          },
        ],
      })
      .catch((e: APIError) => e);
    expect((res as APIError).status).toBe(400);
    expect(fake.seen.length).toBe(before);
  });

  it('answers every refused image URL with one error, so a caller learns nothing of which hosts and ports answer', async () => {
    const port = new URL(providers!.origin).port;
    const before = fake.seen.length;
    const targets = [
      `http://127.0.0.1:${port}/gemini/v1beta/models`, // open port, loopback
      'http://127.0.0.1:1/x.png', // closed port
      `http://[::ffff:127.0.0.1]:${port}/x.png`,
      `http://[::ffff:7f00:1]/x.png`,
      'http://2130706433/x.png',
      'http://169.254.169.254/latest/meta-data/',
      'http://[fec0::1]/x.png',
      'http://localhost/x.png',
      'http://10.0.0.1:8080/x.png',
      'http://user:pass@example.com/x.png',
    ];
    const answers = await Promise.all(
      targets.map((url) =>
        fetch(`${app.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${client.apiKey}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            model: 'gemini',
            messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url } }] }],
          }),
        }).then(
          async (response) =>
            `${response.status} ${JSON.stringify(((await response.json()) as { error: unknown }).error)}`,
        ),
      ),
    );
    expect(new Set(answers)).toEqual(
      new Set([
        `400 ${JSON.stringify({ message: 'An image URL in messages could not be fetched', type: 'invalid_request_error', code: 'invalid_request', param: 'messages' })}`,
      ]),
    );
    expect(fake.seen.length).toBe(before);
  });
});
