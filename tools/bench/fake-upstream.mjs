// A zero-latency fake OpenAI upstream for the benchmark (tools/bench/run.mjs starts it as a child process).
// POST /v1/chat/completions answers a fixed chat.completion, or with `stream: true` real OpenAI SSE: a role
// chunk, 8 content chunks, a finish chunk, the usage chunk when stream_options.include_usage, then [DONE].
// The model `bench-slow` spaces the stream's chunks SLOW_GAP_MS apart, to check that a proxy relays chunks as
// they arrive instead of buffering the whole answer. Listens on 127.0.0.1 only; tells the parent its port.
// Control, for the failover scenario (tools/bench/failover.mjs): POST /control/fail makes every chat call answer
// 503 from then on, POST /control/ok ends that, GET /control/count says how many chat calls arrived.
import http from 'node:http';

const SLOW_GAP_MS = 25;
const WORDS = ['Hello', '!', ' How', ' can', ' I', ' help', ' you', ' today?'];
const CREATED = 1_700_000_000;
const USAGE = { prompt_tokens: 9, completion_tokens: 8, total_tokens: 17 };

function completion(model) {
  return JSON.stringify({
    id: 'chatcmpl-bench0000000000000000000000',
    object: 'chat.completion',
    created: CREATED,
    model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: WORDS.join(''), refusal: null },
        logprobs: null,
        finish_reason: 'stop',
      },
    ],
    usage: USAGE,
    system_fingerprint: 'fp_bench',
  });
}

function chunk(model, delta, finish = null, usage = undefined) {
  const body = {
    id: 'chatcmpl-bench0000000000000000000000',
    object: 'chat.completion.chunk',
    created: CREATED,
    model,
    system_fingerprint: 'fp_bench',
    choices: delta === null ? [] : [{ index: 0, delta, logprobs: null, finish_reason: finish }],
  };
  if (usage !== undefined) body.usage = usage;
  return `data: ${JSON.stringify(body)}\n\n`;
}

function sse(res, model, includeUsage, gapMs) {
  const events = [chunk(model, { role: 'assistant', content: '', refusal: null })];
  for (const word of WORDS) events.push(chunk(model, { content: word }));
  events.push(chunk(model, {}, 'stop'));
  if (includeUsage) events.push(chunk(model, null, null, USAGE));
  events.push('data: [DONE]\n\n');
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  let i = 0;
  const next = () => {
    if (res.destroyed) return;
    res.write(events[i++]);
    if (i === events.length) return res.end();
    // Separate writes (never one buffer): a relay sees the chunks as an upstream would send them.
    if (gapMs) setTimeout(next, gapMs);
    else setImmediate(next);
  };
  next();
}

let failing = false;
let chatCalls = 0;

function control(req, res) {
  if (req.url === '/control/fail') failing = true;
  else if (req.url === '/control/ok') failing = false;
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ failing, chat: chatCalls }));
}

const server = http.createServer((req, res) => {
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    if (req.url.startsWith('/control/')) return control(req, res);
    if (req.url.startsWith('/v1/chat/completions')) chatCalls += 1;
    if (failing) {
      res.writeHead(503, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"overloaded","type":"server_error"}}');
      return;
    }
    if (req.method !== 'POST' || !req.url.startsWith('/v1/chat/completions')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"not found","type":"invalid_request_error"}}');
      return;
    }
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"bad json","type":"invalid_request_error"}}');
      return;
    }
    const model = typeof body.model === 'string' ? body.model : 'bench-model';
    if (body.stream === true)
      return sse(res, model, body.stream_options?.include_usage === true, model === 'bench-slow' ? SLOW_GAP_MS : 0);
    const text = completion(model);
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    res.end(text);
  });
});
server.keepAliveTimeout = 65_000;
server.headersTimeout = 66_000;
server.listen(0, '127.0.0.1', () => {
  process.send?.({ ready: true, port: server.address().port });
});
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
