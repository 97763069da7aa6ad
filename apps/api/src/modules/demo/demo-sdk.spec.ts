import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI, { toFile } from 'openai';
import { DemoProvider, type DemoCall, type DemoMethod } from './demo-provider';
import { pngSize } from './png';
import { parseWav } from './wav';

/**
 * Wire compatibility: the DemoProvider behind a tiny node:http server, driven by the official `openai` SDK.
 * The server does what the gateway engine does: route by path, parse JSON or multipart into a DemoCall, pipe the
 * Response back (streaming included) and abort the call when the client goes away.
 */

const ROUTES: Array<[string, RegExp, DemoMethod]> = [
  ['POST', /^\/v1\/chat\/completions$/, 'chat_completions'],
  ['POST', /^\/v1\/completions$/, 'completions'],
  ['POST', /^\/v1\/responses$/, 'responses'],
  ['POST', /^\/v1\/embeddings$/, 'embeddings'],
  ['POST', /^\/v1\/images\/generations$/, 'image_generation'],
  ['POST', /^\/v1\/images\/edits$/, 'image_edit'],
  ['POST', /^\/v1\/images\/variations$/, 'image_variation'],
  ['POST', /^\/v1\/audio\/speech$/, 'audio_speech'],
  ['POST', /^\/v1\/audio\/transcriptions$/, 'audio_transcription'],
  ['POST', /^\/v1\/videos$/, 'video_generation'],
  ['GET', /^\/v1\/videos\/([^/]+)$/, 'video_retrieve'],
  ['GET', /^\/v1\/videos\/([^/]+)\/content$/, 'video_content'],
  ['POST', /^\/v1\/videos\/([^/]+)\/remix$/, 'video_remix'],
];

interface TestServer {
  baseURL: string;
  aborted: string[];
  close(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

async function startServer(provider: DemoProvider): Promise<TestServer> {
  const aborted: string[] = [];
  const handler = async (req: IncomingMessage, res: ServerResponse) => {
    const path = new URL(req.url ?? '/', 'http://localhost').pathname;
    const route = ROUTES.map(([verb, pattern, method]) => ({ verb, match: pattern.exec(path), method })).find(
      (r) => r.verb === req.method && r.match,
    );
    if (!route) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"no route"}}');
      return;
    }
    const body = await readBody(req);
    const contentType = req.headers['content-type'] ?? '';
    let json: unknown;
    let form: FormData | undefined;
    if (contentType.startsWith('multipart/form-data')) {
      form = await new Request('http://localhost/', {
        method: 'POST',
        headers: { 'content-type': contentType },
        body,
      }).formData();
    } else if (body.length > 0) {
      json = JSON.parse(body.toString('utf8'));
    }
    const model = (json as { model?: unknown } | undefined)?.model ?? form?.get('model') ?? 'demo-video';
    const controller = new AbortController();
    res.on('close', () => {
      if (!res.writableFinished) {
        aborted.push(route.method);
        controller.abort();
      }
    });
    const call: DemoCall = {
      method: route.method,
      publicModel: String(model),
      json,
      form,
      videoId: route.match![1],
      userKey: req.headers.authorization,
    };
    const response = await provider.handle(call, controller.signal);
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) {
      const reader = response.body.getReader();
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          res.write(value);
        }
      } catch {
        // aborted: the client is gone
      }
    }
    res.end();
  };
  const server: Server = createServer((req, res) => {
    handler(req, res).catch((error: unknown) => {
      res.writeHead(500).end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    aborted,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // keep-alive sockets of the SDK would otherwise hold close() for seconds
      }),
  };
}

