// Helpers shared by the benchmarks (run.mjs and its parts, analytics.mjs): child processes, ports, HTTP and
// PostgreSQL, and what /proc says of a process's or the machine's CPU time and memory.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

export function log(line = '') {
  process.stdout.write(`${line}\n`);
}

export function freePort() {
  return new Promise((res, rej) => {
    const server = net.createServer();
    server.on('error', rej);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => res(port));
    });
  });
}

export async function waitFor(what, check, timeoutMs, child) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child && child.exitCode !== null) throw new Error(`${what}: the process exited (${child.exitCode})`);
    try {
      if (await check()) return;
    } catch {
      // not yet
    }
    await sleep(100);
  }
  throw new Error(`${what}: not ready after ${timeoutMs} ms`);
}

export async function stopChild(child, timeoutMs = 20_000) {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((res) => child.once('exit', res));
  child.kill('SIGTERM');
  const timer = sleep(timeoutMs).then(() => 'timeout');
  if ((await Promise.race([exited, timer])) === 'timeout') {
    child.kill('SIGKILL');
    await exited;
  }
}

export function tail(file, lines = 20) {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

export async function postJson(url, body, headers = {}) {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  let json = null;
  try {
    json = JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: response.status, json, text };
}

export async function pgClient(url) {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  return client;
}

export function gitInfo() {
  try {
    const commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT }).toString().trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', 'apps', 'libs'], { cwd: ROOT }).toString().trim() !== '';
    return `${commit}${dirty ? ' (with uncommitted changes)' : ''}`;
  } catch {
    return 'unknown';
  }
}

/** Registers a new account over HTTP; returns its session token (a bearer for /api/v1) and its user id. */
export async function registerUser(base, email = `bench-${Date.now()}@example.com`) {
  const registered = await postJson(`${base}/api/v1/auth/register`, {
    email,
    password: 'bench-password-1',
    name: 'Bench',
  });
  const session = registered.json?.data?.token;
  if (!session) throw new Error(`register answered ${registered.status}: ${registered.text.slice(0, 300)}`);
  return { session, userId: registered.json.data.user.id };
}

const CLK_TCK = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK']).toString().trim()) || 100;
  } catch {
    return 100;
  }
})();

/** utime + stime of a process, in ms (`which`: 'user' or 'system' for one of them). */
export function cpuMs(pid, which = 'both') {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const user = Number(fields[11]);
    const system = Number(fields[12]);
    return ((which === 'user' ? user : which === 'system' ? system : user + system) * 1000) / CLK_TCK;
  } catch {
    return null;
  }
}

export function memoryMb(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) / 1024;
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return null;
  }
}

/** Busy CPU time of the whole machine (all cores), in ms. */
export function machineBusyMs() {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
    const [user, nice, system, , , irq, softirq, steal] = ticks;
    return ((user + nice + system + irq + softirq + steal) * 1000) / CLK_TCK;
  } catch {
    return null;
  }
}

/** The middle value (the upper of the two middles for an even count). */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
