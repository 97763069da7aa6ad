import { Pool } from 'pg';
import { PGlite } from '@electric-sql/pglite';
import { embeddedTemplate } from '../../test/support/test-database';
import { PgliteBridge } from './pglite-bridge';

/** Many `pg` connections on one PGlite session: queries of different connections must never cross. */
describe('the PGlite bridge', () => {
  let db: PGlite;
  let bridge: PgliteBridge;
  let pool: Pool;

  beforeAll(async () => {
    // Started from the migrated test template rather than initdb (0.9 s of CPU instead of 3); the table is its own.
    db = await PGlite.create({ loadDataDir: await embeddedTemplate() });
    bridge = new PgliteBridge(db);
    const port = await bridge.start('127.0.0.1');
    pool = new Pool({ connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`, max: 10 });
    await pool.query('CREATE TABLE t (id int PRIMARY KEY, v text)');
  });
  afterAll(async () => {
    await pool.end();
    await bridge.stop();
    await db.close();
  });

  it('answers each connection its own rows while others fail, under concurrency (no statement or portal crosses)', async () => {
    const results = await Promise.all(
      Array.from({ length: 400 }, async (_, i) => {
        if (i % 4 === 0) {
          // An error mid-protocol (a unique violation at Execute, a bad cast at Bind) must stay in its connection.
          const failed = await pool.query('INSERT INTO t (id, v) VALUES ($1, $2)', [i % 8 === 0 ? 1 : 'x', 'dup']).then(
            () => 'ok',
            (error: Error) => error.message,
          );
          return failed === 'ok' || /duplicate key|invalid input syntax/.test(failed);
        }
        // Some parameters are large, so a query's messages reach the bridge in several TCP chunks, while the other
        // connections' queries keep coming.
        const text = i % 3 ? `row ${i}` : `row ${i} ${'x'.repeat(300_000)}`;
        // Each query its own statement text: a connection that ran another's would read another `k`.
        const { rows } = await pool.query(`SELECT $1::int AS n, $2::text AS s, ${i} AS k`, [i, text]);
        return rows.length === 1 && rows[0].n === i && rows[0].s === text && rows[0].k === i;
      }),
    );
    expect(results.every(Boolean)).toBe(true);
  });

  it('keeps a transaction to its connection: other connections wait, and see its work only once committed', async () => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      await client.query(`INSERT INTO t (id, v) VALUES (1000, 'in a transaction')`);
      const outside = pool.query('SELECT count(*)::int AS n FROM t WHERE id = 1000');
      await new Promise((resolve) => setTimeout(resolve, 50));
      await client.query('COMMIT');
      expect((await outside).rows[0].n).toBe(1);
    } finally {
      client.release();
    }
  });

  it('rolls back the transaction of a connection that goes away', async () => {
    const client = await pool.connect();
    await client.query('BEGIN');
    await client.query(`INSERT INTO t (id, v) VALUES (2000, 'lost')`);
    client.release(true); // destroys the connection
    const { rows } = await pool.query('SELECT count(*)::int AS n FROM t WHERE id = 2000');
    expect(rows[0].n).toBe(0);
  });
});
