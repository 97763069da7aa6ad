import type { IncomingMessage, ServerResponse } from 'node:http';
import { fakeProviders } from './local-server';

/**
 * Providers that report usage as it arrives, each in its real wire format, on one local server:
 * - `/anthropic/v1/messages`: Anthropic's Messages (message_start with the input and cache counts, text deltas,
 *   message_delta with the output, message_stop; or a JSON Message);
 * - `/gemini/v1beta/models/<model>:streamGenerateContent` / `:generateContent`: Gemini, usageMetadata on every chunk;
 * - `/openai/v1/chat/completions` and `/openai/v1/responses`: an OpenAI-compatible server reporting usage on every
 *   chunk (vLLM's continuous usage stats) then a usage chunk, and Responses events each carrying
 *   `response.usage` (created, in_progress, then completed); `/completions` (legacy, JSON), `/embeddings` (the plan's
 *   input as prompt_tokens), `/images/generations` (the plan's output as the number of images, else `n`),
 *   `/audio/speech` (bytes), `/audio/transcriptions` (multipart; the plan's input as seconds) and `/videos` (the
 *   plan's input as seconds).
 *
 * What each reports is the upstream model's name, `u-` then fields: `i<n>` input tokens, `r<n>` cache reads, `w<n>`
 * five-minute and `h<n>` one-hour cache writes, `o<n>` output tokens reported at the end, `p<n>` text pieces
 * (one token each) before the end, and the ending: `full` (the default), `stall` (after the pieces, nothing more
 * until the client leaves), `cut` (the connection is destroyed after the pieces), `blind` (no usage at all, and
 * a stall). `u-i2000000-p5-stall`: message_start says 2,000,000 input tokens, five pieces, then it waits.
 * Non-streaming calls answer at once with the whole usage.
 */
export interface UsagePlan {
  input: number;
  cacheRead: number;
  cacheWrite: number;
  cacheWrite1h: number;
  output: number;
  pieces: number;
  ending: 'full' | 'stall' | 'cut' | 'blind';
}

export const PIECE = 'abcd';

export function usagePlan(model: string): UsagePlan {
  const field = (letter: string, fallback = 0) => {
    const match = new RegExp(`-${letter}(\\d+)`).exec(model);
    return match ? Number(match[1]) : fallback;
  };
  const ending = /-(stall|cut|blind)\b/.exec(model)?.[1] as UsagePlan['ending'] | undefined;
  const pieces = field('p', 3);
  return {
    input: field('i', 10),
    cacheRead: field('r'),
    cacheWrite: field('w'),
    cacheWrite1h: field('h'),
    output: field('o', pieces),
    pieces,
    ending: ending ?? 'full',
  };
}

export interface SeenRequest {
  path: string;
  body: Record<string, any>;
}

/**
 * Starts the providers and writes a catalog for them: `anthropic`, `gemini` and `openai`, and `providers` beside
 * them (other fakes' servers).
 */
export async function startUsageUpstream(models: (origin: string) => unknown[], providers: unknown[] = []) {
  const seen: SeenRequest[] = [];
  const fake = await fakeProviders(
    async (req, res) => {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      // A multipart form (transcriptions) is read for its model field only.
      const body = String(req.headers['content-type']).startsWith('multipart/')
        ? { model: /name="model"\r\n\r\n([^\r]*)/.exec(raw)?.[1] }
        : raw
          ? (JSON.parse(raw) as Record<string, any>)
          : {};
      seen.push({ path: req.url!, body });
      route(req, res, body);
    },
    (origin) => ({
      providers: [
        { id: 'anthropic', type: 'anthropic', baseUrl: `${origin}/anthropic/v1`, apiKey: 'a' },
        { id: 'gemini', type: 'gemini', baseUrl: `${origin}/gemini/v1beta`, apiKey: 'g' },
        { id: 'openai', type: 'openai', baseUrl: `${origin}/openai/v1`, apiKey: 'o' },
        ...providers,
      ],
      models: models(origin),
    }),
  );
  return { ...fake, seen };
}

