import { randomUUID } from 'node:crypto';
import { Database } from '../../../database/database';
import { createTestDatabase, TestDatabase } from '../../../../test/support/test-database';
import { SY_CAP_ROOM, SY_CAPS, SY_EARN, SY_RESERVE, SY_SETTLE_EXACT, SY_SPEND, SY_SPEND_AT } from './money-functions';
import {
  SY_SPONSOR_ALLOWANCE,
  SY_SPONSOR_CLOSE,
  SY_SPONSOR_FUND,
  SY_SPONSOR_SETTLE,
  SY_SPONSOR_TAKE_BACK,
} from './sponsor-functions';

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
    database = await Database.open(
      {
        databaseUrl: testDatabase.databaseUrl,
        dataDir: testDatabase.dataDir,
        dbPoolSize: 2,
      },
      [],
      testDatabase.snapshot,
    );
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
      ['sy_spend_at', SY_SPEND_AT],
      ['sy_cap_room', SY_CAP_ROOM],
      ['sy_earn', SY_EARN],
      ['sy_sponsor_allowance', SY_SPONSOR_ALLOWANCE],
      ['sy_sponsor_settle', SY_SPONSOR_SETTLE],
      ['sy_sponsor_fund', SY_SPONSOR_FUND],
      ['sy_sponsor_take_back', SY_SPONSOR_TAKE_BACK],
      ['sy_sponsor_close', SY_SPONSOR_CLOSE],
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
    const leased = randomUUID();
    expect(await settle(leased, 10)).toBe(0);
    const [{ rows }] = await query<{ rows: number }>(
      'SELECT count(*)::int AS rows FROM reservations WHERE user_id = $1',
      [user],
    );
    expect(rows).toBe(3);
    // What the account could not pay is the operator's loss, one row per call, never dropped.
    expect(await losses(user)).toEqual([
      { call: second, cost: 5000, charged: 850, lost: 4150, bound: 'account' },
      { call: leased, cost: 10, charged: 0, lost: 10, bound: 'account' },
    ]);
  });

  /** The operator's losses on a user's calls, oldest first. */
  const losses = async (userId: string) =>
    (
      await query<Record<string, string>>(
        `SELECT call_id, cost_micros, charged_micros, lost_micros, bound FROM operator_losses WHERE user_id = $1
          ORDER BY created_at, cost_micros DESC`,
        [userId],
      )
    ).map((row) => ({
      call: row.call_id,
      cost: Number(row.cost_micros),
      charged: Number(row.charged_micros),
      lost: Number(row.lost_micros),
      bound: row.bound,
    }));

  it("sy_settle_exact charges a surplus only within the key's limits and the app's caps, and records the rest as the operator's loss", async () => {
    const settle = async (id: string, userId: string, cost: number, key: string | null, client: string | null) => {
      const [row] = await query<{ charged: string; lost: string; bound: string | null }>(
        `SELECT charged, lost, bound FROM sy_settle_exact($1, $2, $3, $4, NULL, NULL, $5, 'success')`,
        [id, userId, key, client, cost],
      );
      return { charged: Number(row.charged), lost: Number(row.lost), bound: row.bound };
    };
    /** A call holding min(worst, what is allowed) for the user, with the key or app: its id and amount. */
    const held = async (userId: string, worst: number, options: { key?: string; client?: string } = {}) => {
      const id = randomUUID();
      const [row] = await query<{ amount: string }>(
        'SELECT amount FROM sy_reserve($1, $2, 1, $3, NULL, $4, $5, 0, 60, false)',
        [userId, worst, id, options.key ?? null, options.client ?? null],
      );
      return { id, amount: Number(row.amount) };
    };

    // A key whose total limit is 10,000 (0.01), on a rich account: a call holding 2,000 reports 6,000,000.
    const user = await newUser(10_000_000);
    const key = await newKey(user, { total: 10_000 });
    const first = await held(user, 2000, { key });
    expect(await settle(first.id, user, 6_000_000, key, null)).toEqual({
      charged: 10_000,
      lost: 5_990_000,
      bound: 'total',
    });
    expect(await balance(user)).toEqual({ debits: 10_000, reserved: 0 });
    // Nothing left under the limit: the next call's surplus is all the operator's; what it held it still pays.
    await query('UPDATE api_keys SET limit_total_micros = 12000 WHERE id = $1', [key]);
    const second = await held(user, 2000, { key });
    expect(await settle(second.id, user, 50_000, key, null)).toEqual({ charged: 2000, lost: 48_000, bound: 'total' });
    // A per-request cap binds a surplus too.
    const perRequest = await newKey(user, { perRequest: 3000 });
    const third = await held(user, 2000, { key: perRequest });
    expect(await settle(third.id, user, 9000, perRequest, null)).toEqual({
      charged: 3000,
      lost: 6000,
      bound: 'per_request',
    });
    // Within every cap: charged in full, no loss.
    const free = await newKey(user);
    const fourth = await held(user, 2000, { key: free });
    expect(await settle(fourth.id, user, 9000, free, null)).toEqual({ charged: 9000, lost: 0, bound: null });

    // What a user let an app spend: 0.05 in all, 0.02 per request.
    const [{ id: clientPk, client_id: clientId }] = await query<{ id: number; client_id: string }>(
      `INSERT INTO oauth_clients (client_id, client_name, client_type, redirect_uris, scopes, access_token_ttl_seconds, refresh_token_ttl_seconds)
       VALUES ($1, 'Capped', 'PUBLIC', ARRAY['http://127.0.0.1/cb'], ARRAY['api:access'], 3600, 86400) RETURNING id, client_id`,
      [`syc_${randomUUID()}`],
    );
    const appUser = await newUser(10_000_000);
    await query(
      `INSERT INTO oauth_consents (user_id, client_pk, scopes, limit_total_micros, limit_per_request_micros)
       VALUES ($1, $2, ARRAY['api:access'], 50000, 20000)`,
      [appUser, clientPk],
    );
    const appCall = await held(appUser, 5000, { client: clientId });
    expect(await settle(appCall.id, appUser, 6_000_000, null, clientId)).toEqual({
      charged: 20_000,
      lost: 5_980_000,
      bound: 'app_per_request',
    });
    // A call drawn on a lease (no reservation row of its own): within what the caps leave beside the lease.
    const lease = await held(appUser, 25_000, { client: clientId });
    expect(lease.amount).toBe(20_000);
    const leased = randomUUID();
    expect(await settle(leased, appUser, 40_000, null, clientId)).toEqual({
      charged: 10_000,
      lost: 30_000,
      bound: 'app_total',
    });
    expect(await settle(leased, appUser, 40_000, null, clientId)).toEqual({ charged: 10_000, lost: 0, bound: null });
    const [{ spent }] = await query<{ spent: string }>(`SELECT total AS spent FROM sy_spend(NULL, $1, $2)`, [
      appUser,
      clientId,
    ]);
    expect(Number(spent)).toBe(50_000);
    expect((await losses(appUser)).map((loss) => loss.lost)).toEqual([5_980_000, 30_000]);
  });

  it('sy_earn splits a marked-up call once it settles, once; an ownerless app earns nothing; a lease earns nothing', async () => {
    const maker = await newUser(0);
    const app = async (owner: string | null) =>
      (
        await query<{ client_id: string }>(
          `INSERT INTO oauth_clients (client_id, owner_id, client_name, client_type, redirect_uris, scopes, access_token_ttl_seconds,
                                      refresh_token_ttl_seconds, markup_percent)
           VALUES ($1, $2, 'Earning', 'PUBLIC', ARRAY['http://127.0.0.1/cb'], ARRAY['api:access'], 3600, 86400, 50)
           RETURNING client_id`,
          [`syc_${randomUUID()}`, owner],
        )
      )[0].client_id;
    const owned = await app(maker);
    const ownerless = await app(null);
    const user = await newUser(10_000_000);
    const reserveAt = async (client: string, markup: number, lease = false) => {
      const id = randomUUID();
      await query('SELECT amount FROM sy_reserve($1, 100000, 1, $2, NULL, NULL, $3, 0, 60, $4, $5)', [
        user,
        id,
        client,
        lease,
        markup,
      ]);
      return id;
    };
    const earned = async (id: string) =>
      (
        await query<Record<string, string>>(
          'SELECT maker_id, paid_micros, provider_micros, fee_micros, earnings_micros FROM maker_earnings WHERE call_id = $1',
          [id],
        )
      ).map((row) => ({
        maker: row.maker_id,
        paid: Number(row.paid_micros),
        provider: Number(row.provider_micros),
        fee: Number(row.fee_micros),
        earnings: Number(row.earnings_micros),
      }));
    const call = await reserveAt(owned, 50);
    expect(await earned(call)).toEqual([]); // held, not settled: nothing earned yet
    await query(`SELECT sy_settle_exact($1, $2, NULL, $3, NULL, NULL, 1501, 'success')`, [call, user, owned]);
    // 1501 paid at 50 %: provider ⌊1501 × 100 / 150⌋ = 1000, markup 501, earnings ⌊501 × 80 / 100⌋ = 400, fee 101.
    expect(await earned(call)).toEqual([{ maker, paid: 1501, provider: 1000, fee: 101, earnings: 400 }]);
    await query(`SELECT sy_settle_exact($1, $2, NULL, $3, NULL, NULL, 9999, 'success')`, [call, user, owned]);
    expect(await earned(call)).toHaveLength(1);
    const stranger = await reserveAt(ownerless, 50);
    await query(`SELECT sy_settle_exact($1, $2, NULL, $3, NULL, NULL, 150, 'success')`, [stranger, user, ownerless]);
    expect(await earned(stranger)).toEqual([{ maker: null, paid: 150, provider: 100, fee: 50, earnings: 0 }]);
    const released = await reserveAt(owned, 50);
    await query(`SELECT sy_settle_exact($1, $2, NULL, $3, NULL, NULL, 0, 'refused')`, [released, user, owned]);
    expect(await earned(released)).toEqual([]);
    // A lease is a hold, never a call: settled calls drawn on it earn at its rate, the lease itself nothing.
    const lease = await reserveAt(owned, 30, true);
    const drawn = randomUUID();
    await query(`SELECT sy_settle_exact($1, $2, NULL, $3, NULL, $4, 130, 'success')`, [drawn, user, owned, lease]);
    expect(await earned(drawn)).toEqual([{ maker, paid: 130, provider: 100, fee: 6, earnings: 24 }]);
    await query(`UPDATE reservations SET status = 'settled', settled_micros = 5 WHERE id = $1`, [lease]);
    expect(await earned(lease)).toEqual([]);
  });
  it('sy_reserve draws the allowance from the pool within the hold, refuses a lease meanwhile; settling gives back the rest', async () => {
    const maker = await newUser(1_000_000);
    const [{ client_id: client, id: clientPk }] = await query<{ client_id: string; id: number }>(
      `INSERT INTO oauth_clients (client_id, owner_id, client_name, client_type, redirect_uris, scopes, access_token_ttl_seconds,
                                  refresh_token_ttl_seconds)
       VALUES ($1, $2, 'Sponsor', 'PUBLIC', ARRAY['http://127.0.0.1/cb'], ARRAY['api:access'], 3600, 86400)
       RETURNING client_id, id`,
      [`syc_${randomUUID()}`, maker],
    );
    const [funded] = await query<{ outcome: string }>(
      'SELECT outcome FROM sy_sponsor_fund($1, $2, 500, 300, NULL, $3)',
      [maker, client, randomUUID()],
    );
    expect(funded.outcome).toBe('ok');
    const user = await newUser(0);
    await query(`INSERT INTO oauth_consents (user_id, client_pk, scopes) VALUES ($1, $2, ARRAY['api:access'])`, [
      user,
      clientPk,
    ]);
    const lease = await query<{ amount: string | null; tripped: string | null }>(
      'SELECT amount, tripped FROM sy_reserve($1, 1000, 1, $2, NULL, NULL, $3, 0, 60, true)',
      [user, randomUUID(), client],
    );
    expect(lease[0]).toEqual({ amount: null, tripped: 'sponsored' });
    // No money of their own: the hold is what the allowance covers.
    const id = randomUUID();
    const [held] = await query<{ amount: string }>(
      'SELECT amount FROM sy_reserve($1, 1000, 1, $2, NULL, NULL, $3, 0, 60, false)',
      [user, id, client],
    );
    expect(Number(held.amount)).toBe(300);
    expect((await reserve(user, 1000, 1, { client })).tripped).toBe('account');
    // Settled at 120 as the settling statements do (the hold and the debit in the same statement as the status).
    await query(
      `WITH r AS (UPDATE reservations SET status = 'settled', settled_micros = 120, settled_at = now() WHERE id = $1 RETURNING user_id)
       UPDATE balances SET reserved_micros = reserved_micros - 300, debits_micros = debits_micros + 120 FROM r
        WHERE balances.user_id = r.user_id`,
      [id],
    );
    const [pool] = await query<{ left_micros: string; drawn_micros: string }>(
      'SELECT left_micros, drawn_micros FROM sponsor_pools WHERE oauth_client_id = $1',
      [client],
    );
    expect(pool).toEqual({ left_micros: '380', drawn_micros: '120' });
    const [free] = await query<{ free: string }>(
      'SELECT credits_micros - debits_micros - reserved_micros AS free FROM balances WHERE user_id = $1',
      [user],
    );
    expect(Number(free.free)).toBe(0);
    const [back] = await query<{ taken: string }>('SELECT taken FROM sy_sponsor_take_back($1, $2)', [
      client,
      randomUUID(),
    ]);
    expect(Number(back.taken)).toBe(380);
  });
});
