#!/usr/bin/env node
// Coding-agent tests: Claude Code, Codex CLI and the Gemini CLI, unchanged, against the built server (docs/anthropic.md,
// "Coding agents"; docs/gemini.md). Not part of `npm test`: the CLIs bring 758 MB of platform binaries, installed on first use into
// tools/agents/node_modules from tools/agents/package-lock.json, never among the workspace's dependencies.
//
//   npm run test:agents            # builds, then runs every test
//   node tools/agents/run.mjs [name filter]   # after `npm run build`
//
// Each CLI runs with HOME (and CODEX_HOME) in a scratch folder, telemetry off, and HTTP_PROXY/HTTPS_PROXY at a
// closed loopback port (NO_PROXY=127.0.0.1,localhost), so nothing leaves the machine; each test checks the CLI
// printed the model's answer and exited 0, and that the call is in the user's request log with its cost.
// Env: DATABASE_URL, REDIS_URL (passed to the API), AGENT_TEST_VERBOSE=1 (stream the API's and the CLIs' output).

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { closedPort, freePort, startFakeOpenAi } from './fake-openai.mjs';
import { TESTS } from './tests.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..');
const apiEntry = join(repoRoot, 'apps', 'api', 'dist', 'main.js');
const verbose = process.env.AGENT_TEST_VERBOSE === '1';
const filter = process.argv[2] ?? '';
const READY_TIMEOUT_MS = 60_000;
const SHUTDOWN_TIMEOUT_MS = 10_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The CLIs at the versions tools/agents/package.json pins, installed there (its own lockfile) when missing. */
async function ensureClis() {
  const pinned = JSON.parse(readFileSync(join(here, 'package.json'), 'utf8')).dependencies;
  const installed = (name) => {
    const file = join(here, 'node_modules', name, 'package.json');
    return existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')).version : null;
  };
  const stale = Object.entries(pinned).filter(([name, version]) => installed(name) !== version);
  if (!stale.length) return;
  console.log(
    `installing ${stale.map(([name, version]) => `${name}@${version}`).join(', ')} into tools/agents (first use)`,
  );
  // Not `npm ci`: this registry lacks other platforms' optional binaries, which `npm ci` insists on.
  const code = await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: here,
    timeoutMs: 600_000,
  });
  if (code.code !== 0) throw new Error(`npm install in tools/agents failed:\n${code.output.slice(-2000)}`);
}

/** Runs a program to its end (bounded), collecting its output. */
function run(command, args, { cwd, env = process.env, timeoutMs }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (verbose) process.stderr.write(chunk);
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      if (verbose) process.stderr.write(chunk);
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, output: stdout + stderr });
    });
  });
}

/** The built API on a free port, with a scratch data folder (or DATABASE_URL), and its log. */
async function startApi(scratch, name, extraEnv = {}) {
  const port = await freePort();
  const spacesPort = await freePort();
  const dataDir = join(scratch, `data-${name}`);
  await mkdir(dataDir, { recursive: true });
  const log = [];
  const env = {
    ...process.env, // DATABASE_URL, REDIS_URL when set
    PORT: String(port),
    SPACES_PORT: String(spacesPort),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    SIGNUP_CREDIT: '5',
    AUTH_RATE_LIMIT_PER_IP: '100000',
    REDIS_PREFIX: `sy-agents-${process.pid}-${name}:`,
    ...extraEnv,
  };
  const child = spawn(process.execPath, [apiEntry], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  const keep = (chunk) => {
    log.push(chunk);
    if (verbose) process.stderr.write(chunk);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  const baseUrl = `http://127.0.0.1:${port}`;
  const api = { child, exited, baseUrl, log: () => Buffer.concat(log).toString('utf8') };
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exit = null;
  void exited.then((result) => (exit = result));
  while (Date.now() < deadline) {
    if (exit) throw new Error(`the API exited before it was ready (code ${exit.code}):\n${tail(api.log())}`);
    try {
      if ((await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) })).status === 200) return api;
    } catch {
      // not listening yet
    }
    await sleep(250);
  }
  await stopApi(api);
  throw new Error(`the API was not ready within ${READY_TIMEOUT_MS / 1000} s:\n${tail(api.log())}`);
}

