import { freePort, OAuthTestKit, type OAuthTestUser } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';
import { ReconciliationService, ReservationService, UsageRecorder } from '../usage';

const ADMIN = { email: 'clawback-admin@example.com', password: 'clawback admin password' };
const CHAT = { model: 'demo-chat', messages: [{ role: 'user', content: 'Refund me later' }], max_tokens: 40 };
const CLIENT_HEADER = 'X-Service-OAuth-Client-Id';

/**
 * A refund takes back makers' pending earnings from the refunded user's calls, in proportion (docs/earnings.md,
 * "Refunds and disputes"); earnings whose hold is over are the maker's. Reconcile balances either way.
 */
describe('refunds claw back pending earnings', () => {
  let app: TestApp;
  let kit: OAuthTestKit;
  let admin: string;

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp({
      port,
      publicUrl: `http://127.0.0.1:${port}`,
      signupCredit: 0,
      platformFeePercent: 20,
      earningsHoldDays: 7,
      adminEmail: ADMIN.email,
      adminPassword: ADMIN.password,
    });
    kit = await OAuthTestKit.start(app);
    admin = (await app.http('/api/v1/auth/login', { body: ADMIN })).body.data.token;
  });
  afterAll(() => app?.close());

  const db = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> =>
    app.database.dataSource.query(sql, params);

  async function topUp(user: OAuthTestUser, amount: number): Promise<string> {
    const { sessionId } = (
      await app.http('/api/v1/payment/create-checkout-session', { token: user.session, body: { amount } })
    ).body.data;
    const paid = await fetch(`${app.url}/api/v1/payment/sandbox/${sessionId}/pay`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(paid.status).toBe(303);
    return sessionId;
  }

  /** A payer who topped up `amount` and made `calls` calls through the app; their earnings rows. */
  async function payerWithCalls(client: { clientId: string }, amount: number, calls: number) {
    const payer = await kit.newUser(0);
    const payment = await topUp(payer, amount);
    const tokens = await kit.tokensFor(client, { user: payer });
    for (let done = 0; done < calls; done += 10) {
      const answers = await Promise.all(
        Array.from({ length: Math.min(10, calls - done) }, () =>
          app.http('/v1/chat/completions', {
            token: tokens.access_token,
            body: CHAT,
            headers: { [CLIENT_HEADER]: client.clientId },
          }),
        ),
      );
      expect(answers.map((res) => res.status)).toEqual(answers.map(() => 200));
    }
    await app.app.get(ReservationService).flushSettlements(true);
    await app.app.get(UsageRecorder).flush();
    return { payer, payment };
  }

  const rowsOf = (payerId: string) =>
    db<{ call_id: string; paid_micros: string; earnings_micros: string; clawed_micros: string }>(
      'SELECT call_id, paid_micros, earnings_micros, clawed_micros FROM maker_earnings WHERE user_id = $1 ORDER BY call_id',
      [payerId],
    );
  const refund = (userId: string, payment: string, amount?: number) =>
    app.http(`/api/v1/admin/users/${userId}/payments/${payment}/refund`, {
      token: admin,
      body: amount === undefined ? {} : { amount },
    });

  it('takes back pending earnings in proportion to the refund, before the hold ends, and not after', async () => {
    const maker = await kit.newUser(0);
    const client = await kit.createClient({ clientName: 'Clawed', markupPercent: 300 }, maker);
    const { payer, payment } = await payerWithCalls(client, 5, 100);
    const before = await rowsOf(payer.id);
    expect(before).toHaveLength(100);
    const paidPending = before.reduce((sum, r) => sum + Number(r.paid_micros), 0);
    const earned = before.reduce((sum, r) => sum + Number(r.earnings_micros), 0);
    expect(earned).toBeGreaterThan(0);
    // More paid than a cent (the smallest refund), so a cent's refund takes a part of each.
    expect(paidPending).toBeGreaterThan(2 * 10_000);

    // A refund of a cent: a part of each pending earning, ⌊earnings × A / T⌋ (all of it when A ≥ T).
    const cent = 10_000;
    const first = await refund(payer.id, payment, 0.01);
    expect(first.status).toBe(200);
    const expected = before.map((r) => Math.floor((Number(r.earnings_micros) * cent) / paidPending));
    expect(expected.some((micros) => micros > 0)).toBe(true);
    const after = await rowsOf(payer.id);
    expect(after.map((r) => Number(r.clawed_micros))).toEqual(expected);
    const clawed = expected.reduce((a, b) => a + b, 0);
    expect(Math.round(first.body.data.clawed * 1e6)).toBe(clawed);
    const totals = (await app.http('/api/v1/earnings', { token: maker.session })).body.data.totals;
    expect(Math.round(totals.pending * 1e6)).toBe(earned - clawed);

    // The rest of the top-up: whatever is still pending is taken back; none can be moved.
    expect((await refund(payer.id, payment)).status).toBe(200);
    expect((await rowsOf(payer.id)).every((r) => r.clawed_micros === r.earnings_micros)).toBe(true);
    await db(`UPDATE maker_earnings SET available_at = now() - interval '1 second' WHERE user_id = $1`, [payer.id]);
    expect((await app.http('/api/v1/earnings/move', { token: maker.session, body: {} })).body.data.moved).toBe(0);

    // Earnings whose hold is over are the maker's: a refund then takes nothing back, and they move in full.
    const later = await payerWithCalls(client, 5, 2);
    const laterEarned = (await rowsOf(later.payer.id)).reduce((sum, r) => sum + Number(r.earnings_micros), 0);
    await db(`UPDATE maker_earnings SET available_at = now() - interval '1 second' WHERE user_id = $1`, [
      later.payer.id,
    ]);
    const late = await refund(later.payer.id, later.payment);
    expect(late.status).toBe(200);
    expect(late.body.data.clawed).toBe(0);
    expect((await rowsOf(later.payer.id)).every((r) => r.clawed_micros === '0')).toBe(true);
    const moved = (await app.http('/api/v1/earnings/move', { token: maker.session, body: {} })).body.data.moved;
    expect(Math.round(moved * 1e6)).toBe(laterEarned);

    const report = await app.app.get(ReconciliationService).reconcile();
    expect(report.drifts).toEqual([]);
  });
});
