import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestDatabase, TestDatabase } from '../../test/support/test-database';
import { Database } from './database';
import { DataDirInUseError, EmbeddedPostgres } from './embedded-postgres';
import { batchQuery, hotQuery, pgArray } from './hot-path';

const embeddedOnly = process.env.DATABASE_URL ? describe.skip : describe;

describe(`the database (${process.env.DATABASE_URL ? 'PostgreSQL server' : 'embedded PGlite'})`, () => {
  let testDatabase: TestDatabase;
  let database: Database;

  beforeAll(async () => {
    // From empty: these tests are the migrations' own, so they run every one (other files copy a migrated template).
    testDatabase = await createTestDatabase({ fresh: true });
    database = await Database.open({
      databaseUrl: testDatabase.databaseUrl,
      dataDir: testDatabase.dataDir,
      dbPoolSize: 10,
    });
    await database.dataSource.query(`CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL)`);
    await database.dataSource.query(`INSERT INTO counters VALUES (1, 0), (2, 0)`);
  });
  afterAll(async () => {
    await database?.close();
    await testDatabase?.drop();
  });

  it('reads back every value of a batch sent as array literals (pgArray), and prepares hot statements per connection', async () => {
    const texts = ['plain', '', 'with "quotes"', 'back\\slash', 'comma, {braces}', 'NULL', 'ünï ✓', null];
    const numbers = [0, -5, 9007199254740991, null];
    const flags = [true, false, null];
    const at = new Date('2026-11-24T10:11:12.345Z');
    for (let round = 0; round < 3; round += 1) {
      const [row] = await hotQuery<{ t: (string | null)[]; n: (string | null)[]; b: (boolean | null)[]; d: Date[] }>(
        database.dataSource,
        'sy_test_arrays',
        'SELECT $1::text[] AS t, $2::bigint[] AS n, $3::boolean[] AS b, $4::timestamptz[] AS d',
        [pgArray(texts), pgArray(numbers), pgArray(flags), pgArray([at.toISOString()])],
      );
      expect(row.t).toEqual(texts);
      expect(row.n).toEqual(['0', '-5', '9007199254740991', null]);
      expect(row.b).toEqual(flags);
      expect(row.d.map((d) => new Date(d).toISOString())).toEqual([at.toISOString()]);
    }
  });

  it('plans the batched writes by key however small a table is when they are planned (no sequential scan)', async () => {
    // A plan is kept until the table is analysed again: made while the table was small, it would read the whole
    // table for every batch once it has grown (docs/database.md).
    // A thousand rows on a few pages, analysed: a batch of 100 keys is cheaper to find by reading them all.
    await database.dataSource.query(`CREATE TABLE keyed (id int PRIMARY KEY, v int NOT NULL)`);
    await database.dataSource.query(`INSERT INTO keyed SELECT i, i FROM generate_series(1, 1000) AS i`);
    await database.dataSource.query(`ANALYZE keyed`);
    const rows = await batchQuery<{ 'QUERY PLAN': string }>(
      database.dataSource,
      'sy_test_plan',
      `EXPLAIN SELECT k.v FROM keyed k JOIN unnest(ARRAY(SELECT generate_series(1, 100))) AS t(id) ON k.id = t.id`,
      [],
    );
    const plan = rows.map((row) => row['QUERY PLAN']).join('\n');
    expect(plan).toMatch(/Index (Only )?Scan/);
    expect(plan).not.toMatch(/Seq Scan on keyed/);
  });

  it('loses no update among 40 concurrent SELECT … FOR UPDATE transactions', async () => {
    await Promise.all(
      Array.from({ length: 40 }, () =>
        database.dataSource.transaction(async (manager) => {
          const [row] = await manager.query(`SELECT value FROM counters WHERE id = 1 FOR UPDATE`);
          await new Promise((resolve) => setImmediate(resolve));
          await manager.query(`UPDATE counters SET value = $1 WHERE id = 1`, [row.value + 1]);
        }),
      ),
    );
    const [row] = await database.dataSource.query(`SELECT value FROM counters WHERE id = 1`);
    expect(row.value).toBe(40);
  });

  it('keeps a rolled-back transaction invisible while another commits', async () => {
    const failing = database.dataSource.transaction(async (manager) => {
      await manager.query(`UPDATE counters SET value = value + 100 WHERE id = 2`);
      await new Promise((resolve) => setTimeout(resolve, 20));
      throw new Error('roll back');
    });
    const committing = database.dataSource.transaction((manager) =>
      manager.query(`UPDATE counters SET value = value + 1 WHERE id = 2`),
    );
    await expect(failing).rejects.toThrow('roll back');
    await committing;
    const [row] = await database.dataSource.query(`SELECT value FROM counters WHERE id = 2`);
    expect(row.value).toBe(1);
  });

  it('has applied every migration, and applying them again changes nothing', async () => {
    const before = await database.dataSource.query(`SELECT name FROM migrations ORDER BY id`);
    expect(before.map((m: { name: string }) => m.name)).toEqual(database.dataSource.migrations.map((m) => m.name));
    await database.migrate();
    expect(await database.dataSource.query(`SELECT name FROM migrations ORDER BY id`)).toEqual(before);
  });

  it('undoes and redoes the latest migration', async () => {
    // Whichever migration is the latest: its record goes and what it made with it, then both come back.
    const state = async () => ({
      migrations: (await database.dataSource.query(`SELECT name FROM migrations ORDER BY id`)).map(
        (m: { name: string }) => m.name,
      ) as string[],
      relations: (
        await database.dataSource.query(
          `SELECT relname FROM pg_class WHERE relnamespace = 'public'::regnamespace ORDER BY relname`,
        )
      ).map((r: { relname: string }) => r.relname) as string[],
      columns: (
        await database.dataSource.query(
          `SELECT table_name || '.' || column_name AS c FROM information_schema.columns WHERE table_schema = 'public' ORDER BY 1`,
        )
      ).map((r: { c: string }) => r.c) as string[],
      functions: (
        await database.dataSource.query(
          `SELECT proname || ':' || md5(prosrc) AS f FROM pg_proc WHERE pronamespace = 'public'::regnamespace ORDER BY 1`,
        )
      ).map((r: { f: string }) => r.f) as string[],
    });
    const before = await state();
    await database.dataSource.undoLastMigration();
    const undone = await state();
    expect(undone.migrations).toEqual(before.migrations.slice(0, -1));
    // It changed something: tables, indexes, columns or functions.
    expect(undone).not.toEqual({ ...before, migrations: undone.migrations });
    await database.migrate();
    expect(await state()).toEqual(before);
  });

  it('answers a readiness ping', async () => {
    expect(await database.ping()).toBe(true);
  });
});

embeddedOnly('the embedded database on disk', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'sy-data-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('keeps its rows across a restart and lets only one process own the folder', async () => {
    const first = await Database.open({ databaseUrl: null, dataDir, dbPoolSize: 2 });
    try {
      await first.dataSource.query(`INSERT INTO users (email, password_hash) VALUES ('kept@example.com', 'x')`);
      await expect(EmbeddedPostgres.start(dataDir)).rejects.toBeInstanceOf(DataDirInUseError);
    } finally {
      await first.close();
    }
    const second = await Database.open({ databaseUrl: null, dataDir, dbPoolSize: 2 });
    try {
      const rows = await second.dataSource.query(`SELECT email FROM users`);
      expect(rows).toEqual([{ email: 'kept@example.com' }]);
    } finally {
      await second.close();
    }
  });

  it('serves its folder with a 32 MB buffer pool (its WebAssembly memory stays at 128 MB)', async () => {
    const db = await Database.open({ databaseUrl: null, dataDir, dbPoolSize: 2 });
    try {
      expect(await db.dataSource.query('SHOW shared_buffers')).toEqual([{ shared_buffers: '32MB' }]);
    } finally {
      await db.close();
    }
  });
});
