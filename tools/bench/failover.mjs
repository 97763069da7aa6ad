// The failover scenario of `npm run bench` (docs/routing.md): one model on two deployments (two fake upstreams,
// weighted 1:1), Switchyard on PostgreSQL with its breakers in Redis (the embedded database when PostgreSQL is
// unreachable). After a warm-up, one window where both answer for the first half (the baseline) and the second
// upstream answers 503 from half-way (a control request to it). Reported: the calls that failed (all, and once the breaker
// was open), the upstream attempts per call once it was open (both upstreams' counts ÷ calls; 1 is none extra: the
// target is at most one extra, and only the breaker's probes should make any), when it opened, and the p99 added
// against the baseline. The load is a closed loop of CONNECTIONS connections in this process.
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { pgClient, stopChild } from './common.mjs';
import { DURATION_MS, HERE, PG_ADMIN_URL, REDIS_URL_BENCH, WARMUP_MS } from './settings.mjs';
import { chatBody, dropScratchDb, forkReady, startSwitchyard } from './targets.mjs';
import { join } from 'node:path';

const CONNECTIONS = 10;
const MODEL = 'bench-failover';
const BODY = chatBody(MODEL, false);
/** The first answer of each failing status, for the console. */
const firstFailure = new Map();

function p99(values) {
  if (!values.length) return null;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)];
}

