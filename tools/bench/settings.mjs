// The benchmark's settings: the environment knobs run.mjs's header describes, the scenarios and fixed figures, and
// the run's scratch folder and child processes (ended by run.mjs's cleanup).
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ROOT } from './common.mjs';

export const HERE = dirname(fileURLToPath(import.meta.url));
export const MAIN = process.env.BENCH_MAIN ?? join(ROOT, 'apps/api/dist/main.js');
/** Switchyard runs with the node flags `npm start` gives it (and the Docker image): the bench measures what users run. */
export const NODE_FLAGS = (() => {
  const start = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).scripts.start;
  const found = /\bnode((?: --[^\s]+)*) apps\/api\/dist\/main\.js/.exec(start);
  if (!found) throw new Error(`cannot read the API's node command from package.json's start script: ${start}`);
  return found[1].split(' ').filter(Boolean);
})();
export const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 2000);
export const DURATION_MS = Number(process.env.BENCH_DURATION_MS ?? 8000);
export const ONLY = process.env.BENCH_ONLY ? process.env.BENCH_ONLY.split(',').map((s) => s.trim()) : null;
export const PG_ADMIN_URL = process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
// Several benches may share one PostgreSQL server (helpers on one machine): each needs its own scratch database, as
// a run drops and re-creates it.
export const PG_DB = process.env.BENCH_PG_DB ?? 'sy_bench';
export const PROFILE = process.env.BENCH_PROFILE !== '0';
export const DOC = resolve(ROOT, process.env.BENCH_DOC ?? 'docs/benchmarks.md');
export const UPSTREAM_KEY = 'sk-upstream-secret';
export const SCENARIOS = [
  { id: 'json-10', stream: false, connections: 10 },
  { id: 'json-100', stream: false, connections: 100 },
  { id: 'stream-10', stream: true, connections: 10 },
  { id: 'stream-100', stream: true, connections: 100 },
].filter((s) => !process.env.BENCH_SCENARIOS || process.env.BENCH_SCENARIOS.split(',').includes(s.id));
export const CHUNK_CHECK_REQUESTS = 5;
export const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
export const ROUND_WARMUP_MS = 1000;
export const ROUND_DURATION_MS = 3000;
export const ROUND_TARGETS = ['relay', 'portkey', 'switchyard-pg'];
export const SLOW_GAP_MS = 25; // fake-upstream.mjs's gap between chunks of the model bench-slow
export const REDIS_URL_BENCH = process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const work = mkdtempSync(join(os.tmpdir(), 'sy-bench-'));
export const children = new Set();
