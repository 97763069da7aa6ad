// `npm run bench`: direct-to-upstream against a plain node:http relay, Portkey's open-source gateway and
// Switchyard (API-key auth and usage recording, on PostgreSQL and on the embedded database), non-streaming and
// streaming, at 10 and 100 connections, all against one zero-latency fake upstream, in one run. Prints the
// figures and ratios and writes docs/benchmarks.md. Targets are reported, never asserted: the exit code is 0
// whenever the run itself worked.
//
// Environment (all optional):
//   BENCH_WARMUP_MS (2000), BENCH_DURATION_MS (8000)   per scenario
//   BENCH_ONLY=direct,relay,portkey,switchyard-pg,switchyard-embedded   a subset (the doc is then not written)
//   BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/test)   an admin connection; a scratch database
//                 sy_bench is created beside it and dropped afterwards
//   BENCH_SCENARIOS=json-10,stream-10   a subset of the scenarios (the doc is then not written)
//   BENCH_SY_PROF=dir   every Switchyard process runs under --cpu-prof, its profile written to dir at exit
//   BENCH_PROFILE=0   skip the CPU-profile pass ("Where the time goes")
//   BENCH_ROUNDS (5)   interleaved json-10 rounds of relay, Portkey and Switchyard (PostgreSQL), all running at
//                 once and measured in turn, for ratios that a drifting machine does not skew (0: none)
//   BENCH_DOC=path    where to write the markdown (docs/benchmarks.md)
import { fork, spawn, execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, createWriteStream } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort, gitInfo, log, pgClient, postJson, registerUser, ROOT, stopChild, tail, waitFor } from './common.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const MAIN = join(ROOT, 'apps/api/dist/main.js');
/** Switchyard runs with the node flags `npm start` gives it (and the Docker image): the bench measures what users run. */
const NODE_FLAGS = (() => {
  const start = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start;
  const found = /\bnode((?: --[^\s]+)*) apps\/api\/dist\/main\.js/.exec(start);
  if (!found) throw new Error(`cannot read the API's node command from package.json's start script: ${start}`);
  return found[1].split(' ').filter(Boolean);
})();
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 2000);
const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 8000);
const ONLY = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((s) => s.trim()) : null;
const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const PG_DB = 'sy_bench';
const PROFILE = process.env.BENCH_PROFILE !== '0';
const DOC = resolve(ROOT, process.env.BENCH_DOC ?? 'docs/benchmarks.md');
const UPSTREAM_KEY = 'sk-upstream-secret';
const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();
const SCENARIOS = [
  { id: 'json-10', stream: false, connections: 10 },
  { id: 'json-100', stream: false, connections: 100 },
  { id: 'stream-10', stream: true, connections: 10 },
  { id: 'stream-100', stream: true, connections: 100 },
].filter((s) => !process.env.BENCH_SCENARIOS || process.env.BENCH_SCENARIOS.split(',').includes(s.id));
const CHUNK_CHECK_REQUESTS = 5;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const ROUND_WARMUP_MS = 1000;
const ROUND_DURATION_MS = 3000;
const ROUND_TARGETS = ['relay', 'portkey', 'switchyard-pg'];
const SLOW_GAP_MS = 25; // fake-upstream.mjs's gap between chunks of the model bench-slow

const work = mkdtempSync(join(os.tmpdir(), 'sy-bench-'));
const children = new Set();

// ---- small helpers ---------------------------------------------------------------------------------------



/** utime + stime of a process, in ms (`which`: 'user' or 'system' for one of them). */
function cpuMs(pid, which = 'both') {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const user = Number(fields[11]);
    const system = Number(fields[12]);
    return (((which === 'user' ? user : which === 'system' ? system : user + system) * 1000) / CLK_TCK);
  } catch {
    return null;
  }
}

function memoryMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return null;
  }
}


function forkReady(script, env) {
  const child = fork(script, [], { env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  return new Promise((res, rej) => {
    const timer = setTimeout(() => rej(new Error(`${script} did not start`)), 10_000);
    child.once('message', (message) => {
      clearTimeout(timer);
      res({ child, port: message.port });
    });
    child.once('exit', (code) => rej(new Error(`${script} exited (${code})`)));
  });
}




function chatBody(model, stream) {
  return JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }], ...(stream ? { stream: true } : {}) });
}

// ---- PostgreSQL scratch database -------------------------------------------------------------------------


function scratchUrl() {
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${PG_DB}`;
  return url.toString();
}

async function recreateScratchDb() {
  const admin = await pgClient(PG_ADMIN_URL);
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${PG_DB} WITH (FORCE)`);
    await admin.query(`CREATE DATABASE ${PG_DB}`);
    return (await admin.query('SHOW server_version')).rows[0].server_version;
  } finally {
    await admin.end();
  }
}

