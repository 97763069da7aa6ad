import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { closeLocally, listenLocally } from './local-server';

/**
 * An upstream speaking OpenAI's wire format whose usage is exact and whose output obeys (or not) the limit it is
 * sent, for the money-attack suite. A token is 4 bytes of text ("tok "); a prompt counts a quarter of its text's
 * bytes plus 3 per message, or one per token id. Without a limit it writes DEFAULT_OUTPUT tokens, like a
 * provider whose own default is large. Behaviour by model name:
 * - `m-honest`: obeys max_tokens / max_completion_tokens / max_output_tokens and `n`; reports usage;
 * - `m-ignores`: writes IGNORED_OUTPUT tokens whatever it is told;
 * - `m-zero`: reports 0 completion tokens (a stop sequence that matched at once) and writes nothing;
 * - `m-nousage`: obeys the limit but never reports usage (JSON without `usage`, a stream without the usage chunk);
 * - `m-tools`, `m-reasoning`, `m-refusal`: a stream of SLOW_PIECES tool-call argument, reasoning or refusal deltas,
 *   one every SLOW_EVERY_MS, no content, then usage; `m-responses-fc` the same as Responses function-call
 *   argument deltas;
 * - `m-stall`: a stream that sends its first (role) chunk, then nothing;
 * - `m-fail`: 500.
 * Embeddings count their input's tokens the same way.
 */
export const DEFAULT_OUTPUT = 16_000;
export const IGNORED_OUTPUT = 3000;
export const SLOW_PIECES = 100;
export const SLOW_EVERY_MS = 20;
/** One slow piece's text: two tokens. */
export const SLOW_PIECE = 'abcdefgh';

export interface MeteredRequest {
  path: string;
  body: Record<string, any>;
  raw: string;
  headers: IncomingMessage['headers'];
}

const textTokens = (text: string) => Math.ceil(Buffer.byteLength(text) / 4);

/** The prompt's tokens as this upstream counts them. */
export function promptTokens(value: unknown): number {
  if (typeof value === 'string') return textTokens(value);
  if (typeof value === 'number') return 1;
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + promptTokens(item), 0);
  if (value && typeof value === 'object') {
    const message = value as { content?: unknown; text?: unknown };
    if ('content' in message) return 3 + promptTokens(message.content ?? '');
    if (typeof message.text === 'string') return textTokens(message.text);
  }
  return 0;
}

