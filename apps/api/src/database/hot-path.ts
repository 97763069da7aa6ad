import type { Pool, PoolClient } from 'pg';
import type { DataSource } from 'typeorm';

/**
 * Queries on a gateway call's path (key lookup, reservation, settlement) skip TypeORM's query-runner machinery
 * and go straight to its `pg` pool as named (prepared) statements: PostgreSQL parses and plans each once per
 * connection instead of on every call. Same pool, same connections, same transactions rules: these are
 * single statements. docs/benchmarks.md has the measured difference.
 */
export async function hotQuery<T = Record<string, unknown>>(
  dataSource: DataSource,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
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

/**
 * The batched writes (usage records, settlements) on a server of their own (PostgreSQL, not the embedded one) go
 * through a small pool whose sessions use generic plans (plan_cache_mode = force_generic_plan). A named statement
 * is parsed once per connection, but PostgreSQL's default ('auto') kept planning these many-CTE statements again
 * for every batch (their custom plans always looked cheaper): about 0.6 ms of the server's CPU per settlement
 * batch, fifty batches a second under load (docs/benchmarks.md). A generic plan is made once, from the tables as
 * they are then, and kept until the tables' statistics change: made while `reservations` held a few hundred rows,
 * the leased settlement looked its calls up with a hash join over the whole table, a sequential scan that every
 * batch then repeated on the grown table (PostgreSQL's CPU per call tripled within a minute of load where
 * autovacuum is off, and grew between analyses where it is on). These statements read only by key, so their
 * sessions also never choose a sequential scan where an index leads to the rows (enable_seqscan = off).
 * A pool of their own, so that the settings reach no other query: every other statement keeps PostgreSQL's own
 * choice. Without one (the embedded database, tests that open a bare DataSource) batches go through hotQuery.
 */
export async function batchQuery<T = Record<string, unknown>>(
  dataSource: DataSource,
  name: string,
  text: string,
  values: unknown[],
): Promise<T[]> {
  const pool = batchPools.get(dataSource);
  // A session shared with other connections (the embedded server, also reached by URL from a second instance:
  // Database.open's sharedSession) has no batch pool; should one be marked shared after its pool was made, it
  // still takes names per connection: hotQuery's rule.
  if (!pool || sharedSession.has(dataSource)) return hotQuery<T>(dataSource, name, text, values);
  return (await pool.query({ name, text, values })).rows as T[];
}

/** The options of the batch pool's connections (see batchQuery). */
export const BATCH_SESSION_OPTIONS = '-c plan_cache_mode=force_generic_plan -c enable_seqscan=off';

const batchPools = new WeakMap<DataSource, Pool>();

/** Sends this data source's batched writes through `pool` (Database.open, for a PostgreSQL server). */
export function useBatchPool(dataSource: DataSource, pool: Pool): void {
  batchPools.set(dataSource, pool);
}

const sharedSession = new WeakSet<DataSource>();
const connectionIds = new WeakMap<PoolClient, number>();
let nextConnectionId = 1;

/** Marks a data source whose connections share one database session (the embedded server). */
export function markSharedSession(dataSource: DataSource): void {
  sharedSession.add(dataSource);
}

const NEEDS_ESCAPE = /["\\]/;

/**
 * A PostgreSQL array literal (`{"a","b",NULL,1,t}`) for one column of a batch, sent as a single text parameter
 * and cast in the statement (`$1::uuid[]`). The pg driver's own array serialisation runs two regular-expression
 * replacements and a type dispatch per element, which showed in the gateway's profile for its per-call batches;
 * this quotes only what needs it. Dates must be given as ISO strings.
 */
export function pgArray(values: readonly (string | number | boolean | null)[]): string {
  let out = '{';
  for (let i = 0; i < values.length; i += 1) {
    if (i) out += ',';
    const value = values[i];
    if (value === null) out += 'NULL';
    else if (typeof value === 'number') out += String(value);
    else if (typeof value === 'boolean') out += value ? 't' : 'f';
    else out += NEEDS_ESCAPE.test(value) ? `"${value.replace(/["\\]/g, '\\$&')}"` : `"${value}"`;
  }
  return `${out}}`;
}
