import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { LedgerService } from './ledger/ledger.service';

const DAY_MS = 86_400_000;

async function newUser(app: TestApp, name: string) {
  const registered = await app.http('/api/v1/auth/register', {
    body: { email: uniqueEmail(name), password: `${name} password` },
  });
  return { userId: registered.body.data.user.id as string, session: registered.body.data.token as string };
}

describe('the billing history reads (ledger sides, daily spend)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp({ signupCredit: 0 });
  });
  afterAll(() => app?.close());

  /** A usage debit of `micros` written `daysAgo` days ago (at noon UTC), as settlement writes it. */
  async function debit(userId: string, micros: number, daysAgo: number) {
    const at = new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - daysAgo * DAY_MS + DAY_MS / 2);
    await app.database.dataSource.query(
      `INSERT INTO ledger_entries (user_id, amount_micros, kind, source, idempotency_key, created_at)
       VALUES ($1, $2, 'usage', 'req-test', gen_random_uuid()::text, $3)`,
      [userId, -micros, at],
    );
  }

  const day = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);

  it('keeps one side of the ledger: credits or debits', async () => {
    const { userId, session } = await newUser(app, 'sides');
    const ledger = app.app.get(LedgerService);
    await ledger.credit(userId, 7_000_000, 'gift_card', 'gc-1', `gc:${userId}`);
    await ledger.credit(userId, 12_500_000, 'payment', 'cs_sandbox_1', `pay:${userId}`);
    await debit(userId, 1234, 0);
    const read = async (query: string) =>
      (await app.http(`/api/v1/usage/me/ledger?${query}`, { token: session })).body.data.items as {
        kind: string;
        amount: number;
      }[];
    expect((await read('side=credit')).map((e) => [e.kind, e.amount])).toEqual([
      ['payment', 12.5],
      ['gift_card', 7],
    ]);
    expect((await read('side=debit')).map((e) => [e.kind, e.amount])).toEqual([['usage', -0.001234]]);
    expect(await read('')).toHaveLength(3);
    const page = (await app.http('/api/v1/usage/me/ledger?side=credit&limit=1', { token: session })).body.data;
    const next = (
      await app.http(`/api/v1/usage/me/ledger?side=credit&limit=1&cursor=${page.nextCursor}`, { token: session })
    ).body.data;
    expect(next.items.map((e: { kind: string }) => e.kind)).toEqual(['gift_card']);
    expect(next.nextCursor).toBeNull();
    expect((await app.http('/api/v1/usage/me/ledger?side=both', { token: session })).status).toBe(400);
  });

  it('sums the calls per UTC day, newest first, skipping over a long quiet spell, and only the caller’s', async () => {
    const { userId, session } = await newUser(app, 'daily');
    const other = await newUser(app, 'daily-other');
    await debit(userId, 100, 0);
    await debit(userId, 250, 0);
    await debit(userId, 1_000_000, 3);
    await debit(userId, 5, 100);
    await debit(userId, 7, 100);
    await debit(other.userId, 999, 0);
    const page = async (query: string, token = session) =>
      (await app.http(`/api/v1/usage/me/daily-spend?${query}`, { token })).body.data;
    const first = await page('limit=30');
    expect(first.items).toEqual([
      { day: day(0), amount: 0.00035, calls: 2 },
      { day: day(3), amount: 1, calls: 1 },
    ]);
    // 30 days: today and the 29 before it; the next page ends before day(29).
    expect(first.nextCursor).toBe(day(29));
    // The next window (30 to 59 days ago) has no spend: the page skips to the one that ends with day 100.
    const second = await page(`limit=30&cursor=${first.nextCursor}`);
    expect(second.items).toEqual([{ day: day(100), amount: 0.000012, calls: 2 }]);
    expect(second.nextCursor).toBeNull();
    expect((await page('limit=30', other.session)).items).toEqual([{ day: day(0), amount: 0.000999, calls: 1 }]);
    const nobody = await newUser(app, 'daily-none');
    expect(await page('', nobody.session)).toEqual({ items: [], nextCursor: null });
    for (const query of ['cursor=garbage', 'cursor=2026-11-01T00:00:00Z', 'limit=0', 'limit=101']) {
      const res = await app.http(`/api/v1/usage/me/daily-spend?${query}`, { token: session });
      expect(res.status).toBe(400);
    }
  });
});
