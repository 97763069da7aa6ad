import { Logger } from '@nestjs/common';
import { Pool } from 'pg';
import { DataSource, DataSourceOptions } from 'typeorm';
import type { AppConfig } from '../config/config.schema';
import { EmbeddedPostgres } from './embedded-postgres';
import { BATCH_SESSION_OPTIONS, markSharedSession, useBatchPool } from './hot-path';
import { MIGRATIONS } from './migrations';
import { SafeTypeOrmLogger } from './typeorm-logger';

export type DatabaseKind = 'embedded' | 'postgres';

/**
 * The TypeORM entity classes a data source maps. The app and the admin CLI hand in every module's list
 * (database/entities.ts, from the modules' faces); this file imports none, so that a module's service may inject
 * `Database` without a require cycle (docs/architecture.md, "Entities"). Plain SQL needs none (the database's own
 * tests open it without); a TypeORM repository whose entity is not listed fails on its first query.
 */
export type EntityList = NonNullable<DataSourceOptions['entities']>;

// Any fixed number works: it only has to be the same in every instance that migrates this database.
const MIGRATION_LOCK_KEY = 7_460_912_311;

export function dataSourceOptions(
  url: string,
  poolSize: number,
  entities: EntityList,
  embedded = false,
): DataSourceOptions {
  return {
    type: 'postgres',
    url,
    entities,
    migrations: MIGRATIONS,
    migrationsTableName: 'migrations',
    synchronize: false,
    // Tables are created by migrations with PostgreSQL's built-in gen_random_uuid(); no extension is needed,
    // and PGlite could not install one.
    installExtensions: false,
    uuidExtension: 'pgcrypto',
    migrationsRun: false,
    poolSize,
    // The embedded server's connections are in-process and share one session: they are kept (never closed
    // when idle), so the statements each prepares there stay bounded (database/hot-path.ts).
    extra: { max: poolSize, connectionTimeoutMillis: 15_000, idleTimeoutMillis: embedded ? 0 : 30_000 },
    logger: new SafeTypeOrmLogger(),
    logging: ['error', 'warn', 'migration'],
    maxQueryExecutionTime: 1000,
  };
}

/**
 * The database the app runs on: the real server when DATABASE_URL is set, else embedded PostgreSQL persisted
 * under DATA_DIR. Opens it, mapping `entities`, and applies pending migrations (never `synchronize`).
 */
export class Database {
  private constructor(
    readonly dataSource: DataSource,
    readonly kind: DatabaseKind,
    private readonly embedded: EmbeddedPostgres | null,
    private readonly batches: Pool | null = null,
  ) {}

  /**
   * @param snapshot an embedded `memory://` database starts from this dump (Database.closeToSnapshot) instead of
   *   empty; tests only, so that each test file copies one migrated database rather than migrating its own.
   * @param sharedSession the server at `databaseUrl` is another instance's embedded one, reached through its socket
   *   bridge (tests only: two instances in one process, test/support/test-app.ts): its connections share that one
   *   PGlite session, so they are marked shared before anything runs on them, and no batch pool is opened.
   */
  static async open(
    config: Pick<AppConfig, 'databaseUrl' | 'dataDir' | 'dbPoolSize'>,
    entities: EntityList = [],
    snapshot: Blob | null = null,
    sharedSession = false,
  ): Promise<Database> {
    const logger = new Logger('Database');
    let embedded: EmbeddedPostgres | null = null;
    let url = config.databaseUrl;
    if (!url) {
      embedded = await EmbeddedPostgres.start(config.dataDir, snapshot);
      url = embedded.url;
      logger.log(`embedded PostgreSQL (PGlite) in ${config.dataDir === 'memory://' ? 'memory' : config.dataDir}`);
    }
    const shared = embedded !== null || sharedSession;
    const dataSource = new DataSource(dataSourceOptions(url, config.dbPoolSize, entities, shared));
    if (shared) markSharedSession(dataSource);
    // The usage and settlement batches' own connections (database/hot-path.ts, batchQuery): one writer of each.
    const batches = shared
      ? null
      : new Pool({
          connectionString: url,
          max: 2,
          options: BATCH_SESSION_OPTIONS,
          connectionTimeoutMillis: 15_000,
          idleTimeoutMillis: 30_000,
        });
    // An idle connection the server dropped is replaced on the next batch; unhandled, its error would end the process.
    batches?.on('error', (error) => logger.warn(`a batch connection failed: ${error.message}`));
    if (batches) useBatchPool(dataSource, batches);
    try {
      await dataSource.initialize();
      const database = new Database(dataSource, embedded ? 'embedded' : 'postgres', embedded, batches);
      await database.migrate();
      return database;
    } catch (error) {
      if (dataSource.isInitialized) await dataSource.destroy();
      await batches?.end();
      await embedded?.stop();
      throw error;
    }
  }

  /** Applies pending migrations; on a shared server an advisory lock keeps two starting instances apart. */
  async migrate(): Promise<void> {
    const lock = this.dataSource.createQueryRunner();
    try {
      if (this.kind === 'postgres') await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
      await this.dataSource.runMigrations({ transaction: 'each' });
    } finally {
      if (this.kind === 'postgres') await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK_KEY]);
      await lock.release();
    }
  }

  async ping(timeoutMs = 2000): Promise<boolean> {
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        this.dataSource.query('SELECT 1'),
        new Promise((_, reject) => (timer = setTimeout(() => reject(new Error('timeout')), timeoutMs))),
      ]);
      return true;
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes an embedded database and returns its data folder as a tarball, for `open(…, snapshot)` (tests). */
  async closeToSnapshot(): Promise<Blob> {
    if (!this.embedded) throw new Error('only an embedded database has a snapshot');
    await this.dataSource.destroy();
    const snapshot = await this.embedded.dump();
    await this.embedded.stop();
    return snapshot;
  }

  async close(): Promise<void> {
    if (this.dataSource.isInitialized) await this.dataSource.destroy();
    await this.batches?.end();
    await this.embedded?.stop();
  }
}
