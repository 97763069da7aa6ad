import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { closeLocally, listenLocally } from './local-server';

/**
 * A fake upstream that speaks OpenAI's wire format, for the gateway's integration tests: it answers every
 * endpoint of the allowlist and records what it received (so tests can check what the gateway forwards).
 * Special model names: `fail-500`, `fail-401` (an upstream that leaks its key in the message), `slow-stream`
 * (a chunk every 150 ms for a long time), `hang` (never answers), `paced` (two chunks 300 ms apart),
 * `html-page` (a web page inside a markdown fence, with prose around it), `html-remote` (a page loading a
 * script from another site), `html-slow` (the same after FakeOpenAI.slowPageMs, or, held, when the test calls
 * releaseSlowPages()), `stream-2s` (20 chunks 100 ms apart, then the end).
 */
export interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
  closedEarly: boolean;
}

export class FakeOpenAI {
  readonly received: Received[] = [];
  private server!: Server;
  url = '';
  /** When the second chunk of a `paced` stream was written (ms since epoch). */
  pacedSecondChunkAt = 0;
  /**
   * How long `html-slow` takes to answer, or `'held'`: until the test calls releaseSlowPages(), so a test that needs a
   * page in flight (a busy app, a restart mid-call) waits for nothing once it has checked what it needed.
   */
  slowPageMs: number | 'held' = 2_000;
  private readonly heldPages = new Set<() => void>();

  async start(): Promise<void> {
    const { server, origin } = await listenLocally((req, res) => this.handle(req, res));
    this.server = server;
    this.url = `${origin}/v1`;
  }

  stop(): Promise<void> {
    return closeLocally(this.server);
  }

  /** Answers every held `html-slow` call now, and the later ones at once (slowPageMs becomes 0). */
  releaseSlowPages(): void {
    this.slowPageMs = 0;
    for (const answer of [...this.heldPages]) answer();
  }

