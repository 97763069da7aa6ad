import { randomUUID } from 'node:crypto';
import { createTestDatabase } from '../../../test/support/test-database';
import { usageRecord } from '../../../test/support/usage-record';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { Database } from '../../database/database';
import { MIGRATIONS } from '../../database/migrations';
import { UsagePartitions1763800008000 } from '../../database/migrations/1763800008000-usage-partitions';
import { monthsFrom, UsagePartitions } from './usage-partitions';
import { UsageRecorder, UsageRecordInput } from './usage-recorder';
import { UsageService } from './usage.service';

const DAY_MS = 86_400_000;

async function newUser(app: TestApp) {
  const registered = await app.http('/api/v1/auth/register', {
    body: { email: uniqueEmail('usage'), password: 'usage password' },
  });
  const session = registered.body.data.token as string;
  const keyId = (await app.http('/api/v1/keys', { token: session, body: { name: 'usage key' } })).body.data
    .id as string;
  return { userId: registered.body.data.user.id as string, keyId };
}

/** Where a record's row is stored: the partition's name. */
async function partitionOf(app: TestApp, requestId: string): Promise<string> {
  const [row] = await app.database.dataSource.query(
    `SELECT tableoid::regclass::text AS part FROM usage_records WHERE request_id = $1`,
    [requestId],
  );
  return row?.part;
}

async function partitions(app: TestApp): Promise<string[]> {
  const rows = await app.database.dataSource.query(
    `SELECT c.relname FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'usage_records'::regclass ORDER BY 1`,
  );
  return rows.map((r: { relname: string }) => r.relname);
}

const partitionName = (month: string) => `usage_records_p${month.slice(0, 4)}${month.slice(5, 7)}`;

