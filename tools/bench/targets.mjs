// The targets under test and their checks: the fake-upstream-backed relay, Portkey and Switchyard (on PostgreSQL or
// the embedded database, one or two instances), how each is started and stopped, the smoke test every target must
// pass, and the usage records Switchyard must have written.
import { fork, spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { freePort, pgClient, postJson, registerUser, ROOT, stopChild, tail, waitFor } from './common.mjs';
import {
  children,
  HERE,
  MAIN,
  NODE_FLAGS,
  PG_ADMIN_URL,
  PG_DB,
  REDIS_URL_BENCH,
  UPSTREAM_KEY,
  work,
} from './settings.mjs';

/** What is measured, in order: `variant` runs differ from switchyard-pg in one thing (report.mjs compares them). */
export const TARGETS = [
  { id: 'direct', label: 'direct to upstream' },
  { id: 'relay', label: 'plain node:http relay' },
  { id: 'portkey', label: 'Portkey gateway 1.15.2' },
  { id: 'switchyard-pg', label: 'Switchyard, PostgreSQL' },
  { id: 'switchyard-embedded', label: 'Switchyard, embedded DB' },
  // Scale-out and the cost of features, each against switchyard-pg (non-streaming; the two-instance run streams too).
  {
    id: 'switchyard-pg-2',
    label: 'Switchyard, two instances, PostgreSQL + Redis',
    variant: true,
    instances: 2,
    redis: true,
    rpm: 1_000_000,
  },
  {
    id: 'switchyard-pg-rl',
    label: 'Switchyard, PostgreSQL + Redis rate limits',
    variant: true,
    redis: true,
    rpm: 1_000_000,
    scenarios: ['json-10', 'json-100'],
  },
  {
    id: 'switchyard-pg-free',
    label: 'Switchyard, PostgreSQL, unpriced model (no reservation)',
    variant: true,
    model: 'bench-free',
    scenarios: ['json-10', 'json-100'],
  },
];

/** Forks a helper process (the fake upstream, the relay) and waits for the port it reports. */
export function forkReady(script, env) {
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

/** The chat request every call of the bench sends. */
export function chatBody(model, stream) {
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

export async function dropScratchDb() {
  const admin = await pgClient(PG_ADMIN_URL);
  try {
    await admin.query(`DROP DATABASE IF EXISTS ${PG_DB} WITH (FORCE)`);
  } finally {
    await admin.end();
  }
}

export async function countUsagePg() {
  const client = await pgClient(scratchUrl());
  try {
    const { rows } = await client.query(`SELECT status, count(*)::int AS n FROM usage_records GROUP BY status`);
    return Object.fromEntries(rows.map((r) => [r.status, r.n]));
  } finally {
    await client.end();
  }
}

export async function countUsageEmbedded(dataDir) {
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

function modelsConfig(upstreamPort, failoverPort = null) {
  const model = (id, priced = true) => [
    `  - id: ${id}`,
    '    provider: fake',
    `    upstreamModel: ${id}`,
    '    type: text',
    '    methods: [chat_completions]',
    '    capabilities: [streaming]',
    // An unpriced model must say it is free (a model with no price is refused: docs/pricing.md).
    priced ? '    pricing: { inputPerMTok: 0.5, outputPerMTok: 1.5 }' : '    free: true',
  ];
  return [
    'providers:',
    '  - id: fake',
    '    type: openai',
    `    baseUrl: http://127.0.0.1:${upstreamPort}/v1`,
    `    apiKey: ${UPSTREAM_KEY}`,
    // The failover scenario's second upstream (tools/bench/failover.mjs): one model on both, weighted 1:1.
    ...(failoverPort
      ? [
          '  - id: fake-b',
          '    type: openai',
          `    baseUrl: http://127.0.0.1:${failoverPort}/v1`,
          `    apiKey: ${UPSTREAM_KEY}`,
        ]
      : []),
    'models:',
    ...model('bench-model'),
    ...model('bench-slow'),
    // No price: no budget reservation (the feature-cost run).
    ...model('bench-free', false),
    ...(failoverPort
      ? [
          '  - id: bench-failover',
          '    type: text',
          '    methods: [chat_completions]',
          '    pricing: { inputPerMTok: 0.5, outputPerMTok: 1.5 }',
          '    deployments:',
          '      - { provider: fake, upstreamModel: bench-model, weight: 1 }',
          '      - { provider: fake-b, upstreamModel: bench-model, weight: 1 }',
        ]
      : []),
    '',
  ].join('\n');
}

/** Starts Switchyard (the built apps/api/dist), registers a user and creates an API key over HTTP. */
export async function startSwitchyard(
  kind,
  upstreamPort,
  { profileDir, redisPrefix = null, gatewayRpm = null, shared = null, failoverPort = null } = {},
) {
  if (!existsSync(MAIN)) throw new Error(`${relative(ROOT, MAIN)} is missing: run \`npm run build\` first`);
  const port = await freePort();
  const modelsFile = join(work, 'models.yaml');
  writeFileSync(modelsFile, modelsConfig(upstreamPort, failoverPort));
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
    throw new Error(`${error.message}\n${tail(logFile)}`, { cause: error });
  }
}

async function startPortkey() {
  const port = await freePort();
  const logFile = join(work, 'portkey.log');
  const out = createWriteStream(logFile);
  const env = { ...process.env, BENCH_ROOT: ROOT, NODE_ENV: 'production' };
  delete env.NODE_OPTIONS;
  const child = spawn(process.execPath, [join(HERE, 'portkey.mjs'), `--port=${port}`], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.add(child);
  child.on('exit', () => children.delete(child));
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor('Portkey', async () => (await fetch(`${base}/`)).status < 500, 30_000, child);
  } catch (error) {
    await stopChild(child);
    throw new Error(`${error.message}\n${tail(logFile)}`, { cause: error });
  }
  return { child, pid: child.pid, base };
}

/** Starts a target (none for `direct`); `stop` ends it. Switchyard's handle also knows its PostgreSQL backends. */
export async function startTarget(target, upstream) {
  let handle;
  let stop = async () => undefined;
  if (target.id === 'direct') {
    handle = {
      base: `http://127.0.0.1:${upstream.port}`,
      pid: upstream.child.pid,
      headers: { authorization: `Bearer ${UPSTREAM_KEY}` },
    };
  } else if (target.id === 'relay') {
    const relay = await forkReady(join(HERE, 'relay.mjs'), { UPSTREAM_PORT: String(upstream.port) });
    handle = {
      base: `http://127.0.0.1:${relay.port}`,
      pid: relay.child.pid,
      headers: { authorization: `Bearer ${UPSTREAM_KEY}` },
    };
    stop = () => stopChild(relay.child);
  } else if (target.id === 'portkey') {
    const portkey = await startPortkey();
    handle = {
      base: portkey.base,
      pid: portkey.pid,
      headers: {
        authorization: `Bearer ${UPSTREAM_KEY}`,
        'x-portkey-provider': 'openai',
        'x-portkey-custom-host': `http://127.0.0.1:${upstream.port}/v1`,
      },
    };
    stop = () => stopChild(portkey.child);
  } else {
    const kind = target.id.startsWith('switchyard-pg') ? 'postgres' : 'embedded';
    const options = {
      redisPrefix: target.redis ? `sy-bench-${process.pid}-${target.id}:` : null,
      gatewayRpm: target.rpm ?? null,
    };
    const sy = await startSwitchyard(kind, upstream.port, options);
    const more = [];
    for (let i = 1; i < (target.instances ?? 1); i += 1)
      more.push(await startSwitchyard(kind, upstream.port, { ...options, shared: sy }));
    const all = [sy, ...more];
    handle = {
      base: sy.base,
      bases: all.map((s) => s.base),
      pid: sy.pid,
      pids: all.map((s) => s.pid),
      headers: { authorization: `Bearer ${sy.apiKey}` },
      sy,
      kind,
      model: target.model,
    };
    stop = async () => {
      for (const s of all) await stopChild(s.child);
    };
    if (kind === 'postgres') {
      // PostgreSQL's own CPU for Switchyard's connections (usage inserts, key lookups), from an admin connection.
      const admin = await pgClient(PG_ADMIN_URL);
      handle.pgPids = async () =>
        (await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [PG_DB])).rows.map((r) => r.pid);
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

// ---- checks ---------------------------------------------------------------------------------------------

export async function smoke(target) {
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
