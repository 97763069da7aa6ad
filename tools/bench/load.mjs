// Closed-loop load generator for tools/bench/run.mjs, run as its own process (it shares the machine's cores
// with the servers under test, but not their event loops). The parent sends one job over IPC:
//   { kind: 'load', url, urls?, headers, body, connections, warmupMs, durationMs, stream, maxRequests }
//   (with `urls`, connection i calls urls[i % urls.length]: two instances behind a client-side balancer)
//   { kind: 'chunks', url, headers, body, requests }   (per-chunk arrival times of a few sequential streams)
// and gets back { event: 'measure-start' } / { event: 'measure-end' } at the window's edges (to read the server's
// CPU time), then { result }. Every loop is bounded in time and in count.
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

const GRACE_MS = 15_000;

function percentile(sorted, p) {
  if (!sorted.length) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

function summary(values) {
  const sorted = Float64Array.from(values).sort();
  return {
    p50: percentile(sorted, 50),
    p90: percentile(sorted, 90),
    p99: percentile(sorted, 99),
    max: sorted.length ? sorted[sorted.length - 1] : null,
  };
}

function check(stream, statusCode, text) {
  if (statusCode !== 200) return `HTTP ${statusCode}: ${text.slice(0, 200)}`;
  if (stream) {
    if (!text.includes('data: [DONE]')) return `stream without [DONE]: ${text.slice(0, 200)}`;
    if (!text.includes('today?')) return `stream without the last content chunk: ${text.slice(0, 200)}`;
  } else if (!text.includes('"chat.completion"') || !text.includes('today?'))
    return `unexpected body: ${text.slice(0, 200)}`;
  return null;
}

async function load(job) {
  const urls = (job.urls ?? [job.url]).map((u) => new URL(u));
  const pools = urls.map(
    (url) =>
      new Pool(url.origin, {
        connections: Math.ceil(job.connections / urls.length),
        pipelining: 1,
        keepAliveTimeout: 60_000,
        headersTimeout: 30_000,
        bodyTimeout: 30_000,
      }),
  );
  const path = urls[0].pathname + urls[0].search;
  const headers = { 'content-type': 'application/json', ...job.headers };
  const t0 = performance.now();
  const measureStart = t0 + job.warmupMs;
  const measureEnd = measureStart + job.durationMs;
  const hardStop = measureEnd + GRACE_MS;
  const latencies = [];
  const ttfbs = [];
  let issued = 0;
  let ok = 0;
  let okInWindow = 0;
  let errors = 0;
  let errorsInWindow = 0;
  let firstError = null;
  let bytes = 0;

  // The parent reads the server's CPU time at these two messages; 'measure-end' is sent exactly once, before the result,
  // even when the last calls finish before its timer fires.
  let endSent = false;
  const sendEnd = () => {
    if (endSent) return;
    endSent = true;
    process.send({ event: 'measure-end' });
  };
  const startTimer = setTimeout(() => process.send({ event: 'measure-start' }), job.warmupMs);
  const endTimer = setTimeout(sendEnd, job.warmupMs + job.durationMs);

  /** One call through undici's lowest-level API (no body stream, no async iterator): cheap for the generator. */
  function call(pool) {
    return new Promise((resolve) => {
      const started = performance.now();
      let firstByte = 0;
      let statusCode = 0;
      const chunks = [];
      pool.dispatch(
        { path, method: 'POST', headers, body: job.body },
        {
          onRequestStart() {},
          onResponseStart(_controller, status) {
            statusCode = status;
          },
          onResponseData(_controller, chunk) {
            if (!firstByte) firstByte = performance.now();
            chunks.push(chunk);
          },
          onResponseEnd() {
            const text = Buffer.concat(chunks).toString('utf8');
            resolve({
              started,
              firstByte,
              ended: performance.now(),
              text,
              problem: check(job.stream, statusCode, text),
            });
          },
          onResponseError(_controller, error) {
            resolve({
              started,
              firstByte,
              ended: performance.now(),
              text: '',
              problem: `${error.code ?? error.name}: ${error.message}`,
            });
          },
        },
      );
    });
  }

  async function worker(pool) {
    while (performance.now() < measureEnd && issued < job.maxRequests) {
      issued += 1;
      const { started, firstByte, ended, text, problem } = await call(pool);
      bytes += text.length;
      const inWindow = ended >= measureStart && ended <= measureEnd;
      if (problem) {
        errors += 1;
        if (inWindow) errorsInWindow += 1;
        firstError ??= problem;
        // A failing target should not turn into a tight loop.
        await new Promise((resolve) => setTimeout(resolve, 10));
        continue;
      }
      ok += 1;
      if (inWindow) {
        okInWindow += 1;
        latencies.push(ended - started);
        if (job.stream) ttfbs.push(firstByte - started);
      }
    }
  }

  const workers = Array.from({ length: job.connections }, (_, i) => worker(pools[i % pools.length]));
  const all = Promise.all(workers);
  const timedOut = await Promise.race([
    all.then(() => false),
    new Promise((resolve) => setTimeout(() => resolve(true), hardStop - performance.now()).unref()),
  ]);
  clearTimeout(startTimer);
  clearTimeout(endTimer);
  sendEnd();
  await Promise.all(pools.map((pool) => pool.destroy().catch(() => undefined)));
  const windowS = job.durationMs / 1000;
  return {
    connections: job.connections,
    stream: job.stream,
    windowS,
    requests: okInWindow,
    rps: okInWindow / windowS,
    latencyMs: summary(latencies),
    ttfbMs: job.stream ? summary(ttfbs) : null,
    totalOk: ok,
    errors,
    errorsInWindow,
    firstError,
    timedOut,
    bytes,
  };
}

/** A few sequential streams, each chunk's arrival time (ms after the request started). */
async function chunks(job) {
  const url = new URL(job.url);
  const pool = new Pool(url.origin, { connections: 1, headersTimeout: 10_000, bodyTimeout: 10_000 });
  const runs = [];
  let ok = 0;
  let firstError = null;
  for (let i = 0; i < job.requests; i += 1) {
    const started = performance.now();
    const arrivals = [];
    let text = '';
    let pending = '';
    try {
      const response = await pool.request({
        path: url.pathname,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...job.headers },
        body: job.body,
      });
      for await (const chunk of response.body) {
        const at = performance.now() - started;
        const piece = chunk.toString('utf8');
        text += piece;
        pending += piece;
        // One arrival per complete SSE event carrying content.
        let end;
        while ((end = pending.indexOf('\n\n')) >= 0) {
          const event = pending.slice(0, end);
          pending = pending.slice(end + 2);
          if (/"content":"[^"]+"/.test(event)) arrivals.push(at);
        }
      }
      const problem = check(true, response.statusCode, text);
      if (problem) firstError ??= problem;
      else ok += 1;
    } catch (error) {
      firstError ??= `${error.code ?? error.name}: ${error.message}`;
    }
    runs.push(arrivals);
  }
  await pool.destroy().catch(() => undefined);
  return { ok, firstError, runs };
}

process.on('message', async (job) => {
  try {
    const result = job.kind === 'chunks' ? await chunks(job) : await load(job);
    process.send({ result }, () => process.exit(0));
  } catch (error) {
    process.send({ failure: String(error?.stack ?? error) }, () => process.exit(1));
  }
});
process.on('disconnect', () => process.exit(0));
