import { readFileSync } from 'node:fs';
import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { fakeProviders } from '../../../test/support/local-server';
import { startTestApp, type TestApp, uniqueEmail } from '../../../test/support/test-app';
import { ReservationService, UsageRecorder } from '../usage';

/**
 * Coding agents' own requests, replayed through the booted app (docs/anthropic.md, "Coding agents"): Claude Code's
 * first request (faces/anthropic/fixtures/claude-code-request.json, captured from Claude Code 2.1.197) natively to an
 * Anthropic provider and translated to the demo model, and Codex's (policy/fixtures/codex-request.json) to the
 * demo model on /v1/responses, hanging up right after the final event as Codex does. The CLIs themselves run
 * against the built server in tools/agents/run.mjs (`npm run test:agents`).
 */
const claudeCode = JSON.parse(
  readFileSync(join(__dirname, 'faces', 'anthropic', 'fixtures', 'claude-code-request.json'), 'utf8'),
);
const codex = JSON.parse(readFileSync(join(__dirname, 'policy', 'fixtures', 'codex-request.json'), 'utf8'));

interface Seen {
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, any>;
}

function anthropicUpstream(seen: Seen[]) {
  return async (req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    for await (const chunk of req) raw += chunk;
    seen.push({ path: req.url!, headers: req.headers, body: JSON.parse(raw || '{}') });
    const event = (name: string, data: object) =>
      `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.end(
      event('message_start', {
        message: {
          id: 'msg_1',
          type: 'message',
          role: 'assistant',
          model: 'claude-up',
          content: [],
          usage: { input_tokens: 900, output_tokens: 1 },
        },
      }) +
        event('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }) +
        event('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'Hi from Claude.' } }) +
        event('content_block_stop', { index: 0 }) +
        event('message_delta', { delta: { stop_reason: 'end_turn' }, usage: { input_tokens: 900, output_tokens: 6 } }) +
        event('message_stop', {}),
    );
  };
}

describe('coding agents’ requests', () => {
  const seen: Seen[] = [];
  let providers: Awaited<ReturnType<typeof fakeProviders>>;
  let app: TestApp;
  let key: string;
  let session: string;

  beforeAll(async () => {
    providers = await fakeProviders(anthropicUpstream(seen), (origin) => ({
      providers: [
        { id: 'an', type: 'anthropic', baseUrl: `${origin}/an/v1`, apiKey: 'sk-ant' },
        { id: 'demo', type: 'demo' },
      ],
      models: [
        {
          id: 'claude',
          provider: 'an',
          upstreamModel: 'claude-up',
          type: 'text',
          methods: ['chat_completions'],
          contextLength: 200000,
          maxOutputTokens: 64000,
          pricing: { inputPerMTok: 3, outputPerMTok: 15 },
        },
        {
          id: 'demo-chat',
          provider: 'demo',
          type: 'text',
          methods: ['chat_completions', 'responses'],
          capabilities: ['streaming', 'tools'],
          contextLength: 32768,
          maxOutputTokens: 4096,
          pricing: { inputPerMTok: 0.5, outputPerMTok: 1.5 },
        },
      ],
    }));
    app = await startTestApp({ signupCredit: 5, modelsConfig: providers.catalogPath });
    const registered = await app.http('/api/v1/auth/register', {
      body: { email: uniqueEmail('agents'), password: 'agents password' },
    });
    session = registered.body.data.token;
    key = (await app.http('/api/v1/keys', { token: session, body: { name: 'agent' } })).body.data.key;
  });
  afterAll(async () => {
    await app?.close();
    await providers?.close();
  });

  /** Claude Code's request as it sent it: its path with ?beta=true, its headers, its body (another model). */
  const claudeCodeCall = (model: string) =>
    fetch(`${app.url}${claudeCode.url}`, {
      method: 'POST',
      headers: { ...claudeCode.headers, 'content-type': 'application/json', 'x-api-key': key },
      body: JSON.stringify({ ...claudeCode.body, model }),
    });

  /** The user's request log, once the calls' settlements and records are written (both are batched). */
  async function records() {
    const reservations = app.app.get(ReservationService);
    for (let i = 0; i < 200 && reservations.unwrittenSettlements > 0; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 25));
    await reservations.flushSettlements();
    await app.app.get(UsageRecorder).flush();
    return (await app.http('/api/v1/usage/me/activity?limit=50', { token: session })).body.data.items as any[];
  }

  it('passes Claude Code’s request natively to an Anthropic model: the system message, adaptive thinking and the rest as sent', async () => {
    const res = await claudeCodeCall('claude');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Hi from Claude.');
    const sent = seen.at(-1)!;
    expect(sent.path).toBe('/an/v1/messages');
    const { model: _model, ...asSent } = sent.body;
    const { model: _asked, ...asked } = claudeCode.body;
    expect(asSent).toEqual(asked);
    expect(sent.body.model).toBe('claude-up');
    // Every beta Claude Code sends is on the documented list.
    expect(sent.headers['anthropic-beta']).toBe(claudeCode.headers['anthropic-beta']);
  });

  it('translates Claude Code’s request for the demo model, and answers it in Anthropic’s events', async () => {
    const res = await claudeCodeCall('demo-chat');
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/^event: message_start/);
    const said = [...text.matchAll(/"text_delta","text":("(?:[^"\\]|\\.)*")/g)]
      .map((match) => JSON.parse(match[1]))
      .join('');
    expect(said).toMatch(/^Hello from Switchyard's demo model\. You said: "say hi"\./);
    expect(text).toContain('"stop_reason":"end_turn"');
    const [last] = await records();
    expect(last).toMatchObject({ method: 'messages', model: 'demo-chat', status: 'success', httpStatus: 200 });
    expect(last.cost).toBeGreaterThan(0);
  });

  it('serves Codex’s request on /v1/responses, and records it as a success when Codex hangs up after the final event', async () => {
    // Codex reads up to response.completed and closes its connection at once: the answer must already be whole.
    const status = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        `${app.url}/v1/responses`,
        { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } },
        (res) => {
          let buffered = '';
          res.on('data', (chunk: Buffer) => {
            buffered += chunk.toString();
            if (buffered.includes('"type":"response.completed"')) {
              res.destroy();
              resolve(String(res.statusCode));
            }
          });
          res.on('end', () => resolve(`ended without response.completed: ${buffered.slice(-300)}`));
        },
      );
      req.on('error', reject);
      req.end(JSON.stringify({ ...codex.body, model: 'demo-chat' }));
    });
    expect(status).toBe('200');
    let last: any;
    for (let i = 0; i < 50; i += 1) {
      [last] = await records();
      if (last?.method === 'responses') break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(last).toMatchObject({ method: 'responses', model: 'demo-chat', status: 'success', httpStatus: 200 });
    expect(last.cost).toBeGreaterThan(0);
    expect(last.money).toMatchObject({ charged: last.cost, outcome: 'settled', reason: 'success' });
  });
});