function route(req: IncomingMessage, res: ServerResponse, body: Record<string, any>): void {
  const url = req.url!;
  if (url === '/anthropic/v1/messages') return anthropic(res, body);
  const gemini = /^\/gemini\/v1beta\/models\/([^:]+):(streamGenerateContent|generateContent)/.exec(url);
  if (gemini) return geminiAnswer(res, usagePlan(gemini[1]), gemini[2] === 'streamGenerateContent');
  if (url === '/openai/v1/chat/completions') return openAiChat(res, body);
  if (url === '/openai/v1/responses') return responses(res, body);
  if (url.startsWith('/openai/v1/')) return openAiOther(res, url.slice('/openai/v1'.length), body);
  res.writeHead(404, { 'content-type': 'application/json' });
  res.end('{"error":{"message":"no such route","type":"invalid_request_error"}}');
}

/** Writes the events of a stream: `pieces` one by one, then the ending the plan asks for. */
function paced(res: ServerResponse, plan: UsagePlan, start: string[], piece: () => string, end: () => string[]): void {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const write = (text: string) => !res.destroyed && res.write(text);
  for (const event of start) write(event);
  for (let i = 0; i < plan.pieces; i += 1) write(piece());
  // Cut once what was written has left (a comment line, flushed): the connection dies mid-answer.
  if (plan.ending === 'cut') return void res.write(':\n\n', () => res.destroy());
  if (plan.ending === 'stall' || plan.ending === 'blind') return; // until the client leaves
  for (const event of end()) write(event);
  res.end();
}