async function stopApi(api) {
  if (api.child.exitCode !== null || api.child.signalCode !== null) return;
  api.child.kill('SIGTERM');
  const stopped = await Promise.race([api.exited.then(() => true), sleep(SHUTDOWN_TIMEOUT_MS).then(() => false)]);
  if (!stopped) {
    api.child.kill('SIGKILL');
    await api.exited;
  }
}

const tail = (text, lines = 30) => text.trimEnd().split('\n').slice(-lines).join('\n');

/** A new account on the API, its session and an API key made through the API, as a user would. */
async function newUser(api, name) {
  const call = async (path, body, token) => {
    const response = await fetch(api.baseUrl + path, {
      method: body ? 'POST' : 'GET',
      headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    const json = await response.json();
    if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json).slice(0, 300)}`);
    return json.data;
  };
  const registered = await call('/api/v1/auth/register', {
    email: `agent-${name}-${process.pid}-${Date.now()}@example.com`,
    password: `agent ${name} password`,
  });
  const key = await call('/api/v1/keys', { name: `${name} key` }, registered.token);
  return {
    session: registered.token,
    key: key.key,
    keyId: key.id,
    activity: async () => (await call('/api/v1/usage/me/activity?limit=100', null, registered.token)).items,
  };
}

async function main() {
  if (!existsSync(apiEntry)) throw new Error(`${apiEntry} is missing: run npm run build first`);
  const tests = TESTS.filter((test) => test.name.includes(filter));
  if (!tests.length) throw new Error(`no test matches "${filter}"`);
  await ensureClis();
  const scratch = await mkdtemp(join(tmpdir(), 'sy-agents-'));
  const deadProxy = `http://127.0.0.1:${await closedPort()}`;
  const fake = await startFakeOpenAi();
  // Two servers: the demo catalog as a new install has it, and a catalog naming the fake OpenAI-compatible provider.
  const catalogPath = join(scratch, 'models.json');
  await writeFile(catalogPath, JSON.stringify(fake.catalog()));
  const servers = {};
  const context = {
    scratch,
    bin: (name) => join(here, 'node_modules', '.bin', name),
    /** The environment every CLI runs in: a scratch HOME, telemetry off, nothing routed off the machine. */
    cliEnv: async (name, extra) => {
      const home = join(scratch, `home-${name}`);
      await mkdir(home, { recursive: true });
      const env = { PATH: process.env.PATH, LANG: 'C.UTF-8', TERM: 'dumb', HOME: home, ...extra };
      Object.assign(env, {
        HTTP_PROXY: deadProxy,
        HTTPS_PROXY: deadProxy,
        http_proxy: deadProxy,
        https_proxy: deadProxy,
        NO_PROXY: '127.0.0.1,localhost',
        no_proxy: '127.0.0.1,localhost',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        DISABLE_AUTOUPDATER: '1',
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
      });
      return { env, home };
    },
    run: (command, args, options) => run(command, args, { timeoutMs: 180_000, ...options }),
    server: async (which) => {
      servers[which] ??= await startApi(scratch, which, which === 'translated' ? { MODELS_CONFIG: catalogPath } : {});
      return servers[which];
    },
    newUser,
    fake,
  };
  let failed = 0;
  try {
    for (const test of tests) {
      const started = Date.now();
      try {
        await test.run(context);
        console.log(`ok   ${test.name} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
      } catch (error) {
        failed += 1;
        console.log(`FAIL ${test.name}: ${error instanceof Error ? error.message : String(error)}`);
        for (const [which, api] of Object.entries(servers))
          console.log(`--- API log (${which}), last lines:\n${tail(api.log())}`);
      }
    }
  } finally {
    for (const api of Object.values(servers)) await stopApi(api);
    await fake.close();
    await rm(scratch, { recursive: true, force: true });
  }
  console.log(`${tests.length - failed} passed, ${failed} failed`);
  process.exitCode = failed ? 1 : 0;
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
