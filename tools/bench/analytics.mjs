// `npm run bench:analytics`: seeds 10 million usage records over the last 12 months into a scratch database on a
// PostgreSQL server, boots the built API against it and times the usage endpoints over HTTP for the heaviest
// user: activity (first page and a page deep in the past), analytics by day, model, key and app over 30 and 365
// days, and the app owner's client usage. Also times the same analytics computed from the raw usage_records alone
// (how they were computed before the daily rollups). Prints PASS or FAIL per endpoint (median under 200 ms),
// writes docs/benchmarks-analytics.md, and exits non-zero on any FAIL.
//
// A PostgreSQL server is required: the embedded database (PGlite, single-threaded WASM) would take far longer
// than the bench's time budget to load 10 million rows.
//
// Environment (all optional):
//   DATABASE_URL or BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/test)   an admin connection; the scratch
//                 database bench_analytics is created beside it and dropped afterwards
//   BENCH_ROWS (10000000)   usage records to seed (the doc is written only for the full 10 million, or with BENCH_DOC)
//   BENCH_RUNS (7)          timed runs per endpoint, after one warm-up
//   BENCH_DOC=path          where to write the markdown (docs/benchmarks-analytics.md)
//   BENCH_KEEP=1            keep the scratch database and the API's log
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { freePort, gitInfo, log, pgClient, postJson, registerUser, ROOT, stopChild, tail, waitFor } from './common.mjs';

const MAIN = join(ROOT, 'apps/api/dist/main.js');
const MIGRATION = join(ROOT, 'apps/api/dist/database/migrations/1763800008000-usage-partitions.js');
const ADMIN_URL = process.env.DATABASE_URL ?? process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const DB = 'bench_analytics';
const FULL_ROWS = 10_000_000;
const ROWS = Number(process.env.BENCH_ROWS ?? FULL_ROWS);
const RUNS = Number(process.env.BENCH_RUNS ?? 7);
const RAW_RUNS = 3;
const LIMIT_MS = 200;
const DOC = resolve(ROOT, process.env.BENCH_DOC ?? 'docs/benchmarks-analytics.md');
const DAY_MS = 86_400_000;
const SPAN_DAYS = 365;
const CHUNK = 500_000;
const LIGHT_USERS = 2000;
const MODELS = [
  'gpt-4o-mini',
  'gpt-4o-mini',
  'gpt-4o-mini',
  'claude-haiku',
  'claude-haiku',
  'gpt-4o',
  'claude-sonnet',
  'llama-70b',
  'mistral-large',
  'gemini-flash',
];
const work = mkdtempSync(join(os.tmpdir(), 'sy-bench-analytics-'));

function scratchUrl() {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${DB}`;
  return url.toString();
}

async function admin(sql) {
  const client = await pgClient(ADMIN_URL);
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

const seconds = (since) => `${((performance.now() - since) / 1000).toFixed(1)} s`;

// ---- the API -----------------------------------------------------------------------------------------------

async function startApi() {
  if (!existsSync(MAIN)) throw new Error(`${relative(ROOT, MAIN)} is missing: run \`npm run build\` first`);
  const port = await freePort();
  const env = { ...process.env };
  for (const name of ['DATA_DIR', 'REDIS_URL', 'REDIS_PREFIX', 'NODE_OPTIONS']) delete env[name];
  Object.assign(env, {
    DATABASE_URL: scratchUrl(),
    PORT: String(port),
    SPACES_PORT: '0', // hosted space apps, unused here: a free port rather than PORT + 1, which may be taken
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: 'error',
    AUTH_RATE_LIMIT_PER_IP: '100000',
    NODE_ENV: 'production',
  });
  const logFile = join(work, 'api.log');
  const out = createWriteStream(logFile);
  const child = spawn(process.execPath, [MAIN], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.pipe(out);
  child.stderr.pipe(out);
  const base = `http://127.0.0.1:${port}`;
  try {
    await waitFor('the API', async () => (await fetch(`${base}/readyz`)).status === 200, 90_000, child);
  } catch (error) {
    await stopChild(child);
    throw new Error(`${error.message}\n${tail(logFile)}`, { cause: error });
  }
  return { child, base, logFile };
}