describe('demo provider through the official openai SDK', () => {
  let now = Date.UTC(2025, 0, 1);
  const provider = new DemoProvider({ chunkDelayMs: 5, videoSeconds: 3, now: () => now });
  let server: TestServer;
  let client: OpenAI;

  beforeAll(async () => {
    server = await startServer(provider);
    client = new OpenAI({ apiKey: 'sk-demo-alice', baseURL: server.baseURL, maxRetries: 0, timeout: 20_000 });
  });
  afterAll(async () => {
    await server.close();
  });

  it('chat.completions.create', async () => {
    const completion = await client.chat.completions.create({
      model: 'demo-chat',
      messages: [{ role: 'user', content: 'Hello SDK' }],
    });
    expect(completion.object).toBe('chat.completion');
    expect(completion.model).toBe('demo-chat');
    expect(completion.choices[0].message.content).toContain('You said: "Hello SDK"');
    expect(completion.usage!.total_tokens).toBe(completion.usage!.prompt_tokens + completion.usage!.completion_tokens);
  });

  it('chat.completions.create stream with include_usage', async () => {
    const stream = await client.chat.completions.create({
      model: 'demo-chat',
      messages: [{ role: 'user', content: 'Hello SDK' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks: OpenAI.Chat.Completions.ChatCompletionChunk[] = [];
    for await (const chunk of stream) chunks.push(chunk);
    expect(chunks.length).toBeGreaterThan(3);
    const last = chunks[chunks.length - 1];
    expect(last.choices).toEqual([]);
    expect(last.usage!.completion_tokens).toBeGreaterThan(5);
    const text = chunks.map((c) => c.choices[0]?.delta.content ?? '').join('');
    expect(text).toContain('You said: "Hello SDK"');
  });

  it('chat.completions.stream helper accumulates a tool call, and the tool result gets an answer', async () => {
    const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const messages: OpenAI.Chat.Completions.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'What is the weather in Oslo?' },
    ];
    const final = await client.chat.completions.stream({ model: 'demo-chat', messages, tools }).finalChatCompletion();
    const call = final.choices[0].message.tool_calls![0];
    expect(final.choices[0].finish_reason).toBe('tool_calls');
    expect(call.type === 'function' && call.function.name).toBe('get_weather');
    expect(call.type === 'function' && JSON.parse(call.function.arguments)).toEqual({ city: 'demo-city' });
    const answer = await client.chat.completions.create({
      model: 'demo-chat',
      tools,
      messages: [...messages, final.choices[0].message, { role: 'tool', tool_call_id: call.id, content: 'rain, 8°C' }],
    });
    expect(answer.choices[0].message.content).toContain('The get_weather tool returned: "rain, 8°C"');
  });

  it('stops the provider stream when the SDK client aborts', async () => {
    const slow = new DemoProvider({ chunkDelayMs: 40 });
    const slowServer = await startServer(slow);
    try {
      const slowClient = new OpenAI({ apiKey: 'x', baseURL: slowServer.baseURL, maxRetries: 0 });
      const stream = await slowClient.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'a long question '.repeat(20) }],
        stream: true,
      });
      let seen = 0;
      for await (const _chunk of stream) {
        if (++seen === 2) break; // breaking out aborts the HTTP request
      }
      const deadline = Date.now() + 2_000;
      while (slowServer.aborted.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
      expect(slowServer.aborted).toEqual(['chat_completions']);
    } finally {
      await slowServer.close();
    }
  });

  it('maps validation errors to the SDK error classes', async () => {
    const error = await client.chat.completions.create({ model: 'demo-chat', messages: [] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).status).toBe(400);
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('messages');
    expect((error as InstanceType<typeof OpenAI.BadRequestError>).code).toBe('empty_array');
  });

  it('completions.create', async () => {
    const completion = await client.completions.create({
      model: 'demo-instruct',
      prompt: 'Say this is a test',
      max_tokens: 50,
    });
    expect(completion.object).toBe('text_completion');
    expect(completion.choices[0].text).toContain('Say this is a test');
    expect(completion.choices[0].finish_reason).toBe('stop');
  });

  it('responses.create, non-stream and stream', async () => {
    const response = await client.responses.create({
      model: 'demo-responses',
      input: 'Hello Responses',
      instructions: 'Be nice.',
    });
    expect(response.status).toBe('completed');
    expect(response.output_text).toContain('You said: "Hello Responses"');
    expect(response.usage!.input_tokens).toBeGreaterThan(0);

    const stream = await client.responses.create({
      model: 'demo-responses',
      input: 'Hello Responses',
      instructions: 'Be nice.',
      stream: true,
    });
    const types: string[] = [];
    let text = '';
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === 'response.output_text.delta') text += event.delta;
    }
    expect(types[0]).toBe('response.created');
    expect(types[types.length - 1]).toBe('response.completed');
    expect(text).toBe(response.output_text);

    const final = await client.responses
      .stream({ model: 'demo-responses', input: 'Hello Responses', instructions: 'Be nice.' })
      .finalResponse();
    expect(final.output_text).toBe(response.output_text);
  });

  it('embeddings.create (the SDK asks for base64 by default and decodes it)', async () => {
    const input = ['first text', 'second text'];
    const decoded = await client.embeddings.create({ model: 'demo-embed', input });
    const floats = await client.embeddings.create({ model: 'demo-embed', input, encoding_format: 'float' });
    expect(decoded.data).toHaveLength(2);
    expect(Array.from(decoded.data[0].embedding)).toEqual(floats.data[0].embedding);
    expect(Array.from(decoded.data[1].embedding)).toEqual(floats.data[1].embedding);
    expect(decoded.usage.prompt_tokens).toBe(4);
  });

  it('images.generate and images.edit', async () => {
    const generated = await client.images.generate({
      model: 'demo-image',
      prompt: 'a red kite',
      size: '256x256',
      n: 2,
    });
    expect(generated.data).toHaveLength(2);
    const png = Buffer.from(generated.data![0].b64_json!, 'base64');
    expect(pngSize(png)).toEqual({ width: 256, height: 256 });
    const edited = await client.images.edit({
      model: 'demo-image',
      image: await toFile(png, 'kite.png', { type: 'image/png' }),
      prompt: 'make it blue',
      size: '512x512',
    });
    expect(pngSize(Buffer.from(edited.data![0].b64_json!, 'base64'))).toEqual({ width: 512, height: 512 });
  });

  it('audio.speech.create and audio.transcriptions.create round trip', async () => {
    const speech = await client.audio.speech.create({
      model: 'demo-tts',
      input: 'Hello from the SDK test.',
      voice: 'alloy',
      response_format: 'wav',
    });
    expect(speech.headers.get('content-type')).toBe('audio/wav');
    const wav = Buffer.from(await speech.arrayBuffer());
    const info = parseWav(wav)!;
    expect(info).toMatchObject({ format: 1, channels: 1, sampleRate: 24_000, bitsPerSample: 16 });

    const transcription = await client.audio.transcriptions.create({
      model: 'demo-stt',
      file: await toFile(wav, 'speech.wav'),
    });
    expect(transcription.text).toContain('Demo transcription of speech.wav');
    const verbose = await client.audio.transcriptions.create({
      model: 'demo-stt',
      file: await toFile(wav, 'speech.wav'),
      response_format: 'verbose_json',
    });
    expect(verbose.duration).toBeCloseTo(info.durationSeconds, 2);
  });

  it('videos.create, retrieve, downloadContent and remix', async () => {
    const created = await client.videos.create({
      model: 'demo-video',
      prompt: 'a sailing boat',
      seconds: '4',
      size: '1280x720',
    });
    expect(created).toMatchObject({
      object: 'video',
      status: 'queued',
      seconds: '4',
      size: '1280x720',
      model: 'demo-video',
    });
    now += 1_000;
    expect((await client.videos.retrieve(created.id)).status).toBe('in_progress');
    now += 2_000;
    const done = await client.videos.retrieve(created.id);
    expect(done).toMatchObject({ status: 'completed', progress: 100 });
    const content = await client.videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    const mp4 = Buffer.from(await content.arrayBuffer());
    expect(mp4.toString('latin1', 4, 8)).toBe('ftyp');

    const remix = await client.videos.remix(created.id, { prompt: 'a sailing boat at night' });
    expect(remix.remixed_from_video_id).toBe(created.id);

    const stranger = new OpenAI({ apiKey: 'sk-demo-bob', baseURL: server.baseURL, maxRetries: 0 });
    await expect(stranger.videos.retrieve(created.id)).rejects.toBeInstanceOf(OpenAI.NotFoundError);
  });
});
