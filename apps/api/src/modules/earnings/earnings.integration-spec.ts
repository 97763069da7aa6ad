import { freePort, OAuthTestKit } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';
import { markupSplit, ReconciliationService, ReservationService, UsageRecorder } from '../usage';

const CHAT = { model: 'demo-chat', messages: [{ role: 'user', content: 'Who earns from this?' }], max_tokens: 40 };
const EMBED = { model: 'demo-embedding', input: 'earnings on embeddings' };
const CLIENT_HEADER = 'X-Service-OAuth-Client-Id';
const micros = (units: number) => Math.round(units * 1e6);

/**
 * Earnings in the ledger (docs/earnings.md, the table of entries per event): each call through a marked-up app
 * that settles writes the maker's earnings in the same statement as the user's debit, the operator keeping
 * PLATFORM_FEE_PERCENT of the markup; pending for the hold, then available, then moved into the maker's budget
 * once; reconcile proves every day adds up.
 */
describe('earnings', () => {
  let app: TestApp;
  let kit: OAuthTestKit;

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp({
      port,
      publicUrl: `http://127.0.0.1:${port}`,
      signupCredit: 0,
      platformFeePercent: 20,
      earningsHoldDays: 7,
    });
    kit = await OAuthTestKit.start(app);
  });
  afterAll(() => app?.close());

  const db = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> =>
    app.database.dataSource.query(sql, params);
  const flushed = async () => {
    await app.app.get(ReservationService).flushSettlements(true);
    await app.app.get(UsageRecorder).flush();
  };
  const reconcile = () => app.app.get(ReconciliationService).reconcile();
  const earningsOf = async (session: string) =>
    (await app.http('/api/v1/earnings', { token: session })).body.data as {
      totals: { pending: number; available: number; moved: number };
      apps: Array<{
        clientId: string;
        calls: number;
        paid: number;
        providerCost: number;
        fees: number;
        earnings: number;
      }>;
      days: Array<{ date: string; clientId: string; earnings: number }>;
    };
  const balanceOf = async (userId: string) =>
    Number(
      (
        await db<{ free: string }>('SELECT credits_micros - debits_micros AS free FROM balances WHERE user_id = $1', [
          userId,
        ])
      )[0]?.free ?? 0,
    );

  it('splits every settled call into provider cost, fee and earnings, pending, then moved to the budget once', async () => {
    const maker = await kit.newUser(0);
    const client = await kit.createClient({ clientName: 'Earner', markupPercent: 50 }, maker);
    const users = [await kit.newUser(5_000_000), await kit.newUser(5_000_000)];
    let paid = 0;
    for (const user of users) {
      const tokens = await kit.tokensFor(client, { user });
      for (const [path, body] of [
        ['/v1/chat/completions', CHAT],
        ['/v1/embeddings', EMBED],
        ['/v1/chat/completions', { ...CHAT, stream: true, stream_options: { include_usage: true } }],
      ] as const) {
        const res = await app.http(path, {
          token: tokens.access_token,
          body,
          headers: { [CLIENT_HEADER]: client.clientId },
        });
        expect(res.status).toBe(200);
        // A stream states its cost in its usage chunk; a JSON answer also in x-switchyard-cost.
        const header = res.headers.get('x-switchyard-cost');
        const usage =
          header === null
            ? (String(res.body)
                .split('\n')
                .filter((line) => line.startsWith('data: {'))
                .map((line) => JSON.parse(line.slice(6)))
                .find((chunk) => chunk.usage)?.usage as { cost: number })
            : { cost: Number(header) };
        paid += micros(usage.cost);
      }
    }
    await flushed();
    const rows = await db<Record<string, string>>(
      `SELECT e.*, r.settled_micros FROM maker_earnings e JOIN reservations r ON r.id = e.call_id WHERE e.maker_id = $1`,
      [maker.id],
    );
    expect(rows).toHaveLength(6);
    let earned = 0;
    for (const row of rows) {
      const split = markupSplit(Number(row.paid_micros), 50);
      expect(Number(row.paid_micros)).toBe(Number(row.settled_micros));
      expect(Number(row.provider_micros)).toBe(split.providerMicros);
      expect(Number(row.earnings_micros)).toBe(Math.floor((split.markupMicros * 80) / 100));
      expect(Number(row.fee_micros)).toBe(split.markupMicros - Number(row.earnings_micros));
      earned += Number(row.earnings_micros);
    }
    expect(rows.reduce((sum, row) => sum + Number(row.paid_micros), 0)).toBe(paid);
    // Within the hold: pending, nothing to move.
    const before = await earningsOf(maker.session);
    expect(micros(before.totals.pending)).toBe(earned);
    expect(before.totals.available).toBe(0);
    expect(before.apps).toEqual([expect.objectContaining({ clientId: client.clientId, calls: 6 })]);
    expect(micros(before.apps[0].paid)).toBe(paid);
    expect((await app.http('/api/v1/earnings/move', { method: 'POST', token: maker.session })).body.data).toEqual({
      moved: 0,
    });
    // Another user sees none of it.
    expect((await earningsOf(users[0].session)).totals).toEqual({ pending: 0, available: 0, moved: 0 });

    // The hold is over: available; moves made at once credit the maker exactly once.
    await db(`UPDATE maker_earnings SET available_at = now() - interval '1 second' WHERE maker_id = $1`, [maker.id]);
    expect(micros((await earningsOf(maker.session)).totals.available)).toBe(earned);
    const moves = await Promise.all(
      Array.from({ length: 5 }, () => app.http('/api/v1/earnings/move', { method: 'POST', token: maker.session })),
    );
    expect(moves.map((move) => move.status)).toEqual([200, 200, 200, 200, 200]);
    expect(moves.reduce((sum, move) => sum + micros(move.body.data.moved), 0)).toBe(earned);
    expect(await balanceOf(maker.id)).toBe(earned);
    expect((await earningsOf(maker.session)).totals).toEqual({ pending: 0, available: 0, moved: earned / 1e6 });

    const csv = await app.http('/api/v1/earnings/export.csv', { token: maker.session });
    expect(csv.headers.get('content-type')).toMatch(/^text\/csv/);
    const lines = String(csv.body).trim().split('\n');
    expect(lines[0]).toBe('date,client_id,calls,paid,provider_cost,fees,earnings,pending,available');
    expect(lines[1]).toContain(`,${client.clientId},6,`);

    const report = await reconcile();
    expect(report.drifts).toEqual([]);
    for (const day of report.days) expect(day.paid).toBe(day.provider + day.earnings + day.fees);
    expect(report.days.reduce((sum, day) => sum + day.earnings, 0)).toBeGreaterThanOrEqual(earned);
  });

  it('writes each call drawn on a lease at its rate: a busy app’s calls all earn, and reconcile balances', async () => {
    const maker = await kit.newUser(0);
    const client = await kit.createClient({ clientName: 'Busy earner', markupPercent: 30 }, maker);
    const user = await kit.newUser(50_000_000);
    const tokens = await kit.tokensFor(client, { user });
    const fire = () =>
      app.http('/v1/chat/completions', {
        token: tokens.access_token,
        body: CHAT,
        headers: { [CLIENT_HEADER]: client.clientId },
      });
    // Enough calls within a second for the credential to take a lease (docs/budgets.md, "Leases").
    const answers = [];
    for (let round = 0; round < 3; round += 1) answers.push(...(await Promise.all(Array.from({ length: 30 }, fire))));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    await flushed();
    const [counts] = await db<{ calls: number; leased: number; earned: number; rates: number }>(
      `SELECT count(*)::int AS calls, count(*) FILTER (WHERE r.lease_id IS NOT NULL)::int AS leased,
              count(e.call_id)::int AS earned, count(DISTINCT r.markup_percent)::int AS rates
         FROM reservations r LEFT JOIN maker_earnings e ON e.call_id = r.id
        WHERE r.user_id = $1 AND NOT r.lease AND r.status = 'settled'`,
      [user.id],
    );
    expect(counts).toMatchObject({ calls: 90, earned: 90, rates: 1 });
    expect(counts.leased).toBeGreaterThan(0);
    expect((await reconcile()).drifts).toEqual([]);
  });

  it('writes no earnings for a refused call nor for an app without markup', async () => {
    const maker = await kit.newUser(0);
    const free = await kit.createClient({ clientName: 'No markup' }, maker);
    const capped = await kit.createClient({ clientName: 'Capped earner', markupPercent: 100 }, maker);
    const user = await kit.newUser(5_000_000);
    const freeTokens = await kit.tokensFor(free, { user });
    const cappedTokens = await kit.tokensFor(capped, {
      user,
      limits: { perRequest: 0.000001, monthly: null },
    });
    const served = await app.http('/v1/chat/completions', {
      token: freeTokens.access_token,
      body: CHAT,
      headers: { [CLIENT_HEADER]: free.clientId },
    });
    expect(served.status).toBe(200);
    const refused = await app.http('/v1/chat/completions', {
      token: cappedTokens.access_token,
      body: CHAT,
      headers: { [CLIENT_HEADER]: capped.clientId },
    });
    expect(refused.status).toBe(403);
    await flushed();
    expect(await db('SELECT 1 FROM maker_earnings WHERE maker_id = $1', [maker.id])).toEqual([]);
    expect((await reconcile()).drifts).toEqual([]);
  });

  it('reconcile names a charged call whose earnings are missing, and earnings without a charge', async () => {
    const maker = await kit.newUser(0);
    const client = await kit.createClient({ clientName: 'Tampered', markupPercent: 20 }, maker);
    const user = await kit.newUser(5_000_000);
    const tokens = await kit.tokensFor(client, { user });
    const res = await app.http('/v1/chat/completions', {
      token: tokens.access_token,
      body: CHAT,
      headers: { [CLIENT_HEADER]: client.clientId },
    });
    expect(res.status).toBe(200);
    await flushed();
    const [row] = await db<{ call_id: string }>('SELECT call_id FROM maker_earnings WHERE maker_id = $1', [maker.id]);
    await db(`UPDATE reservations SET status = 'released' WHERE id = $1`, [row.call_id]);
    expect((await reconcile()).drifts).toEqual(
      expect.arrayContaining([expect.objectContaining({ kind: 'earnings_unsettled', callId: row.call_id })]),
    );
    await db(`UPDATE reservations SET status = 'settled' WHERE id = $1`, [row.call_id]);
    await db('DELETE FROM maker_earnings WHERE call_id = $1', [row.call_id]);
    expect((await reconcile()).drifts).toEqual([
      expect.objectContaining({ kind: 'earnings_missing', callId: row.call_id }),
    ]);
  });
});