describe('usage data: monthly partitions and daily rollups', () => {
  let app: TestApp;
  let recorder: UsageRecorder;
  let usage: UsageService;
  beforeAll(async () => {
    app = await startTestApp();
    recorder = app.app.get(UsageRecorder);
    usage = app.app.get(UsageService);
  });
  afterAll(() => app?.close());

  async function write(...records: UsageRecordInput[]) {
    for (const r of records) recorder.record(r);
    await recorder.flush();
    expect(recorder.pending).toBe(0);
  }

  it('has the current month and the next two partitioned at start, and stores a call in its month', async () => {
    const months = monthsFrom(new Date(), 2);
    expect(await partitions(app)).toEqual(
      expect.arrayContaining([...months.map(partitionName), 'usage_records_default']),
    );
    const { userId } = await newUser(app);
    const now = usageRecord(userId, new Date());
    const nextMonth = usageRecord(userId, new Date(`${months[1]}T00:00:00Z`));
    const lastMomentOfMonth = usageRecord(userId, new Date(new Date(`${months[1]}T00:00:00Z`).getTime() - 1));
    await write(now, nextMonth, lastMomentOfMonth);
    expect(await partitionOf(app, now.requestId)).toBe(partitionName(months[0]));
    expect(await partitionOf(app, nextMonth.requestId)).toBe(partitionName(months[1]));
    expect(await partitionOf(app, lastMomentOfMonth.requestId)).toBe(partitionName(months[0]));
  });

  it('creates the partitions of months ahead once, even when two instances do it at the same time', async () => {
    const later = new Date(Date.now() + 200 * DAY_MS);
    const months = monthsFrom(later, 2);
    const partitioner = app.app.get(UsagePartitions);
    const [a, b] = await Promise.all([partitioner.ensure(later), partitioner.ensure(later)]);
    expect([...a, ...b].sort()).toEqual(months);
    expect(await partitions(app)).toEqual(expect.arrayContaining(months.map(partitionName)));
    expect(await partitioner.ensure(later)).toEqual([]);
  });

  it("keeps a call of a month without a partition in the DEFAULT one, and moves it when that month's partition is made", async () => {
    const { userId } = await newUser(app);
    const old = usageRecord(userId, new Date('2019-03-15T12:00:00Z'));
    await write(old);
    expect(await partitionOf(app, old.requestId)).toBe('usage_records_default');
    const [{ created }] = await app.database.dataSource.query(`SELECT usage_partition_ensure('2019-03-01') AS created`);
    expect(created).toBe(true);
    expect(await partitionOf(app, old.requestId)).toBe('usage_records_p201903');
    // Still unique: a retry of that call finds it in its new partition.
    await write({ ...old });
    const [{ count }] = await app.database.dataSource.query(
      `SELECT count(*)::int AS count FROM usage_records WHERE request_id = $1`,
      [old.requestId],
    );
    expect(count).toBe(1);
  });

  it('counts a retried batch once, in the records and in the rollups', async () => {
    const { userId, keyId } = await newUser(app);
    const at = new Date();
    const appId = `app-${randomUUID()}`;
    const batch = [
      usageRecord(userId, at, { apiKeyId: keyId, credentialName: 'usage key' }),
      usageRecord(userId, at, {
        apiKeyId: keyId,
        credentialName: 'usage key',
        status: 'upstream_error',
        httpStatus: 502,
      }),
      usageRecord(userId, at, { oauthClientId: appId }),
    ];
    await write(...batch);
    await write(...batch.map((r) => ({ ...r })));
    const [records] = await app.database.dataSource.query(
      `SELECT count(*)::int AS n, sum(cost_micros)::int AS cost FROM usage_records WHERE user_id = $1`,
      [userId],
    );
    expect(records).toEqual({ n: 3, cost: 105 });
    const daily = await app.database.dataSource.query(
      `SELECT api_key_id, requests::int, errors::int, total_tokens::int AS tokens, cost_micros::int AS cost FROM usage_daily WHERE user_id = $1 ORDER BY api_key_id NULLS LAST`,
      [userId],
    );
    expect(daily).toEqual([
      { api_key_id: keyId, requests: 2, errors: 1, tokens: 60, cost: 70 },
      { api_key_id: null, requests: 1, errors: 0, tokens: 30, cost: 35 },
    ]);
    const [appDaily] = await app.database.dataSource.query(
      `SELECT requests::int, cost_micros::int AS cost FROM usage_app_daily WHERE oauth_client_id = $1`,
      [appId],
    );
    expect(appDaily).toEqual({ requests: 1, cost: 35 });
    const [appUsers] = await app.database.dataSource.query(
      `SELECT count(*)::int AS n, bit_or(days) AS days FROM usage_app_users WHERE oauth_client_id = $1`,
      [appId],
    );
    expect(appUsers).toEqual({ n: 1, days: 1 << (at.getUTCDate() - 1) });
  });

  describe('analytics from the rollups', () => {
    let userId: string;
    const appId = `app-${randomUUID()}`;
    const base = Date.UTC(2026, 9, 10); // 2026-10-10, in the past
    beforeAll(async () => {
      const user = await newUser(app);
      userId = user.userId;
      const records: UsageRecordInput[] = [];
      // Five days, calls every 97 minutes, spread over two models, a key, an app and neither.
      for (let t = base; t < base + 5 * DAY_MS; t += 97 * 60_000) {
        const i = records.length;
        const via =
          i % 3 === 0
            ? { apiKeyId: user.keyId, credentialName: 'usage key' }
            : i % 3 === 1
              ? { oauthClientId: appId, credentialName: 'An app' }
              : {};
        records.push(
          usageRecord(userId, new Date(t), {
            ...via,
            model: i % 2 ? 'demo-chat' : 'demo-large',
            promptTokens: i,
            completionTokens: 2 * i,
            costMicros: 7 * i,
          }),
        );
      }
      await write(...records);
    });

    /** The analytics of a window as computed from the raw rows alone (how they were computed before rollups). */
    async function fromRawRows(from: Date, to: Date, groupBy: 'day' | 'model' | 'key' | 'app') {
      const key = {
        day: `to_char(date_trunc('day', started_at AT TIME ZONE 'UTC'), 'YYYY-MM-DD')`,
        model: 'model',
        key: `COALESCE(credential_name, 'Unknown')`,
        app: `COALESCE(oauth_client_id, 'none')`,
      }[groupBy];
      const filter =
        groupBy === 'key' ? ' AND api_key_id IS NOT NULL' : groupBy === 'app' ? ' AND oauth_client_id IS NOT NULL' : '';
      const rows = await app.database.dataSource.query(
        `SELECT ${key} AS key, count(*)::int AS requests, sum(prompt_tokens)::int AS prompt, sum(completion_tokens)::int AS completion,
                sum(total_tokens)::int AS total, sum(cost_micros)::int AS cost
           FROM usage_records WHERE user_id = $1 AND started_at >= $2 AND started_at < $3${filter} GROUP BY 1 ORDER BY 1`,
        [userId, from, to],
      );
      return rows.map((r: Record<string, number | string>) => ({
        key: r.key,
        requests: r.requests,
        promptTokens: r.prompt,
        completionTokens: r.completion,
        totalTokens: r.total,
        cost: Number(r.cost) / 1e6,
      }));
    }

    it.each([
      ['whole days', '2026-10-11', '2026-10-13', '2026-10-14T00:00:00.000Z'],
      [
        'a window that starts and ends inside days',
        '2026-10-10T05:30:00Z',
        '2026-10-13T17:45:00Z',
        '2026-10-13T17:45:00.000Z',
      ],
      ['a window inside one day', '2026-10-12T03:00:00Z', '2026-10-12T21:00:00Z', '2026-10-12T21:00:00.000Z'],
      [
        'a window that starts at midnight and ends inside a day',
        '2026-10-11T00:00:00Z',
        '2026-10-12T08:00:00Z',
        '2026-10-12T08:00:00.000Z',
      ],
    ])('answers exactly as the raw rows do for %s', async (_name, from, to, end) => {
      for (const groupBy of ['day', 'model', 'key', 'app'] as const) {
        const answer = await usage.analytics(userId, { from, to, groupBy });
        const expected = await fromRawRows(new Date(from), new Date(end), groupBy);
        expect(expected.length).toBeGreaterThan(0);
        expect(answer.groups).toEqual(expected);
        expect(answer.totals.requests).toBe(
          expected.reduce((sum: number, g: { requests: number }) => sum + g.requests, 0),
        );
      }
    });

    it("counts an app's distinct users and its calls by model and by day, as the raw rows do", async () => {
      const others = [await newUser(app), await newUser(app)];
      await write(
        ...others.flatMap((u, i) => [
          usageRecord(u.userId, new Date(base + DAY_MS + i * 3_600_000), { oauthClientId: appId, model: 'demo-chat' }),
          usageRecord(u.userId, new Date(base + 2 * DAY_MS), { oauthClientId: appId, model: 'demo-other' }),
        ]),
      );
      const from = new Date(base);
      const to = new Date(base + 3 * DAY_MS); // both days included: 10 to 13 October
      const stats = await usage.clientUsage(appId, from, to);
      const [raw] = await app.database.dataSource.query(
        `SELECT count(*)::int AS requests, count(DISTINCT user_id)::int AS users, sum(total_tokens)::int AS tokens, sum(cost_micros)::int AS cost
           FROM usage_records WHERE oauth_client_id = $1 AND started_at >= $2 AND started_at < $3`,
        [appId, from, new Date(to.getTime() + DAY_MS)],
      );
      expect(stats).toMatchObject({
        users: 3,
        requests: raw.requests,
        totalTokens: raw.tokens,
        totalCost: raw.cost / 1e6,
      });
      expect(stats.byModel.map((m) => m.model)).toEqual(['demo-chat', 'demo-large', 'demo-other']);
      expect(stats.byModel.reduce((sum, m) => sum + m.requests, 0)).toBe(raw.requests);
      expect(stats.byDay.map((d) => d.date)).toEqual(['2026-10-10', '2026-10-11', '2026-10-12', '2026-10-13']);
      expect(stats.byDay.reduce((sum, d) => sum + d.totalTokens, 0)).toBe(raw.tokens);
      // One day only: the first user alone on the 10th.
      expect((await usage.clientUsage(appId, from, from)).users).toBe(1);
      // Across a month's end: one more user on 30 September only.
      const september = await newUser(app);
      await write(usageRecord(september.userId, new Date(base - 10 * DAY_MS + 5_000), { oauthClientId: appId }));
      for (const [first, last] of [
        ['2026-09-30', '2026-10-10'],
        ['2026-09-01', '2026-09-29'],
        ['2026-10-01', '2026-10-10'],
        ['2026-10-11', '2026-10-31'],
        ['2026-09-30', '2026-09-30'],
      ]) {
        const [{ users }] = await app.database.dataSource.query(
          `SELECT count(DISTINCT user_id)::int AS users FROM usage_records WHERE oauth_client_id = $1 AND started_at >= $2 AND started_at < $3`,
          [appId, new Date(first), new Date(new Date(last).getTime() + DAY_MS)],
        );
        expect({ first, last, users: (await usage.clientUsage(appId, new Date(first), new Date(last))).users }).toEqual(
          { first, last, users },
        );
      }
    });
  });
});

