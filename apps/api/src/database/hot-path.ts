import type { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Queries on a gateway call's path (key lookup, reservation, settlement) skip TypeORM's query-runner machinery
 * and go straight to its `pg` pool as named (prepared) statements: PostgreSQL parses and plans each once per
 * connection instead of on every call. Same pool, same connections, same transactions rules: these are
 * single statements. docs/benchmarks.md has the measured difference.
 */
export async function hotQuery<T = Record<string, unknown>>(dataSource: DataSource, name: string, text: string, values: unknown[]): Promise<T[]> {
  const pool = (dataSource.driver as unknown as { master: Pool }).master;
  if (!sharedSession.has(dataSource)) return (await pool.query({ name, text, values })).rows as T[];
  // The embedded server multiplexes every pool connection onto one PGlite session, where a statement name
  // prepared by one connection would collide with the next's: there each connection gets names of its own.
  // (Unnamed, PGlite parsed and planned the batched settlement and usage statements on every batch, and its
  // single session fell behind under load: docs/benchmarks.md.) The embedded pool keeps its connections, so
  // the names prepared stay bounded by the pool's size.
  const client = await pool.connect();
  try {
    let id = connectionIds.get(client);
    if (id === undefined) connectionIds.set(client, (id = nextConnectionId++));
    return (await client.query({ name: `${name}_${id}`, text, values })).rows as T[];
  } finally {
    client.release();
  }
}

const sharedSession = new WeakSet<DataSource>();
const connectionIds = new WeakMap<PoolClient, number>();
let nextConnectionId = 1;

/** Marks a data source whose connections share one database session (the embedded server). */
export function markSharedSession(dataSource: DataSource): void {
  sharedSession.add(dataSource);
}
