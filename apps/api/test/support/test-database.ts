import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Client } from 'pg';

/**
 * Where integration tests keep their data: embedded PostgreSQL in memory by default, or, when DATABASE_URL is
 * set (CI's second pass), a fresh database on that server per test file, dropped afterwards, so suites never
 * see each other's rows.
 */
export interface TestDatabase {
  databaseUrl: string | null;
  dataDir: string;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) return { databaseUrl: null, dataDir: 'memory://', drop: async () => undefined };
  // SY_TEST_KEEP_DATABASES=<prefix>: the databases are named with it and kept, for CI to reconcile what the money
  // suites left (.ci/run); a prefix of lower-case letters, digits and underscores.
  const keep = process.env.SY_TEST_KEEP_DATABASES;
  if (keep !== undefined && !/^[a-z_][a-z0-9_]{0,40}$/.test(keep))
    throw new Error('SY_TEST_KEEP_DATABASES must be a database name prefix');
  const name = `${keep ?? 'sy_test_'}${randomBytes(6).toString('hex')}`;
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    databaseUrl: url.toString(),
    dataDir: 'memory://',
    drop: async () => {
      if (!keep) await withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
    },
  };
}

/**
 * A database that outlives the processes using it, for restart and crash tests: a fresh database on the server,
 * or embedded data on disk under `dir` (the next process takes over the DATA_DIR of one that died).
 */
export async function createRestartableDatabase(dir: string): Promise<TestDatabase> {
  if (process.env.DATABASE_URL) return createTestDatabase();
  return { databaseUrl: null, dataDir: join(dir, 'data'), drop: async () => undefined };
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
