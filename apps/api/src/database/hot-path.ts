import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Queries on a gateway call's path (key lookup, reservation, settlement) skip TypeORM's query-runner machinery
 * and go straight to its `pg` pool as named (prepared) statements: PostgreSQL parses and plans each once per
 * connection instead of on every call. Same pool, same connections, same transactions rules: these are
 * single statements. docs/benchmarks.md has the measured difference.
 */
export async function hotQuery<T = Record<string, unknown>>(dataSource: DataSource, name: string, text: string, values: unknown[]): Promise<T[]> {
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  // The embedded server multiplexes every pool connection onto one PGlite session, where a statement name
  // prepared by one connection collides with the next: there, statements stay unnamed.
  const result = await pool.query(sharedSession.has(dataSource) ? { text, values } : { name, text, values });
  return result.rows as T[];
}

const sharedSession = new WeakSet<DataSource>();

/** Marks a data source whose connections share one database session (the embedded server). */
export function markSharedSession(dataSource: DataSource): void {
  sharedSession.add(dataSource);
}
