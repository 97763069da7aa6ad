import { randomUUID } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { Database } from '../../database/database';
import { createTestDatabase, TestDatabase } from '../../../test/support/test-database';

/**
 * The limits of Spaces that the database itself keeps (docs/spaces.md, "limits"), tested on it directly: the
 * space_app_counts trigger (100 apps per user) and the unique indexes on active jobs (one per app; one per user
 * and slot). spaces.integration-spec.ts shows the same limits through the API under concurrency.
 */
describe('space limits in the database', () => {
  let testDatabase: TestDatabase;
  let database: Database;
  const query = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> =>
    database.dataSource.query(sql, params);

  /** The SQLSTATE and constraint a statement was refused with, or null when it ran. */
  const refusal = (statement: Promise<unknown>) =>
    statement.then(
      () => null,
      (error: { code?: string; constraint?: string; driverError?: { code?: string; constraint?: string } }) => {
        const cause = error.driverError ?? error;
        return { code: cause.code, constraint: cause.constraint };
      },
    );
  const newUser = async () =>
    (
      await query<{ id: string }>(`INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id`, [
        `spaces-${randomUUID()}@example.com`,
      ])
    )[0].id;
  const insertApps = (userId: string, from: number, to: number) =>
    query(
      `INSERT INTO space_apps (user_id, slug, title, prompt, models, status)
       SELECT $1, 'app-' || n, 'App', 'a page', ARRAY['html-page'], 'failed' FROM generate_series($2::int, $3::int) AS n`,
      [userId, from, to],
    );
  const countOf = async (userId: string) =>
    (await query<{ apps: number }>('SELECT apps FROM space_app_counts WHERE user_id = $1', [userId]))[0]?.apps;
  const appsOf = async (userId: string) =>
    (await query<{ apps: number }>('SELECT count(*)::int AS apps FROM space_apps WHERE user_id = $1', [userId]))[0]
      .apps;
  const newJob = (appId: string, userId: string, slot: number | null) =>
    query<{ id: string }>(
      `INSERT INTO space_jobs (app_id, user_id, kind, prompt, models, slot) VALUES ($1, $2, 'generate', 'a page', ARRAY['html-page'], $3) RETURNING id`,
      [appId, userId, slot],
    );
  const appIds = async (userId: string) =>
    (await query<{ id: string }>('SELECT id FROM space_apps WHERE user_id = $1 ORDER BY slug', [userId])).map(
      (row) => row.id,
    );

  beforeAll(async () => {
    // The refusals below are the point; TypeORM would log each one as a failed query.
    Logger.overrideLogger(['fatal']);
    testDatabase = await createTestDatabase();
    database = await Database.open(
      {
        databaseUrl: testDatabase.databaseUrl,
        dataDir: testDatabase.dataDir,
        dbPoolSize: 6,
      },
      [],
      testDatabase.snapshot,
    );
  });
  afterAll(async () => {
    await database?.close();
    await testDatabase?.drop();
  });

  it('refuses a user’s 101st app (check_violation space_app_limit), counts deletions down, and counts each user apart', async () => {
    const [user, other] = [await newUser(), await newUser()];
    await insertApps(user, 1, 100);
    expect(await countOf(user)).toBe(100);
    expect(await refusal(insertApps(user, 101, 101))).toEqual({ code: '23514', constraint: 'space_app_limit' });
    // A batch that would cross the limit inserts none of its rows.
    expect(await refusal(insertApps(other, 1, 101))).toEqual({ code: '23514', constraint: 'space_app_limit' });
    expect(await appsOf(other)).toBe(0);
    await insertApps(other, 1, 3);
    expect([await countOf(other), await appsOf(user)]).toEqual([3, 100]);
    await query(`DELETE FROM space_apps WHERE user_id = $1 AND slug = 'app-1'`, [user]);
    expect(await countOf(user)).toBe(99);
    expect(await refusal(insertApps(user, 101, 101))).toBeNull();
    expect([await countOf(user), await appsOf(user)]).toEqual([100, 100]);
  });

  it('lets exactly one of five concurrent inserts take a user’s 100th place', async () => {
    const user = await newUser();
    await insertApps(user, 1, 99);
    const outcomes = await Promise.all([100, 101, 102, 103, 104].map((n) => refusal(insertApps(user, n, n))));
    expect(outcomes.filter((outcome) => outcome === null)).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome !== null)).toEqual(
      Array.from({ length: 4 }, () => ({ code: '23514', constraint: 'space_app_limit' })),
    );
    expect([await countOf(user), await appsOf(user)]).toEqual([100, 100]);
  });

  it('holds each job slot of a user once among queued and running jobs (slots from 1), and one active job per app', async () => {
    const [user, other] = [await newUser(), await newUser()];
    await insertApps(user, 1, 3);
    await insertApps(other, 1, 1);
    const [first, second, third] = await appIds(user);
    const [{ id: job }] = await newJob(first, user, 1);
    expect(await refusal(newJob(second, user, 1))).toEqual({ code: '23505', constraint: 'space_jobs_user_slot_key' });
    // Another user's slot 1 is theirs.
    expect(await refusal(newJob((await appIds(other))[0], other, 1))).toBeNull();
    expect(await refusal(newJob(second, user, 0))).toMatchObject({ code: '23514' });
    // One app, one active job, whatever slot the second one picked.
    expect(await refusal(newJob(first, user, 2))).toEqual({ code: '23505', constraint: 'space_jobs_active_app_key' });
    await query(`UPDATE space_jobs SET status = 'running' WHERE id = $1`, [job]);
    expect(await refusal(newJob(second, user, 1))).toEqual({ code: '23505', constraint: 'space_jobs_user_slot_key' });
    // A finished job frees its slot and its app.
    await query(`UPDATE space_jobs SET status = 'done' WHERE id = $1`, [job]);
    expect(await refusal(newJob(second, user, 1))).toBeNull();
    expect(await refusal(newJob(first, user, 2))).toBeNull();
    expect(await refusal(newJob(third, user, 3))).toBeNull();
  });
});
