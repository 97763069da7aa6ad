import { randomUUID } from 'node:crypto';
import { Database } from '../../../database/database';
import { createTestDatabase, TestDatabase } from '../../../../test/support/test-database';
import { ReservationsRepository } from './reservations.repository';

/**
 * The batched settlements of several instances at once, on one database: each batch names several users, in any
 * order, and no two of them may wait on each other (docs/budgets.md, "Locks"). On the embedded database the
 * batches take turns; on a server they overlap, which is what this is about.
 */
describe('batched settlements of several instances', () => {
  let testDatabase: TestDatabase;
  const databases: Database[] = [];
  const repositories: ReservationsRepository[] = [];

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    // Two instances (each with its own pools) when there is a server; the embedded database has one owner.
    for (let i = 0; i < (process.env.DATABASE_URL ? 2 : 1); i++) {
      const database = await Database.open(
        { databaseUrl: testDatabase.databaseUrl, dataDir: testDatabase.dataDir, dbPoolSize: 4 },
        [],
        testDatabase.snapshot,
      );
      databases.push(database);
      repositories.push(new ReservationsRepository(database.dataSource));
    }
  });
  afterAll(async () => {
    for (const database of databases) await database.close();
    await testDatabase?.drop();
  });

  it('settle overlapping users in opposite orders without a deadlock, each call once, no hold left', async () => {
    const query = <T>(sql: string, params: unknown[] = []) => databases[0].dataSource.query<T[]>(sql, params);
    const users: string[] = [];
    for (let i = 0; i < 6; i++) {
      const [{ id }] = await query<{ id: string }>(
        `INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id`,
        [`batches-${randomUUID()}@example.com`],
      );
      await query('INSERT INTO balances (user_id, credits_micros) VALUES ($1, 1000000000)', [id]);
      users.push(id);
    }
    let seed = 20261129;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    /** A batch of one call per user of a random subset (two or more of them), in a random order. */
    const batch = async () => {
      const named = users.filter(() => random() < 0.6).sort(() => random() - 0.5);
      if (named.length < 2) named.push(...users.filter((user) => !named.includes(user)).slice(0, 2 - named.length));
      const calls = [];
      for (const userId of named) {
        const id = randomUUID();
        const held = await repositories[0].reserve({
          id,
          requestId: null,
          userId,
          apiKeyId: null,
          oauthClientId: null,
          worstMicros: 1000,
          minimumMicros: 1,
          inputEstimateMicros: 1,
          ttlSeconds: 600,
        });
        expect(held.amountMicros).toBe(1000);
        calls.push({ id, costMicros: 1 + Math.floor(random() * 999), reason: 'completed' });
      }
      return calls;
    };
    const rounds = 25;
    let charged = 0;
    for (let round = 0; round < rounds; round++) {
      const batches = await Promise.all(Array.from({ length: 4 }, batch));
      const results = await Promise.allSettled(
        batches.map((calls, i) => repositories[i % repositories.length].settleMany(calls)),
      );
      const failed = results.filter((result) => result.status === 'rejected');
      expect(failed.map((result) => String(result.reason))).toEqual([]);
      results.forEach((result, i) => {
        const settled = (result as PromiseFulfilledResult<Map<string, number>>).value;
        expect(settled.size).toBe(batches[i].length);
        for (const call of batches[i]) expect(settled.get(call.id)).toBe(call.costMicros);
      });
      charged += batches.flat().reduce((sum, call) => sum + call.costMicros, 0);
    }
    const [books] = await query<{ reserved: string; debits: string; ledger: string }>(
      `SELECT (SELECT sum(reserved_micros) FROM balances WHERE user_id = ANY($1)) AS reserved,
              (SELECT sum(debits_micros) FROM balances WHERE user_id = ANY($1)) AS debits,
              (SELECT -sum(amount_micros) FROM ledger_entries WHERE user_id = ANY($1) AND kind = 'usage') AS ledger`,
      [users],
    );
    expect({ reserved: Number(books.reserved), debits: Number(books.debits), ledger: Number(books.ledger) }).toEqual({
      reserved: 0,
      debits: charged,
      ledger: charged,
    });
  });
});
