import { Database } from '../../../database/database';
import { createTestDatabase } from '../../../../test/support/test-database';
import { SY_CAPS, SY_RESERVE, SY_SETTLE_EXACT, SY_SPEND } from './money-functions';

/** The body of a CREATE FUNCTION text, between its $fn$ quotes. */
const body = (sql: string) => sql.slice(sql.indexOf('$fn$') + 4, sql.lastIndexOf('$fn$'));

describe('the money functions', () => {
  it('run in the migrated database exactly as money-functions.ts writes them (a change there needs a migration)', async () => {
    const testDatabase = await createTestDatabase();
    const database = await Database.open({ databaseUrl: testDatabase.databaseUrl, dataDir: testDatabase.dataDir, dbPoolSize: 2 });
    try {
      for (const [name, sql] of [['sy_reserve', SY_RESERVE], ['sy_settle_exact', SY_SETTLE_EXACT], ['sy_caps', SY_CAPS], ['sy_spend', SY_SPEND]]) {
        const rows: { prosrc: string }[] = await database.dataSource.query('SELECT prosrc FROM pg_proc WHERE proname = $1', [name]);
        expect(rows).toHaveLength(1);
        expect(rows[0].prosrc).toBe(body(sql));
      }
    } finally {
      await database.close();
      await testDatabase.drop();
    }
  });
});
