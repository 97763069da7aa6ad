import { randomUUID } from 'node:crypto';
import { Database } from '../../../database/database';
import { createTestDatabase, TestDatabase } from '../../../../test/support/test-database';
import { SY_CAPS, SY_RESERVE, SY_SETTLE_EXACT, SY_SPEND } from './money-functions';

/** The body of a CREATE FUNCTION text, between its $fn$ quotes. */
const body = (sql: string) => sql.slice(sql.indexOf('$fn$') + 4, sql.lastIndexOf('$fn$'));

/** The functions called straight on the migrated database: the rules they keep, without the app around them. */
describe('the money functions', () => {
  let testDatabase: TestDatabase;
  let database: Database;
  const query = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> =>
    database.dataSource.query(sql, params);

  /** A user whose balance has `credits` micro-units free. */
  const newUser = async (credits: number) => {
    const [{ id }] = await query<{ id: string }>(
      `INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id`,
      [`money-${randomUUID()}@example.com`],
    );
    await query('INSERT INTO balances (user_id, credits_micros) VALUES ($1, $2)', [id, credits]);
    return id;
  };
  const newKey = async (userId: string, caps: { total?: number; perRequest?: number } = {}) => {
    const [{ id }] = await query<{ id: string }>(
      `INSERT INTO api_keys (user_id, name, key_hash, key_start, key_end, limit_total_micros, limit_per_request_micros)
       VALUES ($1, 'k', $2, 'sy-', 'x', $3, $4) RETURNING id`,
      [userId, randomUUID(), caps.total ?? null, caps.perRequest ?? null],
    );
    return id;
  };
  const balance = async (userId: string) =>
    (
      await query<{ debits: string; reserved: string }>(
        'SELECT debits_micros AS debits, reserved_micros AS reserved FROM balances WHERE user_id = $1',
        [userId],
      )
    ).map((row) => ({
      debits: Number(row.debits),
      reserved: Number(row.reserved),
    }))[0];
  /** sy_reserve(user, worst, minimum, …): what it held (null when refused) and the cap that tripped. */
  const reserve = async (
    userId: string,
    worst: number,
    minimum: number,
    options: { key?: string; client?: string } = {},
  ) => {
    const [row] = await query<{ amount: string | null; tripped: string | null }>(
      'SELECT amount, tripped FROM sy_reserve($1, $2, $3, $4, NULL, $5, $6, 0, 60, false)',
      [userId, worst, minimum, randomUUID(), options.key ?? null, options.client ?? null],
    );
    return { amount: row.amount === null ? null : Number(row.amount), tripped: row.tripped };
  };
  const caps = async (
    args: { total?: number; daily?: number; perRequest?: number; key?: string },
    minimum: number,
    allowed: number,
    prefix = '',
  ) => {
    const [row] = await query<{ allowed: string; tripped: string | null }>(
      'SELECT allowed, tripped FROM sy_caps($1, $2, NULL, NULL, $3, $4, NULL, NULL, $5, $6, $7)',
      [args.total ?? null, args.daily ?? null, args.perRequest ?? null, args.key ?? null, minimum, allowed, prefix],
    );
    return { allowed: Number(row.allowed), tripped: row.tripped };
  };

  beforeAll(async () => {
    testDatabase = await createTestDatabase();
    database = await Database.open({
      databaseUrl: testDatabase.databaseUrl,
      dataDir: testDatabase.dataDir,
      dbPoolSize: 2,
    });
  });
  afterAll(async () => {
    await database?.close();
    await testDatabase?.drop();
  });

  it('run in the migrated database exactly as money-functions.ts writes them (a change there needs a migration)', async () => {
    for (const [name, sql] of [
      ['sy_reserve', SY_RESERVE],
      ['sy_settle_exact', SY_SETTLE_EXACT],
      ['sy_caps', SY_CAPS],
      ['sy_spend', SY_SPEND],
    ]) {
      const rows = await query<{ prosrc: string }>('SELECT prosrc FROM pg_proc WHERE proname = $1', [name]);
      expect(rows).toHaveLength(1);
      expect(rows[0].prosrc).toBe(body(sql));
    }
  });

  it('sy_caps lowers what a call may hold to what each cap leaves, and names the first cap that cannot cover the minimum', async () => {
    const key = await newKey(await newUser(0));
    expect(await caps({ key }, 10, 1000)).toEqual({ allowed: 1000, tripped: null });
    expect(await caps({ key, perRequest: 300 }, 10, 1000)).toEqual({ allowed: 300, tripped: null });
    expect(await caps({ key, perRequest: 5 }, 10, 1000, 'app_')).toEqual({ allowed: 1000, tripped: 'app_per_request' });
    // Spent so far: a settled call (what it was charged) and an open one (what it holds).
    await query(
      `INSERT INTO reservations (id, user_id, api_key_id, amount_micros, status, settled_micros, expires_at)
       SELECT gen_random_uuid(), user_id, id, 900, 'settled', 600, now() FROM api_keys WHERE id = $1
       UNION ALL SELECT gen_random_uuid(), user_id, id, 100, 'open', NULL, now() + interval '1 minute' FROM api_keys WHERE id = $1`,
      [key],
    );
    expect(await caps({ key, total: 1000 }, 10, 1000)).toEqual({ allowed: 300, tripped: null });
    expect(await caps({ key, total: 705, daily: 2000 }, 10, 1000)).toEqual({ allowed: 1000, tripped: 'total' });
    expect(await caps({ key, total: 2000, daily: 705 }, 10, 1000)).toEqual({ allowed: 1000, tripped: 'daily' });
  });

  it('sy_reserve holds min(worst, what is free, what the caps leave), and refuses below the minimum without holding anything', async () => {
    const user = await newUser(1000);
    expect(await reserve(user, 400, 10)).toEqual({ amount: 400, tripped: null });
    expect(await balance(user)).toEqual({ debits: 0, reserved: 400 });
    expect(await reserve(user, 5000, 10)).toEqual({ amount: 600, tripped: null });
    expect(await reserve(user, 400, 10)).toEqual({ amount: null, tripped: 'account' });
    const [{ held }] = await query<{ held: number }>(
      `SELECT sum(amount_micros)::int AS held FROM reservations WHERE user_id = $1 AND status = 'open'`,
      [user],
    );
    expect([held, (await balance(user)).reserved]).toEqual([1000, 1000]);

    const capped = await newUser(1000);
    expect(await reserve(capped, 400, 10, { key: await newKey(capped, { perRequest: 50 }) })).toEqual({
      amount: 50,
      tripped: null,
    });
    expect(await reserve(capped, 400, 10, { key: await newKey(capped, { perRequest: 5 }) })).toEqual({
      amount: null,
      tripped: 'per_request',
    });
    expect(await balance(capped)).toEqual({ debits: 0, reserved: 50 });

    // What a user let an app spend: the consent's caps, named with app_.
    const [{ id: clientPk }] = await query<{ id: number }>(
      `INSERT INTO oauth_clients (client_id, client_name, client_type, redirect_uris, scopes, access_token_ttl_seconds, refresh_token_ttl_seconds)
       VALUES ($1, 'Capped', 'PUBLIC', ARRAY['http://127.0.0.1/cb'], ARRAY['api:access'], 3600, 86400) RETURNING id`,
      [`syc_${randomUUID()}`],
    );
    const [{ client_id: clientId }] = await query<{ client_id: string }>(
      'SELECT client_id FROM oauth_clients WHERE id = $1',
      [clientPk],
    );
    const appUser = await newUser(1000);
    await query(
      `INSERT INTO oauth_consents (user_id, client_pk, scopes, limit_monthly_micros) VALUES ($1, $2, ARRAY['api:access'], 100)`,
      [appUser, clientPk],
    );
    expect(await reserve(appUser, 400, 10, { client: clientId })).toEqual({ amount: 100, tripped: null });
    expect(await reserve(appUser, 400, 10, { client: clientId })).toEqual({ amount: null, tripped: 'app_monthly' });
    // The same user's calls without the app are not the app's spend.
    expect(await reserve(appUser, 400, 10)).toEqual({ amount: 400, tripped: null });
  });

  it('sy_settle_exact charges min(cost, held + free) once, never below zero; a retry changes nothing', async () => {
    const user = await newUser(1000);
    const id = randomUUID();
    await query('SELECT sy_reserve($1, 100, 10, $2, NULL, NULL, NULL, 0, 60, false)', [user, id]);
    const settle = async (callId: string, cost: number) =>
      Number(
        (
          await query<{ charged: string }>(
            `SELECT charged FROM sy_settle_exact($1, $2, NULL, NULL, NULL, NULL, $3, 'test')`,
            [callId, user, cost],
          )
        )[0].charged,
      );
    expect(await settle(id, 150)).toBe(150);
    expect(await balance(user)).toEqual({ debits: 150, reserved: 0 });
    expect(await settle(id, 999)).toBe(150);
    expect(await balance(user)).toEqual({ debits: 150, reserved: 0 });
    const ledger = await query<{ amount_micros: string }>(
      'SELECT amount_micros FROM ledger_entries WHERE user_id = $1',
      [user],
    );
    expect(ledger.map((row) => Number(row.amount_micros))).toEqual([-150]);

    // More than it held and all that is free: charged what there is, and the balance stays at zero.
    const second = randomUUID();
    await query('SELECT sy_reserve($1, 100, 10, $2, NULL, NULL, NULL, 0, 60, false)', [user, second]);
    expect(await settle(second, 5000)).toBe(850);
    expect(await balance(user)).toEqual({ debits: 1000, reserved: 0 });
    // A call with no reservation of its own (drawn on a lease) with nothing free: written, charged nothing.
    expect(await settle(randomUUID(), 10)).toBe(0);
    const [{ rows }] = await query<{ rows: number }>(
      'SELECT count(*)::int AS rows FROM reservations WHERE user_id = $1',
      [user],
    );
    expect(rows).toBe(3);
  });
});