export class FakeMeteredUpstream {
  readonly received: MeteredRequest[] = [];
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    const { server, origin } = await listenLocally((req, res) => this.handle(req, res));
    this.server = server;
    this.url = `${origin}/v1`;
  }

  stop(): Promise<void> {
    return closeLocally(this.server);
  }

  /** The last request whose raw body contains `marker`. */
  find(marker: string): MeteredRequest | undefined {
    return [...this.received].reverse().find((request) => request.raw.includes(marker));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const raw = Buffer.concat(chunks).toString();
    const body = raw ? JSON.parse(raw) : {};
    const path = req.url!.replace(/^\/v1/, '');
    this.received.push({ path, body, raw, headers: req.headers });
    const model = String(body.model ?? '');
    const json = (status: number, payload: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(payload));
    };
    if (model === 'm-fail') return json(500, { error: { message: 'upstream broke', type: 'server_error' } });
    if (path === '/embeddings') {
      const inputs =
        Array.isArray(body.input) &&
        body.input.every((item: unknown) => Array.isArray(item) || typeof item === 'string')
          ? body.input
          : [body.input];
      const tokens = promptTokens(body.input);
      return json(200, {
        object: 'list',
        model,
        data: inputs.map((_: unknown, index: number) => ({ object: 'embedding', index, embedding: [0.1, 0.2] })),
        usage: { prompt_tokens: tokens, total_tokens: tokens },
      });
    }
    if (path === '/responses') return this.responses(res, body, model);
    if (path === '/chat/completions' || path === '/completions')
      return this.chat(res, body, model, path === '/completions');
    json(404, { error: { message: `no route ${path}`, type: 'invalid_request_error' } });
  }

  private limitOf(body: Record<string, any>, field: string[]): number {
    for (const name of field) if (typeof body[name] === 'number') return body[name];
    return DEFAULT_OUTPUT;
  }

  private chat(res: ServerResponse, body: Record<string, any>, model: string, legacy: boolean): void {
    const prompt = legacy
      ? promptTokens(body.prompt)
      : promptTokens(body.messages) + (Array.isArray(body.tools) ? 50 : 0);
    const limit =
      model === 'm-ignores'
        ? IGNORED_OUTPUT
        : model === 'm-zero'
          ? 0
          : this.limitOf(body, legacy ? ['max_tokens'] : ['max_completion_tokens', 'max_tokens']);
    const choices = Math.max(1, Number(body.n) || 1, legacy ? Number(body.best_of) || 1 : 1);
    const usage = { prompt_tokens: prompt, completion_tokens: limit * choices, total_tokens: prompt + limit * choices };
    const reports = model !== 'm-nousage';
    const slow = { 'm-tools': 'tools', 'm-reasoning': 'reasoning', 'm-refusal': 'refusal' }[model];
    if (!body.stream) {
      const text = 'tok '.repeat(limit);
      const answer = legacy
        ? {
            id: 'cmpl-m',
            object: 'text_completion',
            created: 1,
            model,
            choices: Array.from({ length: choices }, (_, index) => ({
              index,
              text,
              finish_reason: 'length',
              logprobs: null,
            })),
          }
        : {
            id: 'chatcmpl-m',
            object: 'chat.completion',
            created: 1,
            model,
            choices: Array.from({ length: choices }, (_, index) => ({
              index,
              message: { role: 'assistant', content: text },
              finish_reason: 'length',
              logprobs: null,
            })),
          };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(reports ? { ...answer, usage } : answer));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const frame = (delta: object, finish: string | null = null, index = 0) =>
      legacy
        ? {
            id: 'cmpl-m',
            object: 'text_completion',
            created: 1,
            model,
            choices: [{ index, text: (delta as { content?: string }).content ?? '', finish_reason: finish }],
          }
        : {
            id: 'chatcmpl-m',
            object: 'chat.completion.chunk',
            created: 1,
            model,
            choices: [{ index, delta, finish_reason: finish }],
          };
    const send = (payload: unknown) => !res.destroyed && res.write(`data: ${JSON.stringify(payload)}\n\n`);
    const end = () => {
      if (res.destroyed) return;
      if (reports && body.stream_options?.include_usage) send({ ...frame({}), choices: [], usage });
      res.end('data: [DONE]\n\n');
    };
    send(frame({ role: 'assistant', content: '' }));
    if (model === 'm-stall') return;
    if (slow) {
      let sent = 0;
      const timer = setInterval(() => {
        if (res.destroyed) return clearInterval(timer);
        const delta =
          slow === 'tools'
            ? {
                tool_calls: [
                  {
                    index: 0,
                    ...(sent ? {} : { id: 'call_1', type: 'function' }),
                    function: { ...(sent ? {} : { name: 'f' }), arguments: SLOW_PIECE },
                  },
                ],
              }
            : slow === 'reasoning'
              ? { reasoning_content: SLOW_PIECE }
              : { refusal: SLOW_PIECE };
        send(frame(delta));
        sent += 1;
        if (sent < SLOW_PIECES) return;
        clearInterval(timer);
        usage.completion_tokens = (SLOW_PIECES * SLOW_PIECE.length) / 4;
        usage.total_tokens = usage.prompt_tokens + usage.completion_tokens;
        end();
      }, SLOW_EVERY_MS);
      res.on('close', () => clearInterval(timer));
      return;
    }
    // 50 tokens a frame, every choice.
    for (let index = 0; index < choices; index += 1)
      for (let left = limit; left > 0; left -= 50)
        send(frame({ content: 'tok '.repeat(Math.min(50, left)) }, null, index));
    send(frame({}, limit ? 'length' : 'stop'));
    end();
  }

  private responses(res: ServerResponse, body: Record<string, any>, model: string): void {
    const prompt = promptTokens(body.input) + promptTokens(body.instructions ?? '');
    const limit =
      model === 'm-ignores' ? IGNORED_OUTPUT : model === 'm-zero' ? 0 : this.limitOf(body, ['max_output_tokens']);
    const slow = model === 'm-responses-fc';
    const output = slow ? (SLOW_PIECES * SLOW_PIECE.length) / 4 : limit;
    const response = {
      id: 'resp_m',
      object: 'response',
      created_at: 1,
      status: 'completed',
      model,
      output: [
        {
          type: 'message',
          id: 'msg_m',
          status: 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: 'tok '.repeat(limit), annotations: [] }],
        },
      ],
      usage: { input_tokens: prompt, output_tokens: output, total_tokens: prompt + output },
    };
    if (!body.stream) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(response));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    let n = 0;
    const event = (type: string, data: object) =>
      !res.destroyed &&
      res.write(`event: ${type}\ndata: ${JSON.stringify({ type, sequence_number: n++, ...data })}\n\n`);
    event('response.created', { response: { ...response, status: 'in_progress', output: [], usage: null } });
    if (!slow) {
      for (let left = limit; left > 0; left -= 50)
        event('response.output_text.delta', {
          item_id: 'msg_m',
          output_index: 0,
          content_index: 0,
          delta: 'tok '.repeat(Math.min(50, left)),
        });
      // Stopped by the bound it was sent: OpenAI ends such a stream with response.incomplete, usage and all.
      if (typeof body.max_output_tokens === 'number')
        event('response.incomplete', {
          response: { ...response, status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } },
        });
      else event('response.completed', { response });
      res.end();
      return;
    }
    let sent = 0;
    const timer = setInterval(() => {
      if (res.destroyed) return clearInterval(timer);
      event('response.function_call_arguments.delta', { item_id: 'fc_m', output_index: 0, delta: SLOW_PIECE });
      sent += 1;
      if (sent < SLOW_PIECES) return;
      clearInterval(timer);
      event('response.completed', { response });
      res.end();
    }, SLOW_EVERY_MS);
    res.on('close', () => clearInterval(timer));
  }
}