/** The heaviest user (registered over HTTP, so it can sign in), its three API keys and its OAuth app. */
async function createOwner(base) {
  const { session, userId } = await registerUser(base, `bench-heavy-${Date.now()}@example.com`);
  const auth = { authorization: `Bearer ${session}` };
  const keys = [];
  for (const name of ['bench key 1', 'bench key 2', 'bench key 3']) {
    const created = await postJson(`${base}/api/v1/keys`, { name }, auth);
    if (!created.json?.data?.id)
      throw new Error(`creating a key answered ${created.status}: ${created.text.slice(0, 300)}`);
    keys.push({ id: created.json.data.id, name });
  }
  const app = await postJson(
    `${base}/api/v1/oauth2/clients`,
    { clientName: 'Bench app', redirectUris: ['https://bench.example.com/callback'] },
    auth,
  );
  if (!app.json?.data?.clientId)
    throw new Error(`registering an app answered ${app.status}: ${app.text.slice(0, 300)}`);
  return { session, userId, keys, app: { id: app.json.data.id, clientId: app.json.data.clientId, name: 'Bench app' } };
}

// ---- seeding ------------------------------------------------------------------------------------------------

/**
 * Who makes call n (deterministic, spread evenly over time): the heaviest user 30 % of calls, two more heavy
 * users 15 % and 10 %, and 2,000 light users the remaining 45 %. The heaviest user calls through its three keys
 * (60 %), its own app (20 %) or a session-less credential (20 %); light users through that app (60 %) or another
 * one; ten models, most calls on the small ones; one call in fifty fails upstream.
 */
async function seed(db, owner) {
  const started = performance.now();
  await db.query(`INSERT INTO users (email, password_hash)
                  SELECT 'bench-user-' || i || '@example.com', 'not-a-hash' FROM generate_series(1, ${LIGHT_USERS + 2}) AS i`);
  await db.query(`CREATE TABLE bench_users (idx int PRIMARY KEY, id uuid NOT NULL)`);
  await db.query(`INSERT INTO bench_users VALUES (0, $1)`, [owner.userId]);
  await db.query(
    `INSERT INTO bench_users SELECT substring(email FROM 'bench-user-(\\d+)@')::int, id FROM users WHERE email LIKE 'bench-user-%'`,
  );
  // The months before the API's start: partitions made as an operator would for imported history.
  await db.query(
    `SELECT usage_partition_ensure((date_trunc('month', now() AT TIME ZONE 'UTC') - n * interval '1 month')::date) FROM generate_series(0, 13) AS n`,
  );

  // Bulk load without the indexes, then build them: far faster than maintaining five B-trees row by row.
  const { rows: indexes } = await db.query(
    `SELECT i.relname AS name, pg_get_indexdef(i.oid) AS def, c.conname AS constraint, pg_get_constraintdef(c.oid) AS condef
       FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid LEFT JOIN pg_constraint c ON c.conindid = x.indexrelid AND c.conrelid = x.indrelid
      WHERE x.indrelid = 'usage_records'::regclass`,
  );
  for (const index of indexes) {
    if (index.constraint) await db.query(`ALTER TABLE usage_records DROP CONSTRAINT ${index.constraint}`);
    else await db.query(`DROP INDEX ${index.name}`);
  }
  const t0 = new Date(Date.now() - SPAN_DAYS * DAY_MS);
  const stepMs = (SPAN_DAYS * DAY_MS) / ROWS;
  const models = `ARRAY[${MODELS.map((m) => `'${m}'`).join(', ')}]`;
  for (let lo = 1; lo <= ROWS; lo += CHUNK) {
    const hi = Math.min(ROWS, lo + CHUNK - 1);
    await db.query(
      `INSERT INTO usage_records (request_id, user_id, api_key_id, oauth_client_id, credential_name, method, model, provider, stream,
                                  status, http_status, error_code, prompt_tokens, completion_tokens, total_tokens, cost_micros,
                                  latency_ms, started_at, ended_at)
       SELECT 'bench-' || n, u.id,
              CASE WHEN who = 0 AND via < 3 THEN ($3::uuid[])[via + 1] END,
              CASE WHEN who = 0 AND via = 3 OR who > 2 AND via < 3 THEN $4 WHEN who > 0 THEN 'bench-other-app' END,
              CASE WHEN who = 0 AND via < 3 THEN ($5::text[])[via + 1] WHEN who = 0 AND via = 3 OR who > 2 AND via < 3 THEN $6
                   WHEN who > 0 THEN 'Other app' END,
              'chat_completions', (${models})[model + 1], 'bench', n % 3 = 0,
              CASE WHEN n % 50 = 0 THEN 'upstream_error' ELSE 'success' END, CASE WHEN n % 50 = 0 THEN 502 ELSE 200 END,
              CASE WHEN n % 50 = 0 THEN 'upstream_error' END,
              prompt, completion, prompt + completion, prompt * 2 + completion * 6, latency,
              at, at + latency * interval '1 millisecond'
         FROM (SELECT n,
                      CASE WHEN h < 30 THEN 0 WHEN h < 45 THEN 1 WHEN h < 55 THEN 2 ELSE 3 + (n / 97) % ${LIGHT_USERS} END::int AS who,
                      ((n * 31 / 7) % 5)::int AS via, ((n * 13) % 10)::int AS model,
                      50 + (n * 17) % 2000 AS prompt, 10 + (n * 29) % 800 AS completion, 200 + (n * 37) % 3000 AS latency,
                      date_trunc('milliseconds', $1::timestamptz + (n - 1) * $2::float8 * interval '1 millisecond') AS at
                 FROM (SELECT n, (n * 2654435761) % 100 AS h FROM generate_series($7::bigint, $8::bigint) AS n) AS hashed) AS s
         JOIN bench_users AS u ON u.idx = s.who`,
      [
        t0,
        stepMs,
        owner.keys.map((k) => k.id),
        owner.app.clientId,
        owner.keys.map((k) => k.name),
        owner.app.name,
        lo,
        hi,
      ],
    );
    log(`  ${hi.toLocaleString('en')} records (${seconds(started)})`);
  }
  const indexing = performance.now();
  await db.query(`SET maintenance_work_mem = '512MB'`);
  for (const index of indexes) {
    if (index.constraint)
      await db.query(`ALTER TABLE usage_records ADD CONSTRAINT ${index.constraint} ${index.condef}`);
    // A partitioned index's definition reads `ON ONLY usage_records`, which would index no partition.
    else await db.query(index.def.replace(' ON ONLY ', ' ON '));
  }
  log(`  indexes rebuilt (${seconds(indexing)})`);
  const rolling = performance.now();
  // The same rollups the recorder keeps, computed as the migration backfills them (from the build under test).
  const { ROLLUP_BACKFILL } = await import(pathToFileURL(MIGRATION).href);
  for (const statement of ROLLUP_BACKFILL) await db.query(statement);
  log(`  rollups built (${seconds(rolling)})`);
  await db.query(`DROP TABLE bench_users`);
  await db.query(`VACUUM ANALYZE`);
  log(`seeded in ${seconds(started)}`);
  return (performance.now() - started) / 1000;
}