/** Calls the model on `connections` loops until `until` (performance.now()); each call's start, end and status. */
async function closedLoop(base, apiKey, until) {
  const pool = new Pool(base, { connections: CONNECTIONS, pipelining: 1, headersTimeout: 30_000, bodyTimeout: 30_000 });
  const calls = [];
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${apiKey}` };
  const loop = async () => {
    while (performance.now() < until) {
      const start = performance.now();
      let status;
      try {
        const answer = await pool.request({ path: '/v1/chat/completions', method: 'POST', headers, body: BODY });
        const text = await answer.body.text();
        status = answer.statusCode;
        if (status !== 200 && !firstFailure.has(status)) firstFailure.set(status, text.slice(0, 300));
      } catch {
        status = -1;
      }
      calls.push({ start, end: performance.now(), status });
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, loop));
  await pool.close();
  return calls;
}

const control = async (upstream, what) =>
  (await fetch(`http://127.0.0.1:${upstream.port}/control/${what}`, { method: 'POST' })).json();

/** The failover figures (null fields when the breaker never opened). */
export async function failoverBench(upstream) {
  const second = await forkReady(join(HERE, 'fake-upstream.mjs'), {});
  let kind = 'postgres';
  try {
    await (await pgClient(PG_ADMIN_URL)).end();
  } catch {
    kind = 'embedded';
  }
  const prefix = `sy-bench-failover-${Date.now()}:`;
  const sy = await startSwitchyard(kind, upstream.port, { redisPrefix: prefix, failoverPort: second.port });
  try {
    const counts = async () => (await control(upstream, 'count')).chat + (await control(second, 'count')).chat;
    // Warm-up, then one window: both deployments answer for its first half (the baseline), the second fails from
    // half-way.
    await closedLoop(sy.base, sy.apiKey, performance.now() + WARMUP_MS);
    const start = performance.now();
    const end = start + 2 * DURATION_MS;
    const loop = closedLoop(sy.base, sy.apiKey, end);
    await new Promise((resolve) => setTimeout(resolve, DURATION_MS));
    await control(second, 'fail');
    const failedAt = performance.now();
    let openedAt = null;
    let attemptsAtOpen = null;
    while (performance.now() < end) {
      const entry = await (
        await fetch(`${sy.base}/v1/models/${MODEL}`, { headers: { authorization: `Bearer ${sy.apiKey}` } })
      ).json();
      if (entry.deployments?.[1]?.status === 'open') {
        openedAt = performance.now();
        attemptsAtOpen = await counts();
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const all = await loop;
    const attemptsAtEnd = await counts();
    const baseline = all.filter((c) => c.end < failedAt);
    const calls = all.filter((c) => c.end >= failedAt);
    const afterFail = calls.filter((c) => c.start >= failedAt);
    const afterOpen = openedAt === null ? [] : calls.filter((c) => c.start >= openedAt);
    // Calls that began after the breaker opened and ended by the last count (all of them: the loop has ended).
    const failed = (list) => list.filter((c) => c.status !== 200).length;
    const result = {
      database:
        kind === 'postgres' ? `PostgreSQL + Redis (${REDIS_URL_BENCH.replace(/\/\/.*@/, '//')})` : 'embedded + Redis',
      connections: CONNECTIONS,
      // The machine's one-minute load average at the end: other work on these cores skews the latencies (not the counts).
      loadAverage: os.loadavg()[0],
      windowMs: DURATION_MS,
      baselineCalls: baseline.length,
      baselineFailed: failed(baseline),
      baselineP99: p99(baseline.map((c) => c.end - c.start)),
      calls: calls.length,
      failed: failed(calls),
      // Each failure's status and first answer, so a failed call can be told from the gateway's own refusals.
      failures: Object.fromEntries(
        [...new Set(calls.filter((c) => c.status !== 200).map((c) => c.status))].map((status) => [
          status,
          calls.filter((c) => c.status === status).length,
        ]),
      ),
      afterFailCalls: afterFail.length,
      afterFailFailed: failed(afterFail),
      openAfterMs: openedAt === null ? null : openedAt - failedAt,
      afterOpenCalls: afterOpen.length,
      afterOpenFailed: openedAt === null ? null : failed(afterOpen),
      attemptsPerCallAfterOpen:
        openedAt === null || !afterOpen.length ? null : (attemptsAtEnd - attemptsAtOpen) / afterOpen.length,
      failoverP99: p99(afterFail.map((c) => c.end - c.start)),
    };
    result.addedP99 =
      result.failoverP99 === null || result.baselineP99 === null ? null : result.failoverP99 - result.baselineP99;
    return result;
  } finally {
    await stopChild(sy.child);
    await stopChild(second.child);
    if (kind === 'postgres') await dropScratchDb().catch(() => undefined);
  }
}

/** The console lines of the figures. */
export function failoverLines(r) {
  const f = (v, d = 2) => (v === null || v === undefined ? 'n/a' : v.toFixed(d));
  return [
    `failover (${r.database}, ${r.connections} connections, ${(2 * r.windowMs) / 1000} s, the second deployment failing from half-way):`,
    `  baseline: ${r.baselineCalls} calls, ${r.baselineFailed} failed, p99 ${f(r.baselineP99)} ms`,
    `  after the failure began: ${r.afterFailCalls} calls, ${r.afterFailFailed} failed; breaker open after ${f(r.openAfterMs, 0)} ms`,
    `  once open: ${r.afterOpenCalls} calls, ${r.afterOpenFailed ?? 'n/a'} failed, ${f(r.attemptsPerCallAfterOpen, 4)} upstream attempts per call (extra: ${f(r.attemptsPerCallAfterOpen === null ? null : r.attemptsPerCallAfterOpen - 1, 4)}; target ≤ 1)`,
    `  p99 from the failure on ${f(r.failoverP99)} ms: added ${f(r.addedP99)} ms against the baseline (load average ${f(r.loadAverage, 1)})`,
    ...[...firstFailure].map(([status, text]) => `  failed with ${status} (${r.failures[status] ?? 0}×): ${text}`),
  ];
}

/** The section of docs/benchmarks.md. */
export function failoverSection(r, when) {
  const f = (v, d = 2) => (v === null || v === undefined ? 'n/a' : v.toFixed(d));
  const extra = r.attemptsPerCallAfterOpen === null ? null : r.attemptsPerCallAfterOpen - 1;
  return [
    '### Failover: a deployment that starts failing half-way',
    '',
    `Run on ${when} UTC. One model on two deployments (two fake upstreams, weighted 1:1), Switchyard on ${r.database}, ` +
      `${r.connections} connections, one window of ${(2 * r.windowMs) / 1000} s after a warm-up: both answer for its first ` +
      `half (the baseline), the second answers 503 from half-way. "Attempts per call" is both upstreams' calls from the moment the ` +
      'breaker was seen open (GET /v1/models) to the end, divided by the calls started in that time: 1 is no extra attempt ' +
      '(the target: at most one extra; only the breaker\u2019s probes should make any). A call that failed is any answer but 200.',
    '',
    '| | calls | failed | p99 ms |',
    '|---|---:|---:|---:|',
    `| baseline (both answering) | ${r.baselineCalls} | ${r.baselineFailed} | ${f(r.baselineP99)} |`,
    `| from the failure on | ${r.afterFailCalls} | ${r.afterFailFailed} | ${f(r.failoverP99)} |`,
    `| once the breaker was open | ${r.afterOpenCalls} | ${r.afterOpenFailed ?? 'n/a'} | |`,
    '',
    `- Breaker open ${f(r.openAfterMs, 0)} ms after the failure began (three consecutive faults, each retried on the other deployment before anything reached the caller).`,
    `- Upstream attempts per call once open: ${f(r.attemptsPerCallAfterOpen, 4)} (extra: ${f(extra, 4)}; target \u2264 1).`,
    `- Added p99 from the failure on: ${f(r.addedP99)} ms against the baseline (the machine's load average was ${f(r.loadAverage, 1)} on ${os.availableParallelism?.() ?? os.cpus().length} cores: latencies move with other work on them, the counts above do not).`,
    '',
  ].join('\n');
}

/**
 * `doc` with the failover section in place of its last one, or put before "### Targets" (else at the end of the
 * results): a run of the scenario alone updates its figures and leaves the others as they were.
 */
export function spliceFailover(doc, section) {
  const heading = '### Failover: a deployment that starts failing half-way';
  const at = doc.indexOf(heading);
  if (at >= 0) {
    const rest = doc.slice(at + heading.length);
    const next = rest.search(/\n#{2,3} /);
    return doc.slice(0, at) + section + (next < 0 ? '' : rest.slice(next + 1));
  }
  const before = doc.indexOf('### Targets (from the issue');
  const anchor = before >= 0 ? before : doc.indexOf('## Where the time goes');
  return anchor < 0 ? `${doc}\n${section}` : doc.slice(0, anchor) + section + '\n' + doc.slice(anchor);
}
