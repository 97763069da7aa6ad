import { ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BudgetService } from '../src/modules/usage/ledger/budget.service';
import { FakeOpenAI } from './support/fake-openai';
import { startTestApp, TestApp } from './support/test-app';
import { createTestDatabase, TestDatabase } from './support/test-database';

const ROOT = join(__dirname, '..', '..', '..');

/** Starts the real service (its main.ts) as a separate process and resolves with its address. */
function startServiceProcess(env: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, ['--conditions=development', '-r', '@swc-node/register', join(ROOT, 'apps/api/src/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, NODE_OPTIONS: '', NO_COLOR: '1', SWC_NODE_PROJECT: join(ROOT, 'apps/api/tsconfig.spec.json'), PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'log', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    const timer = setTimeout(() => reject(new Error(`service did not start:\n${output}`)), 45_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/[0-9.:]+)/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ child, url: match[1] });
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`service exited with ${code}:\n${output}`)));
  });
}

describe('an instance killed with SIGKILL in the middle of a call', () => {
  const fake = new FakeOpenAI();
  let dir: string;
  let database: TestDatabase;
  let survivor: TestApp | undefined;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    await fake.start();
    dir = mkdtempSync(join(tmpdir(), 'sy-crash-'));
    writeFileSync(
      join(dir, 'models.yaml'),
      `providers:\n  - { id: fake, type: openai, baseUrl: "${fake.url}", apiKey: x }\n` +
        `models:\n  - { id: slow-stream, provider: fake, type: text, methods: [chat_completions], pricing: { inputPerMTok: 1, outputPerMTok: 2 } }\n`,
    );
    // On a server both processes share a fresh database; embedded, the survivor takes over the dead one's DATA_DIR.
    database = process.env.DATABASE_URL ? await createTestDatabase() : { databaseUrl: null, dataDir: join(dir, 'data'), drop: async () => undefined };
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    await survivor?.close();
    await database?.drop();
    await fake.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('leaves its reservation held, and another instance settles it from what was recorded once it expires', async () => {
    const started = await startServiceProcess({
      MODELS_CONFIG: join(dir, 'models.yaml'),
      SIGNUP_CREDIT: '1',
      AUTH_RATE_LIMIT_PER_IP: '1000',
      ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : { DATA_DIR: database.dataDir }),
    });
    child = started.child;
    const post = (path: string, body: unknown, token?: string) =>
      fetch(started.url + path, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) }, body: JSON.stringify(body) });
    const session = ((await (await post('/api/v1/auth/register', { email: 'crash@example.com', password: 'crash password' })).json()) as { data: { token: string } }).data.token;
    const key = ((await (await post('/api/v1/keys', { name: 'k' }, session)).json()) as { data: { key: string } }).data.key;

    const response = await post('/v1/chat/completions', { model: 'slow-stream', stream: true, messages: [{ role: 'user', content: 'count slowly please' }] }, key);
    const reader = response.body!.getReader();
    let received = '';
    while ((received.match(/word/g) ?? []).length < 2) received += new TextDecoder().decode((await reader.read()).value);

    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await reader.cancel().catch(() => undefined);

    survivor = await startTestApp({ signupCredit: 0 }, database);
    const query = (sql: string) => survivor!.database.dataSource.query(sql);
    const [open] = await query(`SELECT id, amount_micros::bigint AS held, input_estimate_micros::bigint AS input FROM reservations WHERE status = 'open'`);
    expect(Number(open.held)).toBeGreaterThan(0);
    const [before] = await query(`SELECT reserved_micros::bigint AS reserved, debits_micros::bigint AS debits FROM balances`);
    expect(Number(before.reserved)).toBe(Number(open.held));

    // Nothing settles it before it expires (calls on live instances extend theirs every minute; this one is dead).
    expect(await survivor.app.get(BudgetService).sweepExpired()).toBe(0);
    await query(`UPDATE reservations SET expires_at = now() - interval '1 second' WHERE status = 'open'`);
    expect(await survivor.app.get(BudgetService).sweepExpired()).toBe(1);

    const [after] = await query(`SELECT reserved_micros::bigint AS reserved, debits_micros::bigint AS debits, credits_micros::bigint AS credits FROM balances`);
    expect({ reserved: Number(after.reserved), debits: Number(after.debits) }).toEqual({ reserved: 0, debits: Number(open.input) });
    const [ledger] = await query(`SELECT COALESCE(-sum(amount_micros) FILTER (WHERE amount_micros < 0), 0)::bigint AS debits FROM ledger_entries`);
    expect(Number(ledger.debits)).toBe(Number(after.debits));
    const [settled] = await query(`SELECT status, reason FROM reservations WHERE id = '${open.id}'`);
    expect(settled).toEqual({ status: Number(open.input) > 0 ? 'settled' : 'released', reason: 'expired' });
  });
});
