import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import OpenAI, { toFile } from 'openai';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';

/**
 * A fresh install: no MODELS_CONFIG, so the built-in demo catalog answers every method offline. Driven by the
 * official openai SDK and the Vercel AI SDK, as a new user would.
 */
describe('the demo catalog on a fresh install', () => {
  let app: TestApp;
  let key: string;
  let client: OpenAI;

  beforeAll(async () => {
    app = await startTestApp();
    const session = (
      await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('demo'), password: 'demo password' } })
    ).body.data.token;
    key = (await app.http('/api/v1/keys', { token: session, body: { name: 'demo' } })).body.data.key;
    client = new OpenAI({ apiKey: key, baseURL: `${app.url}/v1`, maxRetries: 0 });
  });
  afterAll(() => app?.close());

  it('lists the demo models, owned by switchyard-demo', async () => {
    const models = await client.models.list();
    expect(models.data.length).toBeGreaterThanOrEqual(6);
    expect(models.data.every((m) => m.owned_by === 'switchyard-demo')).toBe(true);
  });

  it('chats, plain and streamed, with real token counts and a cost', async () => {
    const completion = await client.chat.completions.create({
      model: 'demo-chat',
      messages: [{ role: 'user', content: 'Hello demo' }],
    });
    expect(completion.choices[0].message.content).toContain('Hello demo');
    expect(completion.usage!.completion_tokens).toBeGreaterThan(0);
    expect((completion.usage as unknown as { cost: number }).cost).toBeGreaterThan(0);
    const stream = await client.chat.completions.create({
      model: 'demo-chat',
      messages: [{ role: 'user', content: 'Hello demo' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let chunks = 0;
    for await (const chunk of stream) {
      chunks += 1;
      text += chunk.choices[0]?.delta?.content ?? '';
    }
    expect(text).toBe(completion.choices[0].message.content);
    expect(chunks).toBeGreaterThan(3);
  });

  it('answers completions, responses, embeddings, images, speech and transcription', async () => {
    expect(
      (await client.completions.create({ model: 'demo-chat', prompt: 'Once upon' })).choices[0].text.length,
    ).toBeGreaterThan(0);
    expect((await client.responses.create({ model: 'demo-chat', input: 'Hi' })).output_text.length).toBeGreaterThan(0);
    const embedding = await client.embeddings.create({ model: 'demo-embedding', input: 'vector' });
    expect(embedding.data[0].embedding.length).toBeGreaterThan(0);
    const image = await client.images.generate({ model: 'demo-image', prompt: 'a red square', size: '256x256' });
    expect(Buffer.from(image.data![0].b64_json!, 'base64').subarray(1, 4).toString()).toBe('PNG');
    const speech = Buffer.from(
      await (
        await client.audio.speech.create({ model: 'demo-tts', input: 'Hello', voice: 'alloy', response_format: 'wav' })
      ).arrayBuffer(),
    );
    expect(speech.subarray(0, 4).toString()).toBe('RIFF');
    const transcript = await client.audio.transcriptions.create({
      model: 'demo-transcribe',
      file: await toFile(speech, 'hello.wav'),
    });
    expect(transcript.text.length).toBeGreaterThan(0);
  });

  it('runs a video job to completion and serves its content', async () => {
    const video = await client.videos.create({ model: 'demo-video', prompt: 'a calm sea', seconds: '4' });
    expect(video.status).toBe('queued');
    let status = video.status as string;
    const deadline = Date.now() + 15_000;
    // The job takes the demo's 3 s (its status follows the clock); looked at every 100 ms, it is seen done at once.
    while (status !== 'completed' && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      status = (await client.videos.retrieve(video.id)).status;
    }
    expect(status).toBe('completed');
    const content = await client.videos.downloadContent(video.id);
    expect(Buffer.from(await content.arrayBuffer()).length).toBeGreaterThan(100);
  });

  it('works unchanged with the Vercel AI SDK (generateText, streamText, embed)', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(__dirname, '../../../test/support/vercel-ai-check.mjs')],
      {
        env: {
          ...process.env,
          NODE_OPTIONS: '',
          BASE_URL: `${app.url}/v1`,
          API_KEY: key,
          CHAT_MODEL: 'demo-chat',
          EMBED_MODEL: 'demo-embedding',
        },
        timeout: 30_000,
      },
    );
    const result = JSON.parse(stdout.trim().split('\n').at(-1)!);
    expect(result.generatedText).toContain('Say hello to the Vercel AI SDK');
    expect(result.generatedUsage.outputTokens).toBeGreaterThan(0);
    expect(result.streamedParts).toBeGreaterThan(1);
    expect(result.streamedText.length).toBeGreaterThan(0);
    expect(result.streamedUsage.outputTokens).toBeGreaterThan(0);
    expect(result.embeddingLength).toBeGreaterThan(0);
  });
});