async function dropScratchDb() {
  const admin = await pgClient(PG_ADMIN_URL);
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${PG_DB} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

async function countUsagePg() {
  const client = await pgClient(scratchUrl());
  try {
    const { rows } = await client.query(`SELECT status, count(*)::int AS n FROM usage_records GROUP BY status`);
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  } finally {
    await client.end();
  }
}

async function countUsageEmbedded(dataDir) {
  const { PGlite } = await import('@electric-sql/pglite');
  const db = await PGlite.create({ dataDir: join(dataDir, 'pglite') });
  try {
    const { rows } = await db.query(`SELECT status, count(*)::int AS n FROM usage_records GROUP BY status`);
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  } finally {
    await db.close();
  }
}

// ---- the servers ---------------------------------------------------------------------------------------

function modelsConfig(upstreamPort) {
  const model = (id, priced = true) => [
    `  - id: ${id}`,
    '    provider: fake',
    `    upstreamModel: ${id}`,
    '    type: text',
    '    methods: [chat_completions]',
    '    capabilities: [streaming]',
    ...(priced ? ['    pricing: { inputPerMTok: 0.5, outputPerMTok: 1.5 }'] : []),
  ];
  return [
    'providers:',
    '  - id: fake',
    '    type: openai',
    `    baseUrl: http://127.0.0.1:${upstreamPort}/v1`,
    `    apiKey: ${UPSTREAM_KEY}`,
    'models:',
    ...model('bench-model'),
    ...model('bench-slow'),
    // No price: no budget reservation (the feature-cost run).
    ...model('bench-free', false),
    '',
  ].join('\n');
}

/** Starts Switchyard (the built apps/api/dist), registers a user and creates an API key over HTTP. */
async function startSwitchyard(kind, upstreamPort, { profileDir, redisPrefix = null, gatewayRpm = null, shared = null } = {}) {
  if (!existsSync(MAIN)) throw new Error(`${relative(ROOT, MAIN)} is missing: run \`npm run build\` first`);
  const port = await freePort();
  const modelsFile = join(work, 'models.yaml');
  writeFileSync(modelsFile, modelsConfig(upstreamPort));
  const env = { ...process.env };
  for (const name of ['DATABASE_URL', 'DATA_DIR', 'REDIS_URL', 'REDIS_PREFIX', 'NODE_OPTIONS']) delete env[name];
  Object.assign(env, {
    PORT: String(port),
    SPACES_PORT: '0', // hosted space apps, unused here: a free port rather than PORT + 1, which may be taken
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'error',
    AUTH_RATE_LIMIT_PER_IP: '100000',
    // Budgets: the bench account must not run dry (reservations, where built, are still made and settled).
    SIGNUP_CREDIT: '1000000',
    MODELS_CONFIG: modelsFile,
    NODE_ENV: 'production',
  });
  // Rate limits (and the invalidation bus) through Redis, as several instances would run.
  if (redisPrefix) Object.assign(env, { REDIS_URL: REDIS_URL_BENCH, REDIS_PREFIX: redisPrefix });
  if (gatewayRpm) env.GATEWAY_RPM = String(gatewayRpm);
  let dataDir = null;
  if (kind === 'postgres') {
    // A second instance shares the first one's database (and its account and key).
    if (!shared) await recreateScratchDb();
    env.DATABASE_URL = scratchUrl();
  } else {
    dataDir = mkdtempSync(join(work, 'data-'));
    env.DATA_DIR = dataDir;
  }
  const logFile = join(work, `switchyard-${kind}${profileDir ? '-profile' : ''}.log`);
  const out = createWriteStream(logFile);
  if (process.env.BENCH_SY_PROF) profileDir = process.env.BENCH_SY_PROF;
  const args = [...NODE_FLAGS, ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []), MAIN];
  const child = spawn(process.execPath, args, { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor(`Switchyard (${kind})`, async () => (await fetch(`${base}/readyz`)).status === 200, 90_000, child);
    if (shared) return { child, pid: child.pid, base, apiKey: shared.apiKey, dataDir, logFile };
    const { session } = await registerUser(base);
    const created = await postJson(`${base}/api/v1/keys`, { name: 'bench' }, { authorization: `Bearer ${session}` });
    const apiKey = created.json?.data?.key;
    if (!apiKey) throw new Error(`creating a key answered ${created.status}: ${created.text.slice(0, 300)}`);
    return { child, pid: child.pid, base, apiKey, dataDir, logFile };
  } catch (error) {
    await stopChild(child);
    throw new Error(`${error.message}\n${tail(logFile)}`);
  }
}

async function startPortkey() {
  const port = await freePort();
  const logFile = join(work, 'portkey.log');
  const out = createWriteStream(logFile);
  const env = { ...process.env, BENCH_ROOT: ROOT, NODE_ENV: 'production' };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [join(HERE, 'portkey.mjs'), `--port=${port}`], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.on('exit', () => children.delete(child));
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor('Portkey', async () => (await fetch(`${base}/`)).status < 500, 30_000, child);
  } catch (error) {
    await stopChild(child);
    throw new Error(`${error.message}\n${tail(logFile)}`);
  }
  return { child, pid: child.pid, base };
}

// ---- one scenario --------------------------------------------------------------------------------------

/** Busy CPU time of the whole machine (all cores), in ms. */
function machineBusyMs() {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = ticks;
    return ((user + nice + system + irq + softirq + steal) * 1000) / CLK_TCK;
  } catch {
    return null;
  }
}

/**
 * Runs one job in a fresh load-generator process. `watch.pid` is the server under test (its CPU time in the
 * measured window and its peak RSS are recorded); `watch.upstreamPid` the fake upstream; `watch.pgPids()` the
 * PostgreSQL backends serving it. Whatever else used the machine in the window is reported as `otherCores`.
 */