const sse = (name: string | null, data: unknown) =>
  `${name ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;

function anthropic(res: ServerResponse, body: Record<string, any>): void {
  const plan = usagePlan(String(body.model));
  const usage = (output: number) => ({
    input_tokens: plan.input,
    cache_read_input_tokens: plan.cacheRead,
    cache_creation_input_tokens: plan.cacheWrite + plan.cacheWrite1h,
    cache_creation: { ephemeral_5m_input_tokens: plan.cacheWrite, ephemeral_1h_input_tokens: plan.cacheWrite1h },
    output_tokens: output,
  });
  const message = { id: 'msg_u', type: 'message', role: 'assistant', model: body.model, stop_sequence: null };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...message,
        content: [{ type: 'text', text: PIECE.repeat(plan.output) }],
        stop_reason: 'end_turn',
        usage: usage(plan.output),
      }),
    );
    return;
  }
  const blind = plan.ending === 'blind';
  paced(
    res,
    plan,
    [
      sse('message_start', {
        type: 'message_start',
        message: { ...message, content: [], stop_reason: null, usage: blind ? undefined : usage(1) },
      }),
      sse('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }),
    ],
    () =>
      sse('content_block_delta', {
        type: 'content_block_delta',
        index: 0,
        delta: { type: 'text_delta', text: PIECE },
      }),
    () => [
      sse('content_block_stop', { type: 'content_block_stop', index: 0 }),
      sse('message_delta', {
        type: 'message_delta',
        delta: { stop_reason: 'end_turn', stop_sequence: null },
        usage: { output_tokens: plan.output },
      }),
      sse('message_stop', { type: 'message_stop' }),
    ],
  );
}

function geminiAnswer(res: ServerResponse, plan: UsagePlan, stream: boolean): void {
  const metadata = (output: number) =>
    plan.ending === 'blind'
      ? undefined
      : {
          promptTokenCount: plan.input + plan.cacheRead,
          cachedContentTokenCount: plan.cacheRead,
          candidatesTokenCount: output,
          totalTokenCount: plan.input + plan.cacheRead + output,
        };
  const chunk = (text: string, output: number, finish?: string) => ({
    candidates: [
      { content: { parts: [{ text }], role: 'model' }, index: 0, ...(finish ? { finishReason: finish } : {}) },
    ],
    usageMetadata: metadata(output),
    modelVersion: 'u',
  });
  if (!stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(chunk(PIECE.repeat(plan.output), plan.output, 'STOP')));
    return;
  }
  let sent = 0;
  paced(
    res,
    plan,
    [],
    () => sse(null, chunk(PIECE, ++sent)),
    () => [sse(null, chunk('', plan.output, 'STOP'))],
  );
}

function openAiChat(res: ServerResponse, body: Record<string, any>): void {
  const plan = usagePlan(String(body.model));
  const usage = (output: number) => ({
    prompt_tokens: plan.input + plan.cacheRead,
    completion_tokens: output,
    total_tokens: plan.input + plan.cacheRead + output,
    prompt_tokens_details: { cached_tokens: plan.cacheRead },
  });
  const base = { id: 'chatcmpl-u', object: 'chat.completion.chunk', created: 1, model: body.model };
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...base,
        object: 'chat.completion',
        choices: [
          { index: 0, message: { role: 'assistant', content: PIECE.repeat(plan.output) }, finish_reason: 'stop' },
        ],
        usage: usage(plan.output),
      }),
    );
    return;
  }
  const report = plan.ending !== 'blind';
  let sent = 0;
  const chunk = (delta: object, output: number, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    ...(report ? { usage: usage(output) } : {}),
  });
  paced(
    res,
    plan,
    [sse(null, chunk({ role: 'assistant', content: '' }, 0))],
    () => sse(null, chunk({ content: PIECE }, ++sent)),
    () => [
      sse(null, chunk({}, plan.output, 'stop')),
      ...(report ? [sse(null, { ...base, choices: [], usage: usage(plan.output) })] : []),
      sse(null, '[DONE]'),
    ],
  );
}

function responses(res: ServerResponse, body: Record<string, any>): void {
  const plan = usagePlan(String(body.model));
  const usage = (output: number) =>
    plan.ending === 'blind'
      ? null
      : {
          input_tokens: plan.input + plan.cacheRead,
          input_tokens_details: { cached_tokens: plan.cacheRead },
          output_tokens: output,
          total_tokens: plan.input + plan.cacheRead + output,
        };
  const response = (status: string, output: number) => ({
    id: 'resp_u',
    object: 'response',
    created_at: 1,
    status,
    model: body.model,
    output: [],
    usage: usage(output),
  });
  if (!body.stream) {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        ...response('completed', plan.output),
        output: [
          {
            type: 'message',
            id: 'msg_u',
            role: 'assistant',
            status: 'completed',
            content: [{ type: 'output_text', text: PIECE.repeat(plan.output), annotations: [] }],
          },
        ],
      }),
    );
    return;
  }
  let n = 0;
  const event = (type: string, data: object) => sse(type, { type, sequence_number: n++, ...data });
  paced(
    res,
    plan,
    [
      event('response.created', { response: response('in_progress', 0) }),
      event('response.in_progress', { response: response('in_progress', 0) }),
    ],
    () => event('response.output_text.delta', { item_id: 'msg_u', output_index: 0, content_index: 0, delta: PIECE }),
    () => [event('response.completed', { response: response('completed', plan.output) })],
  );
}

/** The OpenAI endpoints without streams: each reports what the plan says, whatever it was asked. */
function openAiOther(res: ServerResponse, path: string, body: Record<string, any>): void {
  const plan = usagePlan(String(body.model));
  const json = (payload: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(payload));
  };
  switch (path) {
    case '/completions':
      return json({
        id: 'cmpl-u',
        object: 'text_completion',
        created: 1,
        model: body.model,
        choices: [{ index: 0, text: PIECE.repeat(plan.output), finish_reason: 'stop', logprobs: null }],
        usage: { prompt_tokens: plan.input, completion_tokens: plan.output, total_tokens: plan.input + plan.output },
      });
    case '/embeddings':
      return json({
        object: 'list',
        model: body.model,
        data: [{ object: 'embedding', index: 0, embedding: [0.1, 0.2] }],
        usage: { prompt_tokens: plan.input, total_tokens: plan.input },
      });
    case '/images/generations': {
      const count = /-o\d/.test(String(body.model)) ? plan.output : Number(body.n ?? 1);
      return json({ created: 1, data: Array.from({ length: count }, () => ({ b64_json: 'cG5n' })) });
    }
    case '/audio/speech':
      res.writeHead(200, { 'content-type': 'audio/mpeg' });
      return void res.end(Buffer.alloc(2000, 1));
    case '/audio/transcriptions':
      return json({ text: PIECE, usage: { type: 'duration', seconds: plan.input } });
    case '/videos':
      return json({
        id: `video_${Math.random().toString(36).slice(2)}`,
        object: 'video',
        model: body.model,
        status: 'queued',
        progress: 0,
        created_at: 1,
        seconds: String(plan.input),
        size: '720x1280',
      });
    default:
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"no such route","type":"invalid_request_error"}}');
  }
}
