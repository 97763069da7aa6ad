// The edge of the agent tests' translated run: a fake OpenAI-compatible provider speaking Chat Completions' wire
// format (a JSON answer, or a stream of chunks ending with the usage chunk and [DONE]), on 127.0.0.1. It records
// every request it receives, so a test can check what the gateway sent on.

import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';

export const FAKE_ANSWER = 'Hello from the fake OpenAI-compatible provider.';
export const FAKE_MODEL = 'fake-gpt';

/** A port nothing listens on at the moment (the OS picks it, and it is closed again). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** A closed loopback port, for HTTP_PROXY/HTTPS_PROXY: anything a CLI tries to send off the machine fails there. */
export const closedPort = freePort;

export async function startFakeOpenAi() {
  const received = [];
  const server = createServer((req, res) => {
    const chunks = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      let body = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        // recorded as an empty body
      }
      received.push({ method: req.method, path: req.url, headers: req.headers, body });
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `no route ${req.url}`, type: 'invalid_request_error' } }));
        return;
      }
      const prompt = Math.ceil(JSON.stringify(body.messages ?? []).length / 4);
      const usage = { prompt_tokens: prompt, completion_tokens: 9, total_tokens: prompt + 9 };
      const base = { id: 'chatcmpl-fake', created: 1, model: body.model };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            ...base,
            object: 'chat.completion',
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: FAKE_ANSWER } }],
            usage,
          }),
        );
        return;
      }
      const chunk = (delta, finish = null) => ({
        ...base,
        object: 'chat.completion.chunk',
        choices: [{ index: 0, delta, finish_reason: finish }],
      });
      const events = [
        chunk({ role: 'assistant', content: '' }),
        ...FAKE_ANSWER.split(/(?<= )/).map((piece) => chunk({ content: piece })),
        chunk({}, 'stop'),
        { ...base, object: 'chat.completion.chunk', choices: [], usage },
      ];
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.end(events.map((event) => `data: ${JSON.stringify(event)}\n\n`).join('') + 'data: [DONE]\n\n');
    });
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${server.address().port}/v1`;
  return {
    url,
    received,
    /** A MODELS_CONFIG naming this provider: one chat model, priced. */
    catalog: () => ({
      providers: [{ id: 'fake-openai', type: 'openai', baseUrl: url, apiKey: 'sk-fake' }],
      models: [
        {
          id: FAKE_MODEL,
          provider: 'fake-openai',
          type: 'text',
          methods: ['chat_completions'],
          capabilities: ['streaming', 'tools'],
          contextLength: 200000,
          maxOutputTokens: 8192,
          pricing: { inputPerMTok: 1, outputPerMTok: 4 },
        },
      ],
    }),
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(resolve);
      }),
  };
}