function runLoad(job, watch) {
  const pids = watch.pids ?? [watch.pid];
  const sum = (values) => (values.some((v) => v === null) ? null : values.reduce((a, b) => a + b, 0));
  return new Promise((res, rej) => {
    const child = fork(join(HERE, 'load.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.add(child);
    const snap = async () => {
      const pgPids = watch.pgPids ? await watch.pgPids().catch(() => []) : [];
      return {
        at: Number(process.hrtime.bigint() / 1000n),
        target: sum(pids.map((p) => cpuMs(p))),
        targetUser: sum(pids.map((p) => cpuMs(p, 'user'))),
        upstream: watch.upstreamPid && !pids.includes(watch.upstreamPid) ? cpuMs(watch.upstreamPid) : 0,
        load: cpuMs(child.pid),
        machine: machineBusyMs(),
        pg: new Map(pgPids.map((p) => [p, cpuMs(p)])),
      };
    };
    let first = null;
    let last = null;
    let peakRss = 0;
    const sampler = setInterval(() => {
      const rss = sum(pids.map((p) => memoryMb(p)?.rss ?? null));
      if (rss && rss > peakRss) peakRss = rss;
    }, 100);
    const hardTimer = setTimeout(() => child.kill('SIGKILL'), (job.warmupMs ?? 0) + (job.durationMs ?? 0) + 60_000);
    let settled = false;
    child.on('message', async (message) => {
      if (message.event === 'measure-start') first = snap();
      else if (message.event === 'measure-end') last = snap();
      else if (message.result) {
        settled = true;
        const a = first ? await first : null;
        const b = last ? await last : null;
        const extra = { windowUs: [a?.at ?? null, b?.at ?? null], cpuMs: null, peakRssMb: peakRss, hwmMb: sum(pids.map((p) => memoryMb(p)?.hwm ?? null)) };
        if (a && b && a.target !== null && b.target !== null) {
          const ms = (b.at - a.at) / 1000;
          extra.cpuMs = b.target - a.target;
          extra.cpuUserMs = b.targetUser - a.targetUser;
          let pgMs = 0;
          for (const [p, end] of b.pg) pgMs += (end ?? 0) - (a.pg.get(p) ?? 0);
          extra.pgCpuMs = watch.pgPids ? pgMs : null;
          const ours = extra.cpuMs + (b.upstream - a.upstream) + (b.load - a.load) + pgMs;
          extra.loadGenCores = (b.load - a.load) / ms;
          extra.otherCores = Math.max(0, (b.machine - a.machine - ours) / ms);
        }
        res({ ...message.result, ...extra });
      } else if (message.failure) {
        settled = true;
        rej(new Error(message.failure));
      }
    });
    child.on('exit', (code) => {
      clearInterval(sampler);
      clearTimeout(hardTimer);
      children.delete(child);
      if (!settled) rej(new Error(`load generator exited (${code}) without a result`));
    });
    child.send(job);
  });
}

const QUIET_CORES = 0.3;
let quietBudgetMs = Number(process.env.BENCH_QUIET_MAX_MS ?? 120_000);

/**
 * Other engineers' builds and tests may share this machine. Before a scenario, waits (at most 15 s, and at most
 * BENCH_QUIET_MAX_MS over the whole run) until the machine is nearly idle; whatever load remains is measured
 * during the window and reported.
 */
async function waitForQuiet() {
  const deadline = Date.now() + Math.min(15_000, quietBudgetMs);
  let announced = false;
  const started = Date.now();
  for (;;) {
    const before = machineBusyMs();
    await sleep(500);
    const cores = (machineBusyMs() - before) / 500;
    if (cores < QUIET_CORES || Date.now() >= deadline) {
      quietBudgetMs -= Date.now() - started;
      if (announced) log(`  (machine ${cores < QUIET_CORES ? 'quiet again' : `still busy: ${cores.toFixed(2)} cores`} after ${((Date.now() - started) / 1000).toFixed(0)} s)`);
      return;
    }
    if (!announced) log(`  (other work is using ${cores.toFixed(2)} cores; waiting up to ${((deadline - Date.now()) / 1000).toFixed(0)} s for it to settle)`);
    announced = true;
  }
}

async function scenario(target, spec, { warmupMs = WARMUP_MS, durationMs = DURATION_MS } = {}) {
  await waitForQuiet();
  const result = await runLoad(
    {
      kind: 'load',
      url: `${target.base}/v1/chat/completions`,
      urls: (target.bases ?? [target.base]).map((base) => `${base}/v1/chat/completions`),
      headers: target.headers,
      body: chatBody(target.model ?? 'bench-model', spec.stream),
      connections: spec.connections,
      warmupMs,
      durationMs,
      stream: spec.stream,
      maxRequests: 2_000_000,
    },
    target,
  );
  result.cpuMsPerCall = result.cpuMs !== null && result.requests ? result.cpuMs / result.requests : null;
  result.cpuCores = result.cpuMs !== null ? result.cpuMs / durationMs : null;
  result.pgCpuMsPerCall = result.pgCpuMs !== null && result.pgCpuMs !== undefined && result.requests ? result.pgCpuMs / result.requests : null;
  return result;
}

async function chunkCheck(target) {
  return runLoad(
    { kind: 'chunks', url: `${target.base}/v1/chat/completions`, headers: target.headers, body: chatBody('bench-slow', true), requests: CHUNK_CHECK_REQUESTS },
    target,
  );
}

async function smoke(target) {
  for (const stream of [false, true]) {
    const response = await fetch(`${target.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...target.headers },
      body: chatBody('bench-model', stream),
    });
    const text = await response.text();
    if (response.status !== 200 || !text.includes('today?'))
      throw new Error(`smoke test (${stream ? 'stream' : 'json'}) answered ${response.status}: ${text.slice(0, 300)}`);
  }
  return 2;
}

function fmtScenario(name, spec, r) {
  // Every figure may be missing (a scenario in which no call completed, a process whose memory could not be read).
  const ttfb = r.ttfbMs ? ` ttfb p50 ${fmt(r.ttfbMs.p50)} ms` : '';
  const cpu = r.cpuMsPerCall !== null && r.cpuMsPerCall !== undefined ? ` cpu ${fmt(r.cpuMsPerCall, 3)} ms/call` : '';
  const errors = r.errors ? ` ERRORS ${r.errors} (${r.firstError})` : '';
  const pg = r.pgCpuMsPerCall !== null && r.pgCpuMsPerCall !== undefined ? ` (+ PostgreSQL ${r.pgCpuMsPerCall.toFixed(3)})` : '';
  const other = r.otherCores > 0.1 ? `  [other load on the machine: ${r.otherCores.toFixed(2)} cores]` : '';
  return `  ${name.padEnd(20)} ${spec.id.padEnd(11)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${fmt(r.latencyMs.p50)} ms  p99 ${fmt(r.latencyMs.p99)} ms${ttfb}${cpu}${pg}  peak RSS ${fmt(r.peakRssMb, 0)} MB${errors}${other}`;
}

function fmt(value, digits = 2) {
  return value === null || value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(digits);
}

// ---- CPU profile summary ("Where the time goes") ----------------------------------------------------------

function groupOf(url, name) {
  if (!url) return name.startsWith('(') ? name : `(native) ${name}`;
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = path.slice(nm + 14).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (path.startsWith('node:')) {
    const id = path.slice(5);
    if (id.startsWith('internal/streams') || id.startsWith('stream')) return 'node: streams';
    if (id.startsWith('_http') || id === 'http' || id.startsWith('internal/http')) return 'node: http';
    if (id === 'net' || id.startsWith('internal/net') || id.startsWith('internal/stream_base')) return 'node: net';
    if (id.startsWith('internal/process') || id.startsWith('internal/timers') || id === 'timers' || id.startsWith('internal/async_hooks') || id === 'events' || id.startsWith('internal/event_target'))
      return 'node: event loop, timers, events';
    if (id.startsWith('internal/deps/undici') || id.startsWith('internal/webstreams')) return 'node: web streams';
    return `node: ${id.split('/').slice(0, 2).join('/')}`;
  }
  if (path.includes('/apps/api/dist/')) return `switchyard: ${path.slice(path.indexOf('/apps/api/dist/') + 15)}`;
  return relative(ROOT, path);
}

/** Native frames that are the socket write system calls (their samples also hold time spent waiting for a core). */
const WRITE_CALLS = new Set(['writev', 'writeUtf8String', 'writeLatin1String', 'writeBuffer', 'writeAsciiString', 'writeUcs2String']);

/**
 * Summarises a V8 CPU profile over `window` ([from, to] in µs of the monotonic clock, which V8's timestamps use
 * too). Each sample counts as one tick of running code: V8 samples on a wall-clock timer, so a sample's time
 * delta would also hold time the thread sat waiting for a core (frequent here: everything shares 2 cores).
 * Socket writes are set apart: their samples include that wait (the write wakes the peer, which may take the
 * core). Shares are of the non-idle samples outside socket writes, converted to µs per call with the process's
 * measured user CPU time per call.
 */
function summariseProfile(file, calls, window, userUsPerCall) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const counts = new Map();
  let at = profile.startTime;
  let inWindow = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    at += profile.timeDeltas[i] ?? 0;
    if (window && (at < window[0] || at > window[1])) continue;
    inWindow += 1;
    const id = profile.samples[i];
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  if (window && !inWindow) throw new Error('no profile sample in the measured window (clock mismatch?)');
  const groups = new Map();
  const functions = new Map();
  const inclusive = new Map();
  const features = new Map(FEATURES.map((f) => [f.id, 0]));
  let busy = 0;
  let writes = 0;
  let idle = 0;
  for (const [id, n] of counts) {
    const node = byId.get(id);
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += n;
      continue;
    }
    if (!url && WRITE_CALLS.has(functionName)) {
      writes += n;
      continue;
    }
    busy += n;
    const group = groupOf(url, functionName || '(anonymous)');
    groups.set(group, (groups.get(group) ?? 0) + n);
    const key = `${functionName || '(anonymous)'} — ${groupOf(url, functionName)}${url ? `:${lineNumber + 1}` : ''}`;
    functions.set(key, (functions.get(key) ?? 0) + n);
    // Inclusive time of Switchyard's own functions and of a few libraries (each counted once per stack).
    const seen = new Set();
    for (let up = id; up !== undefined; up = parent.get(up)) {
      const frame = byId.get(up).callFrame;
      for (const feature of FEATURES)
        if (!seen.has(feature.id) && feature.files.some((file) => frame.url.endsWith(file))) {
          seen.add(feature.id);
          features.set(feature.id, features.get(feature.id) + n);
        }
      const g = groupOf(frame.url, frame.functionName);
      let label = null;
      if (g.startsWith('switchyard: ')) label = `${frame.functionName || '(anonymous)'} (${g.slice(12)})`;
      else if (['express', 'router', 'typeorm', 'pg', 'undici', '@nestjs/core', 'body-parser', 'cookie-parser'].includes(g)) label = `[${g}]`;
      if (label && !seen.has(label)) {
        seen.add(label);
        inclusive.set(label, (inclusive.get(label) ?? 0) + n);
      }
    }
  }
  const top = (map, count) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, n]) => ({ name, share: n / busy, perCallUs: userUsPerCall !== null ? (n / busy) * userUsPerCall : null }));
  return {
    calls,
    samples: inWindow,
    busySamples: busy,
    writeShare: writes / (busy + writes),
    idleShare: idle / inWindow,
    userUsPerCall,
    groups: top(groups, 14),
    functions: top(functions, 15),
    inclusive: top(inclusive, 16),
    features: Object.fromEntries([...features].map(([feature, n]) => [feature, { share: n / busy, perCallUs: userUsPerCall !== null ? (n / busy) * userUsPerCall : null }])),
  };
}

/** Where each feature's code lives (compiled paths): a profile sample counts for a feature when its stack passes through one. */
const FEATURES = [
  { id: 'auth', files: ['modules/proxy/credentials/credential-registry.js', 'modules/proxy/credentials/api-key.strategy.js', 'modules/keys/keys.service.js'] },
  { id: 'budget', files: ['modules/usage/ledger/budget.service.js', 'modules/usage/ledger/ledger.repository.js', 'modules/proxy/budget-estimate.js'] },
  { id: 'usage', files: ['modules/usage/usage-recorder.js'] },
  { id: 'rate-limit', files: ['common/rate-limit/rate-limiter.service.js', 'common/rate-limit/rate-limit.store.js'] },
];

async function profilePass(upstreamPort) {
  const profileDir = join(work, 'profile');
  const sy = await startSwitchyard('postgres', upstreamPort, { profileDir });
  // (profilePass's target has no upstreamPid/pgPids: only its own CPU matters here)
  let calls = 0;
  let window = null;
  let userUsPerCall = null;
  let cpuUsPerCall = null;
  try {
    const target = { base: sy.base, pid: sy.pid, headers: { authorization: `Bearer ${sy.apiKey}` } };
    await smoke(target);
    await waitForQuiet();
    const result = await runLoad(
      { kind: 'load', url: `${sy.base}/v1/chat/completions`, headers: target.headers, body: chatBody('bench-model', false), connections: 10, warmupMs: 1000, durationMs: 5000, stream: false, maxRequests: 2_000_000 },
      target,
    );
    calls = result.requests;
    window = result.windowUs;
    userUsPerCall = result.cpuUserMs !== null && result.requests ? (result.cpuUserMs * 1000) / result.requests : null;
    cpuUsPerCall = result.cpuMs !== null && result.requests ? (result.cpuMs * 1000) / result.requests : null;
  } finally {
    await stopChild(sy.child);
    await dropScratchDb().catch(() => undefined);
  }
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('no .cpuprofile written');
  writeFileSync(join(profileDir, 'window.json'), JSON.stringify({ window, calls }));
  return { ...summariseProfile(join(profileDir, file), calls, window, userUsPerCall), cpuUsPerCall };
}

// ---- the run -------------------------------------------------------------------------------------------

const TARGETS = [
  { id: 'direct', label: 'direct to upstream' },
  { id: 'relay', label: 'plain node:http relay' },
  { id: 'portkey', label: 'Portkey gateway 1.15.2' },
  { id: 'switchyard-pg', label: 'Switchyard, PostgreSQL' },
  { id: 'switchyard-embedded', label: 'Switchyard, embedded DB' },
  // Scale-out and the cost of features, each against switchyard-pg (non-streaming; the two-instance run streams too).
  { id: 'switchyard-pg-2', label: 'Switchyard, two instances, PostgreSQL + Redis', variant: true, instances: 2, redis: true, rpm: 1_000_000 },
  { id: 'switchyard-pg-rl', label: 'Switchyard, PostgreSQL + Redis rate limits', variant: true, redis: true, rpm: 1_000_000, scenarios: ['json-10', 'json-100'] },
  { id: 'switchyard-pg-free', label: 'Switchyard, PostgreSQL, unpriced model (no reservation)', variant: true, model: 'bench-free', scenarios: ['json-10', 'json-100'] },
];
const REDIS_URL_BENCH = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Starts a target (none for `direct`); `stop` ends it. Switchyard's handle also knows its PostgreSQL backends. */
async function startTarget(target, upstream) {
  let handle = null;
  let stop = async () => undefined;
  if (target.id === 'direct') {
    handle = { base: `http://127.0.0.1:${upstream.port}`, pid: upstream.child.pid, headers: { authorization: `Bearer ${UPSTREAM_KEY}` } };
  } else if (target.id === 'relay') {
    const relay = await forkReady(join(HERE, 'relay.mjs'), { UPSTREAM_PORT: String(upstream.port) });
    handle = { base: `http://127.0.0.1:${relay.port}`, pid: relay.child.pid, headers: { authorization: `Bearer ${UPSTREAM_KEY}` } };
    stop = () => stopChild(relay.child);
  } else if (target.id === 'portkey') {
    const portkey = await startPortkey();
    handle = {
      base: portkey.base,
      pid: portkey.pid,
      headers: { authorization: `Bearer ${UPSTREAM_KEY}`, 'x-portkey-provider': 'openai', 'x-portkey-custom-host': `http://127.0.0.1:${upstream.port}/v1` },
    };
    stop = () => stopChild(portkey.child);
  } else {
    const kind = target.id.startsWith('switchyard-pg') ? 'postgres' : 'embedded';
    const options = { redisPrefix: target.redis ? `sy-bench-${process.pid}-${target.id}:` : null, gatewayRpm: target.rpm ?? null };
    const sy = await startSwitchyard(kind, upstream.port, options);
    const more = [];
    for (let i = 1; i < (target.instances ?? 1); i += 1) more.push(await startSwitchyard(kind, upstream.port, { ...options, shared: sy }));
    const all = [sy, ...more];
    handle = { base: sy.base, bases: all.map((s) => s.base), pid: sy.pid, pids: all.map((s) => s.pid), headers: { authorization: `Bearer ${sy.apiKey}` }, sy, kind, model: target.model };
    stop = async () => {
      for (const s of all) await stopChild(s.child);
    };
    if (kind === 'postgres') {
      // PostgreSQL's own CPU for Switchyard's connections (usage inserts, key lookups), from an admin connection.
      const admin = await pgClient(PG_ADMIN_URL);
      handle.pgPids = async () => (await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [PG_DB])).rows.map((r) => r.pid);
      const stopAll = stop;
      stop = async () => {
        await admin.end().catch(() => undefined);
        await stopAll();
      };
    }
  }
  handle.upstreamPid = upstream.child.pid;
  return { handle, stop };
}

async function benchTarget(target, upstream) {
  const outcome = { id: target.id, label: target.label, scenarios: {}, error: null, chunks: null, usage: null, extraCalls: 0 };
  let handle = null;
  let stop = async () => undefined;
  try {
    ({ handle, stop } = await startTarget(target, upstream));
    outcome.extraCalls += await smoke(handle);
    outcome.startRssMb = memoryMb(handle.pid)?.rss ?? null;
    for (const spec of SCENARIOS.filter((s) => !target.scenarios || target.scenarios.includes(s.id))) {
      const result = await scenario(handle, spec);
      outcome.scenarios[spec.id] = result;
      log(fmtScenario(target.id, spec, result));
    }
    if (target.variant) {
      outcome.hwmMb = memoryMb(handle.pid)?.hwm ?? null;
      return outcome;
    }
    outcome.chunks = await chunkCheck(handle);
    outcome.extraCalls += outcome.chunks.ok;
    const arrivals = outcome.chunks.runs.find((r) => r.length);
    log(`  ${target.id.padEnd(20)} bench-slow chunks arrive at ${arrivals ? arrivals.map((t) => t.toFixed(0)).join(', ') : 'n/a'} ms${outcome.chunks.firstError ? ` (${outcome.chunks.firstError})` : ''}`);
    outcome.hwmMb = memoryMb(handle.pid)?.hwm ?? null;
  } catch (error) {
    outcome.error = error.message;
    log(`  ${target.id}: FAILED: ${error.message}`);
  } finally {
    await stop();
  }
  // Sanity check: one usage row per call that completed.
  if (handle?.sy && !outcome.error) {
    try {
      const rows = handle.kind === 'postgres' ? await countUsagePg() : await countUsageEmbedded(handle.sy.dataDir);
      const expected = Object.values(outcome.scenarios).reduce((sum, r) => sum + r.totalOk, 0) + outcome.extraCalls;
      outcome.usage = { rows, expected };
      log(`  ${target.id}: usage_records ${JSON.stringify(rows)}, calls completed ${expected}`);
    } catch (error) {
      outcome.usage = { error: error.message };
    }
    if (handle.kind === 'postgres') await dropScratchDb().catch(() => undefined);
  }
  return outcome;
}


/** The middle value (the upper of the two middles for an even count). */
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * The ratio targets compare targets measured one after another, on a machine whose speed drifts by tens of
 * percent within minutes. Here relay, Portkey and Switchyard (PostgreSQL) run side by side (idle while another
 * is measured) and json-10 is measured in short rounds, each round in a rotated order; every round gives its own
 * ratios, and the medians are reported.
 */
async function interleavedRounds(upstream) {
  const spec = { id: 'json-10', stream: false, connections: 10 };
  const running = [];
  try {
    for (const id of ROUND_TARGETS) {
      const started = await startTarget(TARGETS.find((t) => t.id === id), upstream);
      running.push({ id, ...started });
      await smoke(started.handle);
    }
    const rounds = [];
    for (let r = 0; r < ROUNDS; r += 1) {
      const round = {};
      for (let i = 0; i < running.length; i += 1) {
        const target = running[(i + r) % running.length];
        const result = await scenario(target.handle, spec, { warmupMs: ROUND_WARMUP_MS, durationMs: ROUND_DURATION_MS });
        round[target.id] = { rps: result.rps };
      }
      round.vsPortkey = round['switchyard-pg'].rps / round.portkey.rps;
      round.vsRelay = round['switchyard-pg'].rps / round.relay.rps;
      rounds.push(round);
      log(
        `  round ${r + 1}: relay ${round.relay.rps.toFixed(0)}, Portkey ${round.portkey.rps.toFixed(0)}, Switchyard ${round['switchyard-pg'].rps.toFixed(0)} req/s` +
          ` → ${round.vsPortkey.toFixed(2)}× Portkey, ${round.vsRelay.toFixed(2)}× relay`,
      );
    }
    return { rounds, vsPortkey: median(rounds.map((r) => r.vsPortkey)), vsRelay: median(rounds.map((r) => r.vsRelay)) };
  } finally {
    for (const target of running.reverse()) await target.stop().catch(() => undefined);
    await dropScratchDb().catch(() => undefined);
  }
}

async function main() {
  const started = new Date();
  const machine = {
    cores: os.availableParallelism?.() ?? os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memGb: os.totalmem() / 1024 ** 3,
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    commit: gitInfo(),
    postgres: null,
    // Whether the build under test reserves budget before forwarding (issue 4); detected, not assumed.
    reservation: existsSync(join(ROOT, 'apps/api/dist/modules/usage/ledger/budget.service.js')),
  };
  try {
    const admin = await pgClient(PG_ADMIN_URL);
    machine.postgres = (await admin.query('SHOW server_version')).rows[0].server_version;
    await admin.end();
  } catch (error) {
    machine.postgres = `unreachable (${error.message})`;
  }
  log(`Switchyard benchmark — ${machine.cores} cores (${machine.cpu}), node ${machine.node}, PostgreSQL ${machine.postgres}`);
  log(`each scenario: ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s measured; the load generator is its own process on the same cores`);
  log(`the build under test ${machine.reservation ? 'reserves budget per call' : 'has no budget reservation yet'}`);

  const upstream = await forkReady(join(HERE, 'fake-upstream.mjs'), {});
  log(`fake upstream on 127.0.0.1:${upstream.port}`);
  const outcomes = {};
  let profile = null;
  let rounds = null;
  try {
    for (const target of TARGETS) {
      if (ONLY && !ONLY.includes(target.id)) continue;
      log(`\n${target.label}`);
      outcomes[target.id] = await benchTarget(target, upstream);
    }
    if (ROUNDS > 0 && (!ONLY || ONLY.includes('rounds'))) {
      log(`\nInterleaved rounds: json-10, ${ROUND_WARMUP_MS / 1000} s warm-up + ${ROUND_DURATION_MS / 1000} s each, relay, Portkey and Switchyard (PostgreSQL) side by side`);
      try {
        rounds = await interleavedRounds(upstream);
      } catch (error) {
        log(`  rounds failed: ${error.message}`);
      }
    }
    if (PROFILE && (!ONLY || ONLY.includes('switchyard-pg') || ONLY.includes('profile'))) {
      log('\nCPU profile of Switchyard (PostgreSQL, non-streaming, 10 connections, 5 s, separate run)');
      try {
        profile = await profilePass(upstream.port);
        for (const g of profile.groups.slice(0, 8)) log(`  ${(g.share * 100).toFixed(1).padStart(5)}%  ${g.name}`);
      } catch (error) {
        log(`  profile failed: ${error.message}`);
      }
    }
  } finally {
    await stopChild(upstream.child);
  }

  const report = analyse(outcomes, rounds);
  log('');
  for (const line of report.console) log(line);
  const finished = new Date();
  if ((!ONLY && !process.env.BENCH_SCENARIOS) || process.env.BENCH_DOC) {
    writeFileSync(DOC, renderDoc({ machine, started, finished, outcomes, report, profile, rounds }));
    log(`\nwrote ${relative(ROOT, DOC)}`);
  } else log('\n(BENCH_ONLY set: docs/benchmarks.md not written)');
}

// ---- analysis ------------------------------------------------------------------------------------------

function get(outcomes, target, scenarioId) {
  const outcome = outcomes[target];
  if (!outcome || outcome.error) return null;
  return outcome.scenarios[scenarioId] ?? null;
}

function chunkStats(outcome, direct) {
  if (!outcome?.chunks?.runs?.length) return null;
  const runs = outcome.chunks.runs.filter((r) => r.length);
  if (!runs.length) return { ok: outcome.chunks.ok, error: outcome.chunks.firstError };
  const spread = median(runs.map((r) => r[r.length - 1] - r[0]));
  const first = median(runs.map((r) => r[0]));
  const distinct = median(runs.map((r) => new Set(r.map((t) => Math.round(t))).size));
  let delay = null;
  const directRuns = direct?.chunks?.runs?.filter((r) => r.length);
  if (directRuns?.length) {
    const avg = (rs) => rs.map((r) => r.reduce((s, t) => s + t, 0) / r.length);
    delay = median(avg(runs)) - median(avg(directRuns));
  }
  const expected = (runs[0].length - 1) * SLOW_GAP_MS;
  return { chunks: runs[0].length, spread, first, distinct, delay, expected, streamed: spread >= 0.8 * expected && distinct >= runs[0].length - 1, error: outcome.chunks.firstError };
}

function analyse(outcomes, rounds = null) {
  const lines = [];
  const targets = [];
  const ratios = [];
  const add = (a, b) => (a === null || b === null || a === undefined || b === undefined ? null : a - b);
  const div = (a, b) => (a === null || b === null || a === undefined || b === undefined || !b ? null : a / b);
  for (const sy of ['switchyard-pg', 'switchyard-embedded']) {
    for (const spec of SCENARIOS) {
      const s = get(outcomes, sy, spec.id);
      const portkey = get(outcomes, 'portkey', spec.id);
      const relay = get(outcomes, 'relay', spec.id);
      ratios.push({ sy, scenario: spec.id, vsPortkey: div(s?.rps, portkey?.rps), vsRelay: div(s?.rps, relay?.rps) });
    }
  }
  const judge = (sy) => {
    const d10 = get(outcomes, 'direct', 'json-10');
    const d100 = get(outcomes, 'direct', 'json-100');
    const ds10 = get(outcomes, 'direct', 'stream-10');
    const s10 = get(outcomes, sy, 'json-10');
    const s100 = get(outcomes, sy, 'json-100');
    const ss10 = get(outcomes, sy, 'stream-10');
    const ss100 = get(outcomes, sy, 'stream-100');
    const p10 = get(outcomes, 'portkey', 'json-10');
    const p100 = get(outcomes, 'portkey', 'json-100');
    const r10 = get(outcomes, 'relay', 'json-10');
    const chunks = chunkStats(outcomes[sy], outcomes.direct);
    const row = (name, value, unit, limit, met) => ({ name, value, unit, limit, met: value === null || value === undefined ? null : met });
    const added10 = add(s10?.latencyMs.p50, d10?.latencyMs.p50);
    const vsPortkey10 = div(s10?.rps, p10?.rps);
    const vsRelay10 = div(s10?.rps, r10?.rps);
    const vsPortkey100 = div(s100?.rps, p100?.rps);
    const added99 = add(s100?.latencyMs.p99, d100?.latencyMs.p99);
    const ttfb = add(ss10?.ttfbMs?.p50, ds10?.ttfbMs?.p50);
    return [
      row('non-streaming, 10 conn: added p50', added10, 'ms', '≤ 2 ms', added10 <= 2),
      row('non-streaming, 10 conn: throughput vs Portkey', vsPortkey10, '×', '≥ 3×', vsPortkey10 >= 3),
      row('non-streaming, 10 conn: throughput vs node:http relay', vsRelay10, '×', '≥ 0.35×', vsRelay10 >= 0.35),
      ...(sy === 'switchyard-pg' && rounds
        ? [
            row(`non-streaming, 10 conn: throughput vs Portkey, median of ${rounds.rounds.length} interleaved rounds`, rounds.vsPortkey, '×', '≥ 3×', rounds.vsPortkey >= 3),
            row(`non-streaming, 10 conn: throughput vs node:http relay, median of ${rounds.rounds.length} interleaved rounds`, rounds.vsRelay, '×', '≥ 0.35×', rounds.vsRelay >= 0.35),
          ]
        : []),
      row('non-streaming, 100 conn: throughput vs Portkey', vsPortkey100, '×', '≥ 3×', vsPortkey100 >= 3),
      row('non-streaming, 100 conn: added p99', added99, 'ms', '≤ 25 ms', added99 <= 25),
      row('streaming, 10 conn: added TTFB p50', ttfb, 'ms', '≤ 2 ms', ttfb <= 2),
      row(
        `streaming: chunks relayed as they arrive (8 chunks ${SLOW_GAP_MS} ms apart)`,
        chunks?.spread ?? null,
        'ms spread',
        `≥ ${(0.8 * (chunks?.expected ?? 175)).toFixed(0)} ms spread, chunks apart`,
        Boolean(chunks?.streamed),
      ),
      row('CPU per non-streaming call (10 conn)', s10?.cpuMsPerCall ?? null, 'ms', '≤ 0.35 ms', s10?.cpuMsPerCall <= 0.35),
      row('peak memory, 100 concurrent streams', ss100?.peakRssMb ?? null, 'MB', '≤ 300 MB', ss100?.peakRssMb <= 300),
    ];
  };
  for (const sy of ['switchyard-pg', 'switchyard-embedded']) if (outcomes[sy] && !outcomes[sy].error) targets.push({ sy, rows: judge(sy) });

  lines.push('Ratios (throughput, same run)');
  for (const r of ratios) {
    if (r.vsPortkey === null && r.vsRelay === null) continue;
    lines.push(`  ${r.sy.padEnd(20)} ${r.scenario.padEnd(11)} ${fmt(r.vsPortkey)}× Portkey   ${fmt(r.vsRelay)}× relay`);
  }
  for (const t of targets) {
    lines.push('', `Targets, ${t.sy} (reported, not asserted)`);
    for (const row of t.rows) lines.push(`  ${row.met === null ? 'n/a    ' : row.met ? 'met    ' : 'NOT MET'}  ${row.name}: ${fmt(row.value)} ${row.unit} (target ${row.limit})`);
  }
  if (outcomes.portkey?.error) lines.push('', `Portkey could not be measured: ${outcomes.portkey.error.split('\n')[0]}`);
  return { console: lines, targets, ratios };
}

// ---- docs/benchmarks.md --------------------------------------------------------------------------------

/** One instance against two, and the cost of each feature: runs that differ in one thing, and the CPU profile. */
function scaleAndFeatures(outcomes, profile) {
  const md = ['', '### One instance against two, and what each feature costs', ''];
  const base = (id) => get(outcomes, 'switchyard-pg', id);
  const cpu = (r) => (r?.cpuMsPerCall ?? null) === null ? null : r.cpuMsPerCall + (r.pgCpuMsPerCall ?? 0);
  const ms = (v) => (v === null || v === undefined ? 'n/a' : `${v >= 0 ? '+' : ''}${v.toFixed(3)}`);
  const ratio = (a, b) => (a && b ? `${(a / b).toFixed(2)}×` : 'n/a');
  md.push(
    'Each row is a run that differs from "Switchyard, PostgreSQL" in one thing, in the same run: two instances (the load generator spreads ' +
      'its connections over both, as a load balancer would; CPU is both processes together, plus PostgreSQL\'s), rate limits counted in Redis ' +
      '(`GATEWAY_RPM` set high enough never to refuse), and a model with no price (no budget reservation or settlement). CPU per call is the ' +
      'Switchyard process(es) plus PostgreSQL, against the one-instance run\'s.',
  );
  md.push('');
  md.push('| run | scenario | req/s | ÷ one instance | CPU ms/call (incl. PG) | vs one instance |');
  md.push('|---|---|---:|---:|---:|---:|');
  for (const target of TARGETS.filter((t) => t.variant)) {
    for (const spec of SCENARIOS) {
      const r = get(outcomes, target.id, spec.id);
      if (!r) continue;
      const b = base(spec.id);
      md.push(`| ${target.label} | ${spec.id} | ${r.rps.toFixed(0)} | ${ratio(r.rps, b?.rps)} | ${fmt(cpu(r), 3)} | ${ms(cpu(r) !== null && cpu(b) !== null ? cpu(r) - cpu(b) : null)} |`);
    }
  }
  md.push('');
  md.push(
    'From the CPU profile below (one instance on PostgreSQL, non-streaming, 10 connections): the Switchyard process\'s user CPU per call spent ' +
      'with each feature\'s code on the stack (what it calls included; the database\'s own CPU is not in these).',
  );
  md.push('');
  md.push('| feature | code | share of the process\'s CPU | µs per call |');
  md.push('|---|---|---:|---:|');
  const names = { auth: 'auth (the key check, cached)', budget: 'budgets (leases, reservations, settlement)', usage: 'usage records (queued, written in batches)', 'rate-limit': 'rate limits (off in this run)' };
  for (const feature of FEATURES) {
    const f = profile?.features?.[feature.id];
    md.push(`| ${names[feature.id]} | ${feature.files.map((file) => `\`${file.replace(/\.js$/, '.ts')}\``).join(', ')} | ${f ? `${(f.share * 100).toFixed(1)}%` : 'n/a'} | ${f?.perCallUs !== null && f?.perCallUs !== undefined ? f.perCallUs.toFixed(1) : 'n/a'} |`);
  }
  return md;
}

function renderDoc({ machine, started, finished, outcomes, report, profile, rounds }) {
  const md = [];
  const order = TARGETS.filter((t) => outcomes[t.id]);
  const direct = (id) => get(outcomes, 'direct', id);
  const cell = (v, d = 2) => fmt(v, d);
  const plus = (v, d = 2) => (v === null || v === undefined ? 'n/a' : `${v >= 0 ? '+' : ''}${v.toFixed(d)}`);
  md.push('# Benchmarks');
  md.push('');
  md.push('<!-- Written by `npm run bench` (tools/bench/run.mjs); edit the prose in tools/bench/notes.md, not here. -->');
  md.push('');
  md.push(
    `Run on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC for ${((finished - started) / 1000).toFixed(0)} s: ${machine.cores} cores (${machine.cpu}), ` +
      `${machine.memGb.toFixed(0)} GB, ${machine.kernel}, node ${machine.node}, PostgreSQL ${machine.postgres}, Switchyard commit ${machine.commit}.`,
  );
  md.push('');
  md.push(
    `Each scenario is ${WARMUP_MS / 1000} s of warm-up and ${DURATION_MS / 1000} s measured, with a closed-loop load generator (undici, one ` +
      'request in flight per connection) running as its own process. Everything — fake upstream, server under test, load generator and, for ' +
      'the PostgreSQL run, the PostgreSQL server — shares the same cores, so the absolute numbers are lower than on separate machines; ' +
      'the ratios within one run are what matter.',
  );
  md.push('');
  md.push(
    machine.reservation
      ? 'The build measured has budget reservations: each call reserves its worst-case cost in the database before it is forwarded and settles it after, on top of the key check and the usage record.'
      : 'The build measured has no budget reservation yet (it is a later issue): "full path" here is the key check and the usage record; the reservation\'s cost is not in these figures.',
  );
  md.push('');
  md.push('## Results');
  md.push('');
  md.push(
    'Latencies in ms; "added" is the target\'s figure minus direct-to-upstream\'s in the same scenario. CPU is the server process\'s user + ' +
      'system time in the measured window divided by the calls completed in it (for "direct", the fake upstream\'s own); for Switchyard on ' +
      'PostgreSQL, "+x PG" is the PostgreSQL backends\' CPU for the same calls. Peak RSS is sampled every 100 ms during the scenario (warm-up ' +
      'included). "Other load" is the CPU, in cores, that something outside the benchmark (another build or test on the machine) used during ' +
      'the measured window: above about 0.2 the row is disturbed.',
  );
  for (const spec of SCENARIOS) {
    const d = direct(spec.id);
    md.push('');
    md.push(`### ${spec.stream ? 'Streaming' : 'Non-streaming'}, ${spec.connections} connections`);
    md.push('');
    if (spec.stream) {
      md.push('| target | req/s | p50 | p99 | added p50 | TTFB p50 | TTFB p99 | added TTFB p50 | CPU ms/call | peak RSS MB | errors | other load |');
      md.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    } else {
      md.push('| target | req/s | p50 | p99 | added p50 | added p99 | CPU ms/call | peak RSS MB | errors | other load |');
      md.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    }
    for (const t of order) {
      const o = outcomes[t.id];
      if (o.error) {
        md.push(`| ${t.label} | ${spec.stream ? 'not measured: see below | | | | | | | | | | |' : 'not measured: see below | | | | | | | | |'}`);
        continue;
      }
      const r = o.scenarios[spec.id];
      if (!r) continue;
      const isDirect = t.id === 'direct';
      const errors = r.errors ? `${r.errors}` : '0';
      const other = r.otherCores === undefined || r.otherCores === null ? 'n/a' : r.otherCores.toFixed(2);
      const cpuCell = `${cell(r.cpuMsPerCall, 3)}${r.pgCpuMsPerCall !== null && r.pgCpuMsPerCall !== undefined ? ` (+${r.pgCpuMsPerCall.toFixed(3)} PG)` : ''}`;
      if (spec.stream)
        md.push(
          `| ${t.label} | ${r.rps.toFixed(0)} | ${cell(r.latencyMs.p50)} | ${cell(r.latencyMs.p99)} | ${isDirect ? '—' : plus(r.latencyMs.p50 - d?.latencyMs.p50)} | ${cell(r.ttfbMs?.p50)} | ${cell(r.ttfbMs?.p99)} | ${isDirect ? '—' : plus(r.ttfbMs?.p50 - d?.ttfbMs?.p50)} | ${cpuCell} | ${cell(r.peakRssMb, 0)} | ${errors} | ${other} |`,
        );
      else
        md.push(
          `| ${t.label} | ${r.rps.toFixed(0)} | ${cell(r.latencyMs.p50)} | ${cell(r.latencyMs.p99)} | ${isDirect ? '—' : plus(r.latencyMs.p50 - d?.latencyMs.p50)} | ${isDirect ? '—' : plus(r.latencyMs.p99 - d?.latencyMs.p99)} | ${cpuCell} | ${cell(r.peakRssMb, 0)} | ${errors} | ${other} |`,
        );
    }
  }
  md.push('');
  md.push('### Throughput ratios (same run)');
  md.push('');
  md.push('| Switchyard on | scenario | ÷ Portkey | ÷ node:http relay |');
  md.push('|---|---|---:|---:|');
  for (const r of report.ratios) {
    if (r.vsPortkey === null && r.vsRelay === null) continue;
    md.push(`| ${r.sy === 'switchyard-pg' ? 'PostgreSQL' : 'embedded DB'} | ${r.scenario} | ${r.vsPortkey === null ? 'n/a' : `${r.vsPortkey.toFixed(2)}×`} | ${r.vsRelay === null ? 'n/a' : `${r.vsRelay.toFixed(2)}×`} |`);
  }
  if (rounds) {
    md.push('');
    md.push('### Interleaved rounds (json-10)');
    md.push('');
    md.push(
      `The node:http relay, Portkey and Switchyard on PostgreSQL running side by side, each idle while another is measured; ${rounds.rounds.length} rounds of ` +
        `${ROUND_WARMUP_MS / 1000} s warm-up + ${ROUND_DURATION_MS / 1000} s per target, each round in a rotated order. Each round's ratios come from ` +
        'figures measured within seconds of each other, so the machine\'s drift (tens of percent over minutes here) skews them far less than the ' +
        'sequential run above.',
    );
    md.push('');
    md.push('| round | relay req/s | Portkey req/s | Switchyard req/s | ÷ Portkey | ÷ relay |');
    md.push('|---:|---:|---:|---:|---:|---:|');
    rounds.rounds.forEach((r, i) =>
      md.push(`| ${i + 1} | ${r.relay.rps.toFixed(0)} | ${r.portkey.rps.toFixed(0)} | ${r['switchyard-pg'].rps.toFixed(0)} | ${r.vsPortkey.toFixed(2)}× | ${r.vsRelay.toFixed(2)}× |`),
    );
    md.push(`| median | | | | ${rounds.vsPortkey.toFixed(2)}× | ${rounds.vsRelay.toFixed(2)}× |`);
  }
  md.push(...scaleAndFeatures(outcomes, profile));
  md.push('');
  md.push(`### Chunks relayed as they arrive`);
  md.push('');
  md.push(
    `The model \`bench-slow\` makes the fake upstream send its 8 content chunks ${SLOW_GAP_MS} ms apart; ${CHUNK_CHECK_REQUESTS} sequential streams through each target, ` +
      `median figures. A relay that buffers would deliver them all at once (spread ≈ 0).`,
  );
  md.push('');
  md.push('| target | first content chunk (ms) | first → last chunk (ms) | distinct arrival times | mean delay per chunk vs direct (ms) | relayed as they arrive |');
  md.push('|---|---:|---:|---:|---:|---|');
  for (const t of order.filter((target) => !target.variant)) {
    const c = chunkStats(outcomes[t.id], outcomes.direct);
    if (!c) {
      md.push(`| ${t.label} | n/a | n/a | n/a | n/a | not measured |`);
      continue;
    }
    if (c.spread === undefined) {
      md.push(`| ${t.label} | n/a | n/a | n/a | n/a | no content chunks (${c.error ?? 'unknown'}) |`);
      continue;
    }
    md.push(`| ${t.label} | ${c.first.toFixed(1)} | ${c.spread.toFixed(1)} | ${c.distinct}/${c.chunks} | ${t.id === 'direct' ? '—' : plus(c.delay, 2)} | ${c.streamed ? 'yes' : 'no'} |`);
  }
  md.push('');
  md.push('### Targets (from the issue; measured, not asserted)');
  md.push('');
  if (!report.targets.length) md.push('Switchyard was not measured in this run.');
  for (const t of report.targets) {
    md.push(`**${t.sy === 'switchyard-pg' ? 'Switchyard on PostgreSQL (the target applies here)' : 'Switchyard on the embedded database (reported beside it)'}**`);
    md.push('');
    md.push('| target | measured | limit | |');
    md.push('|---|---:|---|---|');
    for (const row of t.rows) md.push(`| ${row.name} | ${row.value === null ? 'n/a' : `${row.value.toFixed(row.unit === 'ms' && row.value < 1 ? 3 : 2)} ${row.unit}`} | ${row.limit} | ${row.met === null ? 'n/a' : row.met ? 'met' : '**not met**'} |`);
    md.push('');
  }
  md.push('The issue\'s reference figures, from a different 2-core machine: a plain node:http proxy about 8,900 requests/s (+0.8 ms p50) and Portkey about 950 requests/s (+9 ms p50) at 10 connections. Compare the ratios, not the absolute numbers.');
  md.push('');
  md.push('### Checks');
  md.push('');
  for (const t of order) {
    const o = outcomes[t.id];
    if (o.error) md.push(`- ${t.label}: **not measured** — ${o.error.split('\n')[0]}`);
    else {
      const errors = Object.entries(o.scenarios).filter(([, r]) => r.errors);
      md.push(`- ${t.label}: ${errors.length ? errors.map(([id, r]) => `${id}: ${r.errors} failed calls (first: ${r.firstError})`).join('; ') : 'every call answered 200 with the whole answer'}.`);
    }
    if (o.usage?.rows) {
      const success = o.usage.rows.success ?? 0;
      const others = Object.entries(o.usage.rows).filter(([s]) => s !== 'success');
      md.push(`  Usage records after shutdown: ${success} \`success\` rows for ${o.usage.expected} calls completed${others.length ? `, plus ${others.map(([s, n]) => `${n} \`${s}\``).join(', ')}` : ''} — ${success === o.usage.expected ? 'one per call' : '**mismatch**'}.`);
    } else if (o.usage?.error) md.push(`  Usage records could not be counted: ${o.usage.error}`);
  }
  if (profile) {
    md.push('');
    md.push('## Where the time goes (CPU profile)');
    md.push('');
    const us = (v) => (v === null || v === undefined ? 'n/a' : v.toFixed(1));
    md.push(
      `Generated by the same run: a separate 5 s pass of Switchyard on PostgreSQL under \`node --cpu-prof\` (non-streaming, 10 connections, ` +
        `${profile.calls} calls in the window; the profiler slows it somewhat). The process used ${us(profile.cpuUsPerCall)} µs of CPU per call, ` +
        `${us(profile.userUsPerCall)} µs of it in user space. ${(profile.writeShare * 100).toFixed(0)}% of the non-idle samples were in socket-write ` +
        'system calls (`writev` and friends): they are set apart, because on an oversubscribed 2-core machine a write that wakes the peer often ' +
        'loses the core and the sample then measures waiting, not work. The shares below are of the remaining samples, and the µs per call are ' +
        'those shares of the user CPU time per call.',
    );
    md.push('');
    md.push('Self time by where the code lives:');
    md.push('');
    md.push('| code | share | µs per call |');
    md.push('|---|---:|---:|');
    for (const g of profile.groups) md.push(`| ${g.name} | ${(g.share * 100).toFixed(1)}% | ${us(g.perCallUs)} |`);
    md.push('');
    md.push('Inclusive time (the function and everything it called) of Switchyard\'s own functions and of some libraries:');
    md.push('');
    md.push('| function | share | µs per call |');
    md.push('|---|---:|---:|');
    for (const g of profile.inclusive) md.push(`| ${g.name} | ${(g.share * 100).toFixed(1)}% | ${us(g.perCallUs)} |`);
    md.push('');
    md.push('Top functions by self time:');
    md.push('');
    md.push('| function | share | µs per call |');
    md.push('|---|---:|---:|');
    for (const g of profile.functions) md.push(`| ${g.name.replace(/\|/g, '\\|')} | ${(g.share * 100).toFixed(1)}% | ${us(g.perCallUs)} |`);
  }
  const notes = join(HERE, 'notes.md');
  if (existsSync(notes)) {
    md.push('');
    md.push(readFileSync(notes, 'utf8').trim());
  }
  md.push('');
  return md.join('\n');
}

// ---- go ------------------------------------------------------------------------------------------------

function cleanup() {
  for (const child of children) {
    try {
      child.kill('SIGKILL');
    } catch {
      // gone
    }
  }
  if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
}

process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

main()
  .then(() => {
    cleanup();
    process.exit(0);
  })
  .catch((error) => {
    console.error(error);
    cleanup();
    process.exit(1);
  });
