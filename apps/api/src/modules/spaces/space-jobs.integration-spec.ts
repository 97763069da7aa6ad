import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fakeChatCatalog, FakeOpenAI } from '../../../test/support/fake-openai';
import { startServiceProcess } from '../../../test/support/service-process';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { createRestartableDatabase, TestDatabase } from '../../../test/support/test-database';
import { UsageRecorder } from '../usage';
import { SpaceJobsRunner } from './space-jobs.runner';

/**
 * Jobs survive restarts (issue 7): a job cut by a graceful shutdown goes back to the queue, one whose process
 * was killed is taken over, and one interrupted too often fails with a reason. Nothing stays `generating`.
 */
describe('space jobs across restarts', () => {
  const fake = new FakeOpenAI();
  let dir: string;
  let catalogPath: string;
  let database: TestDatabase;
  let app: TestApp | undefined;
  let child: ChildProcess | undefined;

  beforeAll(async () => {
    await fake.start();
    dir = mkdtempSync(join(tmpdir(), 'sy-space-jobs-'));
    catalogPath = join(dir, 'models.yaml');
    writeFileSync(catalogPath, fakeChatCatalog(fake.url, ['html-slow']));
    database = await createRestartableDatabase(dir);
  });
  afterAll(async () => {
    child?.kill('SIGKILL');
    fake.releaseSlowPages();
    await app?.close();
    await database?.drop();
    await fake.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const start = (overrides = {}) =>
    startTestApp({ modelsConfig: catalogPath, signupCredit: 1, ...overrides }, database);

  /** Waits (bounded) until the fake upstream has received `count` page requests. */
  async function upstreamCalls(count: number): Promise<void> {
    const deadline = Date.now() + 15_000;
    while (fake.received.filter((r) => r.path === '/chat/completions').length < count) {
      if (Date.now() > deadline) throw new Error(`the upstream did not receive ${count} calls`);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async function settled(running: TestApp, token: string, slug: string) {
    const deadline = Date.now() + 20_000;
    for (;;) {
      const data = (await running.http(`/api/v1/spaces/me/apps/${slug}`, { token })).body.data;
      if (data.status !== 'generating') return data;
      if (Date.now() > deadline) throw new Error(`${slug} still generating`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  const job = async (running: TestApp, slug: string) =>
    (
      await running.database.dataSource.query(
        `SELECT j.status, j.attempts FROM space_jobs j JOIN space_apps a ON a.id = j.app_id WHERE a.slug = $1`,
        [slug],
      )
    )[0];

  let token = '';
  let userId = '';

  // Each test holds the slow model's pages (its job stays in flight until the test releases them).
  beforeEach(() => {
    fake.slowPageMs = 'held';
  });

  it('hands a job cut by a graceful shutdown back to the queue, and writes the page after the restart', async () => {
    app = await start({ shutdownGraceSeconds: 0 });
    const registered = await app.http('/api/v1/auth/register', {
      body: { email: uniqueEmail('restart'), password: 'restart password' },
    });
    token = registered.body.data.token;
    userId = registered.body.data.user.id;
    await app.http('/api/v1/spaces/handle', {
      method: 'PUT',
      token,
      body: { handle: `restart-${Date.now().toString(36)}` },
    });
    const { slug } = (
      await app.http('/api/v1/spaces/generate', {
        token,
        body: { prompt: 'Survive a restart please', models: ['html-slow'] },
      })
    ).body.data;
    await upstreamCalls(1);
    await app.close();

    // The page is written after the restart as soon as the model answers.
    fake.releaseSlowPages();
    app = await start();
    const ready = await settled(app, token, slug);
    expect(ready).toMatchObject({ status: 'ready', version: 1 });
    expect(await job(app, slug)).toEqual({ status: 'done', attempts: 2 });
    // The cut call delivered nothing and cost nothing; the one that wrote the page was charged once.
    await app.app.get(UsageRecorder).flush();
    const records = await app.database.dataSource.query(
      `SELECT status, cost_micros::int AS cost FROM usage_records WHERE user_id = $1 ORDER BY started_at`,
      [userId],
    );
    expect(records).toEqual([
      { status: 'client_closed', cost: 0 },
      { status: 'success', cost: 120 + 160 },
    ]);
    await app.close();
    app = undefined;
  });

  it('takes over the job of a process killed with SIGKILL, once its lease has run out', async () => {
    const service = await startServiceProcess({
      MODELS_CONFIG: catalogPath,
      SIGNUP_CREDIT: '1',
      ...(database.databaseUrl ? { DATABASE_URL: database.databaseUrl } : { DATA_DIR: database.dataDir }),
    });
    child = service.child;
    const calls = fake.received.filter((r) => r.path === '/chat/completions').length;
    const generated = await fetch(`${service.url}/api/v1/spaces/generate`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ prompt: 'Survive a crash please', models: ['html-slow'] }),
    });
    const { slug } = ((await generated.json()) as { data: { slug: string } }).data;
    await upstreamCalls(calls + 1);
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    child = undefined;

    fake.releaseSlowPages();
    app = await start();
    if (database.databaseUrl) {
      // On a server the job stays the dead instance's until its lease runs out (a minute); skip the wait.
      expect(await job(app, slug)).toEqual({ status: 'running', attempts: 1 });
      await app.database.dataSource.query(
        `UPDATE space_jobs SET lease_until = now() - interval '1 second' WHERE status = 'running'`,
      );
      app.app.get(SpaceJobsRunner).kick();
    }
    expect(await settled(app, token, slug)).toMatchObject({ status: 'ready', version: 1 });
    expect(await job(app, slug)).toEqual({ status: 'done', attempts: 2 });
  });

  it('fails a job interrupted too many times with the reason, rather than leaving it generating', async () => {
    const { slug } = (
      await app!.http('/api/v1/spaces/generate', {
        token,
        body: { prompt: 'Interrupted over and over', models: ['html-slow'] },
      })
    ).body.data;
    const deadline = Date.now() + 10_000;
    while ((await job(app!, slug)).status !== 'running') {
      if (Date.now() > deadline) throw new Error('the job never started');
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    // As if it had been claimed for the third time by an instance that then died.
    await app!.database.dataSource.query(
      `UPDATE space_jobs SET attempts = 3, claimed_by = 'dead-instance', lease_until = now() - interval '1 second' WHERE status = 'running'`,
    );
    app!.app.get(SpaceJobsRunner).kick({ recover: true });
    const failed = await settled(app!, token, slug);
    expect(failed).toMatchObject({
      status: 'failed',
      error: 'The job was interrupted 3 times (the server restarted while it ran); try again',
    });
    expect(await job(app!, slug)).toEqual({ status: 'failed', attempts: 3 });
    const [{ n }] = await app!.database.dataSource.query(
      `SELECT count(*)::int AS n FROM space_apps WHERE status = 'generating'`,
    );
    expect(n).toBe(0);
  });
});