describe('the usage partitions migration', () => {
  it('keeps the rows of an unpartitioned usage_records table and builds their rollups', async () => {
    const testDatabase = await createTestDatabase();
    const database = await Database.open(
      {
        databaseUrl: testDatabase.databaseUrl,
        dataDir: testDatabase.dataDir,
        dbPoolSize: 2,
      },
      [],
      testDatabase.snapshot,
    );
    try {
      const { dataSource } = database;
      // Back to just before the partitions migration, whatever migrations came after it.
      for (let undo = MIGRATIONS.length - MIGRATIONS.indexOf(UsagePartitions1763800008000); undo > 0; undo -= 1)
        await dataSource.undoLastMigration();
      const [{ id: userId }] = await dataSource.query(
        `INSERT INTO users (email, password_hash) VALUES ($1, 'x') RETURNING id`,
        [uniqueEmail('migrate')],
      );
      await dataSource.query(
        `INSERT INTO usage_records (request_id, user_id, oauth_client_id, method, model, status, http_status, prompt_tokens, completion_tokens, total_tokens, cost_micros, latency_ms, started_at, ended_at)
         SELECT 'old-' || n, $1, 'app-old', 'chat_completions', 'demo-chat', 'success', 200, n, n, 2 * n, 10 * n, 100,
                timestamptz '2025-01-31 23:00:00+00' + n * interval '1 hour', timestamptz '2025-01-31 23:00:00+00' + n * interval '1 hour'
           FROM generate_series(0, 2) AS n`,
        [userId],
      );
      await database.migrate();
      const rows = await dataSource.query(
        `SELECT request_id, tableoid::regclass::text AS part FROM usage_records WHERE user_id = $1 ORDER BY started_at`,
        [userId],
      );
      expect(rows).toEqual([
        { request_id: 'old-0', part: 'usage_records_p202501' },
        { request_id: 'old-1', part: 'usage_records_p202502' },
        { request_id: 'old-2', part: 'usage_records_p202502' },
      ]);
      // The money-keys migration gave each old record a call id of its own.
      const [{ ids }] = await dataSource.query(
        `SELECT count(DISTINCT call_id)::int AS ids FROM usage_records WHERE user_id = $1`,
        [userId],
      );
      expect(ids).toBe(3);
      const daily = await dataSource.query(
        `SELECT to_char(day, 'YYYY-MM-DD') AS day, requests::int, cost_micros::int AS cost FROM usage_daily WHERE user_id = $1 ORDER BY day`,
        [userId],
      );
      expect(daily).toEqual([
        { day: '2025-01-31', requests: 1, cost: 0 },
        { day: '2025-02-01', requests: 2, cost: 30 },
      ]);
      const appUsers = await dataSource.query(
        `SELECT to_char(month, 'YYYY-MM-DD') AS month, days FROM usage_app_users WHERE user_id = $1 ORDER BY month`,
        [userId],
      );
      expect(appUsers).toEqual([
        { month: '2025-01-01', days: 1 << 30 },
        { month: '2025-02-01', days: 1 },
      ]);
      const [appDaily] = await dataSource.query(
        `SELECT sum(requests)::int AS requests FROM usage_app_daily WHERE oauth_client_id = 'app-old'`,
      );
      expect(appDaily.requests).toBe(3);
    } finally {
      await database.close();
      await testDatabase.drop();
    }
  });
});