// ---- timing -------------------------------------------------------------------------------------------------

function stats(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { p50: sorted[Math.floor((sorted.length - 1) / 2)], max: sorted.at(-1), runs: sorted.length };
}

async function timeHttp(url, session, runs = RUNS) {
  const call = async () => {
    const t = performance.now();
    const response = await fetch(url, { headers: { authorization: `Bearer ${session}` } });
    const body = await response.json();
    const ms = performance.now() - t;
    if (response.status !== 200)
      throw new Error(`${url} answered ${response.status}: ${JSON.stringify(body).slice(0, 300)}`);
    return { ms, body };
  };
  const { body } = await call();
  const samples = [];
  for (let i = 0; i < runs; i += 1) samples.push((await call()).ms);
  return { ...stats(samples), body };
}

async function timeSql(db, sql, params, runs = RAW_RUNS) {
  const samples = [];
  for (let i = 0; i < runs; i += 1) {
    const t = performance.now();
    await db.query(sql, params);
    samples.push(performance.now() - t);
  }
  return stats(samples);
}

/** The analytics query as it was before the rollups: every row of the window read from usage_records. */
function rawAnalyticsSql(groupBy) {
  const key = {
    day: `to_char(date_trunc('day', started_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`,
    model: 'model',
    key: `COALESCE(credential_name, 'Unknown')`,
    app: `COALESCE(oauth_client_id, 'none')`,
  }[groupBy];
  const filter =
    groupBy === 'key' ? ' AND api_key_id IS NOT NULL' : groupBy === 'app' ? ' AND oauth_client_id IS NOT NULL' : '';
  return `SELECT ${key} AS key, count(*) AS requests, sum(prompt_tokens) AS prompt, sum(completion_tokens) AS completion,
                 sum(total_tokens) AS total, sum(cost_micros) AS cost
            FROM usage_records WHERE user_id = $1 AND started_at >= $2 AND started_at < $3${filter} GROUP BY 1 ORDER BY 1`;
}

const RAW_CLIENT_SQL = `SELECT count(*), count(DISTINCT user_id), sum(total_tokens), sum(cost_micros)
                          FROM usage_records WHERE oauth_client_id = $1 AND started_at >= $2 AND started_at < $3`;

