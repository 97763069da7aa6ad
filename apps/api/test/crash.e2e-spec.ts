import type { ChildProcess } from 'node:child_process';
import { ReservationService } from '../src/modules/usage';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeChatCatalog, FakeOpenAI } from './support/fake-openai';
import { startServiceProcess } from './support/service-process';
import { startTestApp, TestApp } from './support/test-app';
import { createRestartableDatabase, TestDatabase } from './support/test-database';

describe('an instance killed with SIGKILL in the middle of a call', () => {
  const fake = new FakeOpenAI();
  let dir: string;
  let database: TestDatabase;
  let survivor: TestApp | undefined;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    await fake.start();
    dir = mkdtempSync(join(tmpdir(), 'sy-crash-'));
    writeFileSync(join(dir, 'models.yaml'), fakeChatCatalog(fake.url, ['slow-stream']));
    // On a server both processes share a fresh database; embedded, the survivor takes over the dead one's DATA_DIR.
    database = await createRestartableDatabase(dir);
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
      fetch(started.url + path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify(body),
      });
    const session = (
      (await (
        await post('/api/v1/auth/register', { email: 'crash@example.com', password: 'crash password' })
      ).json()) as { data: { token: string } }
    ).data.token;
    const key = ((await (await post('/api/v1/keys', { name: 'k' }, session)).json()) as { data: { key: string } }).data
      .key;

    const response = await post(
      '/v1/chat/completions',
      { model: 'slow-stream', stream: true, messages: [{ role: 'user', content: 'count slowly please' }] },
      key,
    );
    const reader = response.body!.getReader();
    let received = '';
    while ((received.match(/word/g) ?? []).length < 2)
      received += new TextDecoder().decode((await reader.read()).value);

    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    await reader.cancel().catch(() => undefined);

    survivor = await startTestApp({ signupCredit: 0 }, database);
    const query = (sql: string) => survivor!.database.dataSource.query(sql);
    const [open] = await query(
      `SELECT id, amount_micros::bigint AS held, input_estimate_micros::bigint AS input FROM reservations WHERE status = 'open'`,
    );
    expect(Number(open.held)).toBeGreaterThan(0);
    const [before] = await query(
      `SELECT reserved_micros::bigint AS reserved, debits_micros::bigint AS debits FROM balances`,
    );
    expect(Number(before.reserved)).toBe(Number(open.held));

    // Nothing settles it before it expires (calls on live instances extend theirs every minute; this one is dead).
    expect(await survivor.app.get(ReservationService).sweepExpired()).toBe(0);
    await query(`UPDATE reservations SET expires_at = now() - interval '1 second' WHERE status = 'open'`);
    expect(await survivor.app.get(ReservationService).sweepExpired()).toBe(1);

    const [after] = await query(
      `SELECT reserved_micros::bigint AS reserved, debits_micros::bigint AS debits, credits_micros::bigint AS credits FROM balances`,
    );
    expect({ reserved: Number(after.reserved), debits: Number(after.debits) }).toEqual({
      reserved: 0,
      debits: Number(open.input),
    });
    const [ledger] = await query(
      `SELECT COALESCE(-sum(amount_micros) FILTER (WHERE amount_micros < 0), 0)::bigint AS debits FROM ledger_entries`,
    );
    expect(Number(ledger.debits)).toBe(Number(after.debits));
    const [settled] = await query(`SELECT status, reason FROM reservations WHERE id = '${open.id}'`);
    expect(settled).toEqual({ status: Number(open.input) > 0 ? 'settled' : 'released', reason: 'expired' });
  });
});