  last(path: string): Received | undefined {
    return [...this.received].reverse().find((r) => r.path === path);
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const entry: Received = {
      method: req.method!,
      path: req.url!.replace(/^\/v1/, ''),
      headers: req.headers,
      body: Buffer.concat(chunks),
      closedEarly: false,
    };
    this.received.push(entry);
    res.on('close', () => {
      if (!res.writableFinished) entry.closedEarly = true;
    });
    const isJson = /json/.test(String(req.headers['content-type']));
    const body = isJson && entry.body.length ? JSON.parse(entry.body.toString()) : {};
    const multipartModel = /name="model"\r\n\r\n([^\r]+)/.exec(entry.body.toString('latin1'))?.[1];
    const model: string = body.model ?? multipartModel ?? '';
    const json = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'set-cookie': 'upstream=secret' });
      res.end(JSON.stringify(payload));
    };
    if (model === 'fail-500')
      return json(500, { error: { message: 'boom at https://internal.upstream.example/x', type: 'server_error' } });
    if (model === 'fail-401')
      return json(401, {
        error: {
          message: 'Incorrect API key provided: sk-upst****cret',
          type: 'invalid_request_error',
          code: 'invalid_api_key',
        },
      });
    if (model === 'fail-400')
      return json(400, {
        error: {
          message: 'max_tokens is too large for https://x.example',
          type: 'invalid_request_error',
          code: 'invalid_value',
        },
      });
    if (model === 'hang') return;

    const path = entry.path;
    if (path === '/chat/completions' || path === '/completions') return this.chat(res, body, path === '/completions');
    if (path === '/embeddings') {
      const inputs: string[] = Array.isArray(body.input) ? body.input : [body.input];
      const vector = [0.25, -0.5, 0.75];
      const encode = (v: number[]) => Buffer.from(new Float32Array(v).buffer).toString('base64');
      return json(200, {
        object: 'list',
        model,
        data: inputs.map((_, index) => ({
          object: 'embedding',
          index,
          embedding: body.encoding_format === 'base64' ? encode(vector) : vector,
        })),
        usage: { prompt_tokens: 7, total_tokens: 7 },
      });
    }
    if (path === '/images/generations' || path === '/images/edits' || path === '/images/variations')
      return json(200, {
        created: 1,
        data: Array.from({ length: Number(body.n ?? 2) }, () => ({ b64_json: Buffer.from('png').toString('base64') })),
      });
    if (path === '/audio/speech') {
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      res.write(Buffer.alloc(1000, 1));
      setTimeout(() => res.end(Buffer.alloc(1000, 2)), 20);
      return;
    }
    if (path === '/audio/transcriptions')
      return json(200, {
        text: 'hello from the fake',
        usage: { type: 'tokens', input_tokens: 30, output_tokens: 5, total_tokens: 35 },
      });
    if (path === '/responses') return this.responses(res, body);
    if (path === '/videos')
      return json(200, {
        id: 'video_fake1',
        object: 'video',
        model,
        status: 'queued',
        progress: 0,
        created_at: 1,
        seconds: '8',
        size: '720x1280',
      });
    if (/^\/videos\/[^/]+$/.test(path) && req.method === 'GET')
      return json(200, {
        id: path.split('/')[2],
        object: 'video',
        model: 'up-video',
        status: 'completed',
        progress: 100,
        created_at: 1,
        seconds: '8',
        size: '720x1280',
      });
    if (/^\/videos\/[^/]+\/content$/.test(path)) {
      res.writeHead(200, { 'content-type': 'video/mp4', 'x-upstream-internal': 'secret' });
      res.end(Buffer.from('fake-mp4-bytes'));
      return;
    }
    if (/^\/videos\/[^/]+\/remix$/.test(path))
      return json(200, {
        id: 'video_fake2',
        object: 'video',
        model,
        status: 'queued',
        progress: 0,
        created_at: 1,
        seconds: '8',
        size: '720x1280',
        remixed_from_video_id: path.split('/')[2],
      });
    json(404, { error: { message: `no route ${path}`, type: 'invalid_request_error' } });
  }

  private chat(res: ServerResponse, body: Record<string, any>, legacy: boolean): void {
    const model = body.model;
    if (!body.stream && (model === 'html-page' || model === 'html-slow'))
      return this.page(res, model === 'html-slow' ? this.slowPageMs : 0);
    if (!body.stream && model === 'html-remote') return this.page(res, 0, REMOTE_SCRIPT_PAGE);
    const usage = { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 };
    const pieces = ['Hello', ' from', ' the', ' fake'];
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify(
          legacy
            ? {
                id: 'cmpl-1',
                object: 'text_completion',
                created: 1,
                model,
                choices: [{ index: 0, text: pieces.join(''), finish_reason: 'stop', logprobs: null }],
                usage,
              }
            : {
                id: 'chatcmpl-1',
                object: 'chat.completion',
                created: 1,
                model,
                choices: [
                  {
                    index: 0,
                    message: { role: 'assistant', content: pieces.join('') },
                    finish_reason: 'stop',
                    logprobs: null,
                  },
                ],
                usage,
              },
        ),
      );
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const chunk = (delta: object, finish: string | null = null) =>
      legacy
        ? {
            id: 'cmpl-1',
            object: 'text_completion',
            created: 1,
            model,
            choices: [
              { index: 0, text: (delta as { content?: string }).content ?? '', finish_reason: finish, logprobs: null },
            ],
          }
        : {
            id: 'chatcmpl-1',
            object: 'chat.completion.chunk',
            created: 1,
            model,
            choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
          };
    const send = (payload: unknown) => res.write(`data: ${JSON.stringify(payload)}\n\n`);
    const finish = () => {
      send(chunk({}, 'stop'));
      if (body.stream_options?.include_usage) send({ ...chunk({}), choices: [], usage });
      res.end('data: [DONE]\n\n');
    };
    // slow-stream: a chunk every 150 ms for 30 s; stream-2s: 20 chunks 100 ms apart; both then end normally.
    const drip = ({ 'slow-stream': [150, 201], 'stream-2s': [100, 20] } as Record<string, [number, number]>)[model];
    if (drip) {
      const [everyMs, count] = drip;
      let n = 0;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        send(chunk({ content: ` word${n}` }));
        n += 1;
        if (n < count) return;
        clearInterval(timer);
        finish();
      }, everyMs);
      res.on('close', () => clearInterval(timer));
      return;
    }
    if (model === 'paced') {
      send(chunk({ role: 'assistant', content: 'first' }));
      setTimeout(() => {
        this.pacedSecondChunkAt = Date.now();
        send(chunk({ content: ' second' }));
        finish();
      }, 300);
      return;
    }
    send(chunk({ role: 'assistant', content: '' }));
    for (const piece of pieces) send(chunk({ content: piece }));
    finish();
  }

  /** A model that wraps its page in a markdown fence and talks around it, as chat models do. */
  private page(res: ServerResponse, delayMs: number | 'held', html = FAKE_PAGE): void {
    let timer: NodeJS.Timeout | undefined;
    const answer = () => {
      this.heldPages.delete(answer);
      clearTimeout(timer);
      if (res.destroyed) return;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id: 'chatcmpl-page',
          object: 'chat.completion',
          created: 1,
          model: 'page-model',
          choices: [
            {
              index: 0,
              message: { role: 'assistant', content: `Here is your app:\n\n\`\`\`html\n${html}\n\`\`\`\n\nEnjoy!` },
              finish_reason: 'stop',
              logprobs: null,
            },
          ],
          usage: { prompt_tokens: 120, completion_tokens: 80, total_tokens: 200 },
        }),
      );
    };
    if (delayMs === 'held') this.heldPages.add(answer);
    else timer = setTimeout(answer, delayMs);
    res.on('close', () => {
      clearTimeout(timer);
      this.heldPages.delete(answer);
    });
  }

  private responses(res: ServerResponse, body: Record<string, any>): void {
    const response = {
      id: 'resp_1',
      object: 'response',
      created_at: 1,
      status: 'completed',
      model: body.model,
      error: null,
      incomplete_details: null,
      instructions: null,
      max_output_tokens: null,
      parallel_tool_calls: true,
      tool_choice: 'auto',
      tools: [],
      temperature: 1,
      top_p: 1,
      metadata: {},
      text: { format: { type: 'text' } },
      truncation: 'disabled',
      output: [
        {
          type: 'message',
          id: 'msg_1',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'Hi there', annotations: [] }],
        },
      ],
      usage: {
        input_tokens: 9,
        output_tokens: 2,
        total_tokens: 11,
        input_tokens_details: { cached_tokens: 0 },
        output_tokens_details: { reasoning_tokens: 0 },
      },
    };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(response));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const event = (type: string, data: object, n: number) =>
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n, ...data })}\n\n`);
    event('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } }, 0);
    event(
      'response.output_text.delta',
      { item_id: 'msg_1', output_index: 0, content_index: 0, delta: 'Hi', logprobs: [] },
      1,
    );
    event(
      'response.output_text.delta',
      { item_id: 'msg_1', output_index: 0, content_index: 0, delta: ' there', logprobs: [] },
      2,
    );
    event('response.completed', { response }, 3);
    res.end();
  }
}

/** The page `html-remote` writes: it loads a script from another site (the page check refuses it). */
export const REMOTE_SCRIPT_PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Remote</title>
<script src="https://cdn.evil.example/tracker.js"></script></head><body><p>x</p></body></html>`;

/** The page `html-page` writes: its script shows that it runs. */
export const FAKE_PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Fake &amp; Page</title></head>
<body><h1>From the fake upstream</h1><p id="out">static</p>
<script>document.getElementById('out').textContent = 'scripted';</script></body></html>`;

export interface FakeCatalogModel {
  id: string;
  /** The model name the fake upstream sees (it picks its behaviour by it); default: the id. */
  upstreamModel?: string;
  pricing?: string;
}

/** A MODELS_CONFIG catalog of chat models served by the fake upstream at `upstream`, priced 1 and 2 per million. */
export function fakeChatCatalog(upstream: string, models: Array<string | FakeCatalogModel>, apiKey = 'x'): string {
  const lines = models.map((entry) => {
    const model = typeof entry === 'string' ? { id: entry } : entry;
    const pricing = model.pricing ?? '{ inputPerMTok: 1, outputPerMTok: 2 }';
    return `  - { id: ${model.id}, provider: fake, upstreamModel: ${model.upstreamModel ?? model.id}, type: text, methods: [chat_completions], pricing: ${pricing} }\n`;
  });
  return `providers:\n  - { id: fake, type: openai, baseUrl: "${upstream}", apiKey: ${apiKey} }\nmodels:\n${lines.join('')}`;
}