async function measure(api, db, owner) {
  const results = [];
  const now = new Date();
  const add = (row) => {
    results.push(row);
    const verdict = row.pass === undefined ? '' : row.pass ? '  PASS' : '  FAIL';
    log(
      `  ${row.name.padEnd(46)} p50 ${row.p50.toFixed(1).padStart(7)} ms   max ${row.max.toFixed(1).padStart(7)} ms${row.raw ? `   raw rows: p50 ${row.raw.p50.toFixed(0)} ms` : ''}${verdict}`,
    );
  };
  const http = async (name, path, raw) => {
    const timed = await timeHttp(`${api.base}${path}`, owner.session);
    add({
      name,
      path,
      p50: timed.p50,
      max: timed.max,
      runs: timed.runs,
      pass: timed.p50 < LIMIT_MS,
      raw: raw ? await raw() : null,
    });
    return timed.body;
  };

  const first = await http('activity, first page', '/api/v1/usage/me/activity');
  if (!first.data.nextCursor) throw new Error('activity returned no next page');
  // A page about six months back: the cursor the previous page would have handed out.
  const {
    rows: [deep],
  } = await db.query(
    `SELECT started_at, id FROM usage_records WHERE user_id = $1 AND started_at < now() - interval '182 days' ORDER BY started_at DESC, id DESC LIMIT 1`,
    [owner.userId],
  );
  const cursor = Buffer.from(`${deep.started_at.toISOString()}|${deep.id}`).toString('base64url');
  await http('activity, a page six months back (cursor)', `/api/v1/usage/me/activity?cursor=${cursor}`);

  for (const days of [30, 365]) {
    const from = new Date(now.getTime() - days * DAY_MS);
    for (const groupBy of ['day', 'model', 'key', 'app']) {
      const query = `from=${from.toISOString()}&to=${now.toISOString()}&groupBy=${groupBy}`;
      await http(`analytics by ${groupBy}, ${days} days`, `/api/v1/usage/me/analytics?${query}`, () =>
        timeSql(db, rawAnalyticsSql(groupBy), [owner.userId, from, now]),
      );
    }
  }
  const today = new Date(Math.floor(now.getTime() / DAY_MS) * DAY_MS);
  for (const days of [30, 365]) {
    const start = new Date(today.getTime() - (days - 1) * DAY_MS).toISOString().slice(0, 10);
    const body = await http(
      `app usage (all its users), ${days} days`,
      `/api/v1/oauth2/clients/${owner.app.id}/usage?startDate=${start}&endDate=${today.toISOString().slice(0, 10)}`,
      () => timeSql(db, RAW_CLIENT_SQL, [owner.app.clientId, new Date(start), new Date(today.getTime() + DAY_MS)]),
    );
    if (days === 365)
      log(`    (${body.data.requests.toLocaleString('en')} calls by ${body.data.users.toLocaleString('en')} users)`);
  }
  return results;
}

// ---- the report ---------------------------------------------------------------------------------------------

