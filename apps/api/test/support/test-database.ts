import { createHash, randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, openAsBlob, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { Client } from 'pg';
import { Database } from '../../src/database/database';

/**
 * Where integration tests keep their data: embedded PostgreSQL in memory by default, or, when DATABASE_URL is
 * set (CI's second pass), a fresh database on that server per test file, dropped afterwards, so suites never
 * see each other's rows.
 *
 * Migrating costs seconds, so it happens once per set of migrations, not once per test file (docs/architecture.md,
 * "Tests"): the embedded database starts from a snapshot of a migrated one (a PGlite data folder dump kept under the
 * system's temporary folder), and a server database is created as a copy of a migrated template database
 * (`CREATE DATABASE … TEMPLATE sy_template_<hash>`). Both are named by a hash of the migrations, so a changed
 * migration makes a new template; the app still runs its migrations on start, and finds none pending.
 */
export interface TestDatabase {
  databaseUrl: string | null;
  dataDir: string;
  /** The migrated embedded database to start from (memory:// only), or null to start empty. */
  snapshot?: Blob | null;
  drop(): Promise<void>;
}

export interface TestDatabaseOptions {
  /** Start from an empty database and let the app migrate it (the tests of the migrations themselves). */
  fresh?: boolean;
}

export async function createTestDatabase(options: TestDatabaseOptions = {}): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl)
    return {
      databaseUrl: null,
      dataDir: 'memory://',
      snapshot: options.fresh ? null : await embeddedTemplate(),
      drop: async () => undefined,
    };
  // SY_TEST_KEEP_DATABASES=<prefix>: the databases are named with it and kept, for CI to reconcile what the money
  // suites left (.ci/run); a prefix of lower-case letters, digits and underscores. With SY_TEST_KEEP_FILES=<regular
  // expression>, only the databases of the test files whose path it matches (the others are dropped as usual).
  const keepFiles = process.env.SY_TEST_KEEP_FILES;
  const testPath = typeof expect === 'undefined' ? '' : (expect.getState().testPath ?? '');
  const keep = keepFiles && !new RegExp(keepFiles).test(testPath) ? undefined : process.env.SY_TEST_KEEP_DATABASES;
  if (keep !== undefined && !/^[a-z_][a-z0-9_]{0,40}$/.test(keep))
    throw new Error('SY_TEST_KEEP_DATABASES must be a database name prefix');
  const name = `${keep ?? 'sy_test_'}${randomBytes(6).toString('hex')}`;
  const template = options.fresh ? null : await serverTemplate(serverUrl);
  await withClient(serverUrl, (client) =>
    client.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`),
  );
  return {
    databaseUrl: databaseOn(serverUrl, name),
    dataDir: 'memory://',
    snapshot: null,
    drop: async () => {
      if (!keep) await withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * A database that outlives the processes using it, for restart and crash tests: a fresh database on the server,
 * or embedded data on disk under `dir` (the next process takes over the DATA_DIR of one that died). The embedded
 * folder starts as a copy of the migrated template too, as the server's database does: the first process to open it
 * finds it initialised and migrated instead of running initdb and every migration on disk (seconds of CPU). Opening
 * an empty DATA_DIR is `database.integration-spec.ts`'s own test.
 */
export async function createRestartableDatabase(dir: string): Promise<TestDatabase> {
  if (process.env.DATABASE_URL) return createTestDatabase();
  const dataDir = join(dir, 'data');
  // EmbeddedPostgres keeps PGlite's files in DATA_DIR/pglite; PGlite unpacks the dump there (on disk: NodeFS).
  const folder = join(dataDir, 'pglite');
  mkdirSync(folder, { recursive: true });
  const seeded = await PGlite.create({ dataDir: folder, loadDataDir: await embeddedTemplate() });
  await seeded.close();
  return { databaseUrl: null, dataDir, snapshot: null, drop: async () => undefined };
}

const root = join(__dirname, '../../../..');

/** A hash of what decides a migrated database's contents: the migrations, how they run, and PGlite's version. */
function migrationsHash(): string {
  const hash = createHash('sha256');
  const migrations = join(root, 'apps/api/src/database/migrations');
  for (const file of readdirSync(migrations).sort()) hash.update(file).update(readFileSync(join(migrations, file)));
  hash.update(readFileSync(join(root, 'apps/api/src/database/database.ts')));
  hash.update(readFileSync(join(root, 'node_modules/@electric-sql/pglite/package.json')));
  hash.update('the embedded snapshot leaves out the template databases'); // older snapshots held them
  return hash.digest('hex').slice(0, 16);
}

let embeddedSnapshot: Promise<Blob> | undefined;

/**
 * The migrated embedded database (a PGlite data folder dump), built by the first test file that needs it and kept as
 * a file for the rest; `PGlite.create({ loadDataDir })` starts from it in about a third of initdb's CPU.
 */
export function embeddedTemplate(): Promise<Blob> {
  embeddedSnapshot ??= (async () => {
    const folder = join(tmpdir(), 'switchyard-test-templates');
    const file = join(folder, `pglite-${migrationsHash()}.tar`);
    if (existsSync(file)) return openAsBlob(file);
    const database = await Database.open({ databaseUrl: null, dataDir: 'memory://', dbPoolSize: 2 });
    const templates: { oid: number }[] = await database.dataSource.query(
      `SELECT oid FROM pg_database WHERE datname IN ('template0', 'template1')`,
    );
    const dump = Buffer.from(await (await database.closeToSnapshot()).arrayBuffer());
    const slim = withoutFolders(
      dump,
      templates.map(({ oid }) => `base/${oid}`),
    );
    // Written aside and linked in place: a whole file or none, and the first one made is never replaced. A worker
    // that opened it (openAsBlob reads it again later, and fails if the file changed meanwhile: "The blob could not
    // be read") must not see a second worker's build renamed over it.
    mkdirSync(folder, { recursive: true });
    const partial = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, slim);
    try {
      linkSync(partial, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(partial, { force: true });
    }
    return new Blob([slim]);
  })();
  return embeddedSnapshot;
}

/**
 * A tarball (ustar, as PGlite's dumpDataDir writes it) without the entries under `folders` (paths inside the data
 * folder). The test snapshot leaves out `template0` and `template1`: 15 of its 43 MB that every embedded start
 * unpacked into PGlite's memory (about 0.15 s of CPU per test file) for databases no test opens. Their rows in
 * `pg_database` stay; connecting to either would fail, and nothing embedded does (a server database is copied
 * with `CREATE DATABASE … TEMPLATE`, on the server).
 */
export function withoutFolders(tar: Buffer, folders: string[]): Buffer {
  const BLOCK = 512;
  const kept: Buffer[] = [];
  const field = (header: Buffer, start: number, length: number) =>
    header
      .subarray(start, start + length)
      .toString('latin1')
      .replace(/\0.*$/s, '');
  let offset = 0;
  while (offset + BLOCK <= tar.length) {
    const header = tar.subarray(offset, offset + BLOCK);
    if (header.every((byte) => byte === 0)) break; // the end-of-archive blocks
    const name = field(header, 0, 100);
    const prefix = field(header, 345, 155);
    const path = (prefix ? `${prefix}/${name}` : name).replace(/^\.?\//, '');
    const size = parseInt(field(header, 124, 12).trim() || '0', 8);
    const end = offset + BLOCK + Math.ceil(size / BLOCK) * BLOCK;
    if (!folders.some((folder) => path === folder || path === `${folder}/` || path.startsWith(`${folder}/`)))
      kept.push(tar.subarray(offset, end));
    offset = end;
  }
  kept.push(Buffer.alloc(BLOCK * 2));
  return Buffer.concat(kept);
}

// Any fixed number: the same in every process that may build the template on this server.
const TEMPLATE_LOCK_KEY = 7_460_912_327;
let serverTemplateName: Promise<string> | undefined;

/**
 * The migrated template database on the server, built once under an advisory lock (parallel workers and parallel
 * jest runs wait for the first), then only copied: nothing ever connects to it again, which CREATE DATABASE …
 * TEMPLATE requires.
 */
function serverTemplate(serverUrl: string): Promise<string> {
  serverTemplateName ??= withClient(serverUrl, async (client) => {
    const name = `sy_template_${migrationsHash()}`;
    const exists = async () =>
      (await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount === 1;
    if (await exists()) return name;
    await client.query('SELECT pg_advisory_lock($1)', [TEMPLATE_LOCK_KEY]);
    try {
      if (await exists()) return name;
      const building = `${name}_build`;
      await client.query(`DROP DATABASE IF EXISTS ${building} WITH (FORCE)`);
      await client.query(`CREATE DATABASE ${building}`);
      const database = await Database.open({
        databaseUrl: databaseOn(serverUrl, building),
        dataDir: 'memory://',
        dbPoolSize: 2,
      });
      await database.close();
      await client.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
      return name;
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [TEMPLATE_LOCK_KEY]);
    }
  });
  return serverTemplateName;
}

function databaseOn(serverUrl: string, name: string): string {
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

async function withClient<T>(url: string, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