function renderDoc({ machine, started, counts, seedSeconds, results }) {
  const ms = (value) => (value >= 1000 ? `${(value / 1000).toFixed(2)} s` : `${value.toFixed(1)} ms`);
  const rows = results.map(
    (r) =>
      `| ${r.name} | ${ms(r.p50)} | ${ms(r.max)} | ${r.pass ? 'PASS' : 'FAIL'} | ${r.raw ? `${ms(r.raw.p50)} (max ${ms(r.raw.max)})` : '—'} |`,
  );
  return `# Usage analytics at 10 million records

Generated by \`npm run bench:analytics\` (\`tools/bench/analytics.mjs\`) on ${started.toISOString().slice(0, 10)}; do not edit by hand.
How usage data is stored and maintained: [operations.md, "Usage data"](operations.md#usage-data).

## Machine and data

| | |
|---|---|
| Machine | ${machine.cores} cores (${machine.cpu}), ${machine.memGb.toFixed(0)} GB, ${machine.kernel} |
| Node / PostgreSQL | ${machine.node} / ${machine.postgres} |
| Commit | ${machine.commit} |
| usage_records | ${counts.records.toLocaleString('en')} rows in ${counts.partitions} monthly partitions (plus the DEFAULT one, empty), ${counts.months} months of calls |
| Rollups | usage_daily ${counts.rollups.toLocaleString('en')} rows; usage_app_daily ${counts.appDaily.toLocaleString('en')}; usage_app_users ${counts.appUsers.toLocaleString('en')} |
| Heaviest user | ${counts.heavy.toLocaleString('en')} records (30 %); two more heavy users (15 %, 10 %) and ${LIGHT_USERS.toLocaleString('en')} light users (45 %) |
| Seeding | ${seedSeconds.toFixed(0)} s (one INSERT … SELECT generate_series per ${CHUNK.toLocaleString('en')} records with the indexes dropped, then the indexes rebuilt and the rollups computed in one GROUP BY) |

## Endpoints, over HTTP, for the heaviest user

Each figure is the wall time of a \`GET\` against the built API (\`apps/api/dist/main.js\`, \`NODE_ENV=production\`) on the same machine,
${RUNS} runs after one warm-up. **PASS** means the median is under ${LIMIT_MS} ms. Windows end at the moment of the run, so they are not
day-aligned: analytics read whole days from \`usage_daily\` and the two partial days at the edges from \`usage_records\`. The last
column is the same aggregate computed from the raw \`usage_records\` rows alone (as before the rollups), straight over SQL without
HTTP, ${RAW_RUNS} runs.

| Endpoint | p50 | max | < ${LIMIT_MS} ms | Raw rows only, p50 |
|---|---|---|---|---|
${rows.join('\n')}

Activity is a keyset query on \`usage_records\` by \`(user_id, started_at DESC, id DESC)\`; its cursor also bounds \`started_at\`, so the
months after it are pruned. The app's usage covers all its users (count of distinct users included); it reads \`usage_app_daily\`
(per app, day and model) and \`usage_app_users\` (per app, user and month, a bit per active day), since \`usage_daily\` holds a row per
user and day, which for an app with thousands of users is hundreds of thousands of rows a year.
`;
}

// ---- go -----------------------------------------------------------------------------------------------------

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
  };
  try {
    machine.postgres = (await admin('SHOW server_version')).rows[0].server_version;
  } catch (error) {
    throw new Error(
      `this bench needs a PostgreSQL server (DATABASE_URL or BENCH_PG_URL, default ${ADMIN_URL}): ${error.message}`,
      { cause: error },
    );
  }
  log(
    `Usage analytics benchmark — ${ROWS.toLocaleString('en')} records, ${machine.cores} cores, PostgreSQL ${machine.postgres}`,
  );
  await admin(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
  await admin(`CREATE DATABASE ${DB}`);
  let api = null;
  let db = null;
  try {
    api = await startApi();
    const owner = await createOwner(api.base);
    db = await pgClient(scratchUrl());
    log('seeding');
    const seedSeconds = await seed(db, owner);
    const count = async (sql, params = []) => Number((await db.query(sql, params)).rows[0].n);
    const counts = {
      records: await count(`SELECT count(*) AS n FROM usage_records`),
      rollups: await count(`SELECT count(*) AS n FROM usage_daily`),
      appDaily: await count(`SELECT count(*) AS n FROM usage_app_daily`),
      appUsers: await count(`SELECT count(*) AS n FROM usage_app_users`),
      heavy: await count(`SELECT count(*) AS n FROM usage_records WHERE user_id = $1`, [owner.userId]),
      partitions: await count(
        `SELECT count(*) AS n FROM pg_inherits WHERE inhparent = 'usage_records'::regclass AND inhrelid <> 'usage_records_default'::regclass`,
      ),
      months: await count(
        `SELECT count(DISTINCT date_trunc('month', started_at AT TIME ZONE 'UTC')) AS n FROM usage_records`,
      ),
    };
    log(`timing (${RUNS} runs each after a warm-up; PASS: median under ${LIMIT_MS} ms)`);
    const results = await measure(api, db, owner);
    const failed = results.filter((r) => r.pass === false);
    if (ROWS === FULL_ROWS || process.env.BENCH_DOC) {
      writeFileSync(DOC, renderDoc({ machine, started, counts, seedSeconds, results }));
      log(`wrote ${relative(ROOT, DOC)}`);
    } else log(`(BENCH_ROWS=${ROWS}: ${relative(ROOT, DOC)} not written)`);
    log(
      failed.length
        ? `FAIL: ${failed.map((r) => r.name).join('; ')}`
        : `PASS: every endpoint answered in under ${LIMIT_MS} ms (median)`,
    );
    return failed.length ? 1 : 0;
  } finally {
    await db?.end();
    if (api) await stopChild(api.child);
    if (!process.env.BENCH_KEEP) {
      await admin(`DROP DATABASE IF EXISTS ${DB} WITH (FORCE)`);
      rmSync(work, { recursive: true, force: true });
    } else log(`kept database ${DB} and ${work}`);
  }
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
