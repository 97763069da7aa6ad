import { randomUUID } from 'node:crypto';
import { FakeStripe } from '../../../test/support/fake-stripe';
import { freePort, OAuthTestKit, type OAuthTestUser } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';
import { ReconciliationService } from '../usage';

/**
 * A maker whose app's calls (settled through sy_settle_exact, the settlement path a call takes) earned
 * `earnings` micro-units at a 100 % markup and a 20 % fee, all available now.
 */
async function earningMaker(
  app: TestApp,
  kit: OAuthTestKit,
  paidMicros: number[],
): Promise<{ maker: OAuthTestUser; earned: number }> {
  const db = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> =>
    app.database.dataSource.query(sql, params);
  const maker = await kit.newUser(0);
  const client = await kit.createClient({ clientName: 'Paying out', markupPercent: 100 }, maker);
  const user = await kit.newUser(50_000_000);
  await kit.tokensFor(client, { user });
  for (const paid of paidMicros) {
    const id = randomUUID();
    await db('SELECT amount FROM sy_reserve($1, $2, 1, $3, NULL, NULL, $4, 0, 60, false, 100)', [
      user.id,
      paid,
      id,
      client.clientId,
    ]);
    await db(`SELECT sy_settle_exact($1, $2, NULL, $3, NULL, NULL, $4, 'refused')`, [
      id,
      user.id,
      client.clientId,
      paid,
    ]);
  }
  await db(`UPDATE maker_earnings SET available_at = now() - interval '1 second' WHERE maker_id = $1`, [maker.id]);
  const [{ earned }] = await db<{ earned: string }>(
    'SELECT sum(earnings_micros) AS earned FROM maker_earnings WHERE maker_id = $1',
    [maker.id],
  );
  return { maker, earned: Number(earned) };
}

/**
 * Payouts (docs/earnings.md, "Payouts") against a local server speaking Stripe's wire format: the hosted
 * onboarding link, one transfer per payout keyed by its id (a double request, a lost answer or Stripe down never
 * pays twice), whole cents (below a cent goes to the budget), and the sandbox when Stripe is not configured.
 */
describe('payouts of earnings', () => {
  let stripe: FakeStripe;
  let app: TestApp;
  let kit: OAuthTestKit;

  beforeAll(async () => {
    stripe = await FakeStripe.start();
    const port = await freePort();
    app = await startTestApp({
      port,
      publicUrl: `http://127.0.0.1:${port}`,
      signupCredit: 0,
      stripeSecretKey: FakeStripe.secretKey,
      stripeWebhookSecret: FakeStripe.webhookSecret,
      stripeApiBase: stripe.url,
    });
    kit = await OAuthTestKit.start(app);
  });
  afterAll(async () => {
    await app?.close();
    await stripe?.stop();
  });

  const db = <T = Record<string, unknown>>(sql: string, params: unknown[] = []): Promise<T[]> =>
    app.database.dataSource.query(sql, params);

  const makerWith = (paid: number[]) => earningMaker(app, kit, paid);
  const post = (path: string, maker: OAuthTestUser) => app.http(path, { method: 'POST', token: maker.session });
  const earningsDrifts = async () =>
    (await app.app.get(ReconciliationService).reconcile()).drifts.filter((drift) => drift.kind.startsWith('earnings'));

  it('links an account through Stripe’s hosted onboarding, once', async () => {
    const { maker } = await makerWith([]);
    const first = await post('/api/v1/earnings/connect', maker);
    expect(first.status).toBe(200);
    expect(first.body.data.url).toMatch(new RegExp(`^${stripe.url}/setup/e/acct_[0-9a-f]+/`));
    const again = await post('/api/v1/earnings/connect', maker);
    expect(again.body.data.url).toContain(first.body.data.url.split('/')[5]);
    const accounts = stripe.requests.filter((request) => request.path === '/v1/accounts');
    expect(accounts).toHaveLength(1);
    expect(accounts[0].form).toMatchObject({ type: 'express', metadata: { user_id: maker.id } });
    expect(accounts[0].idempotencyKey).toBe(`connect:${maker.id}`);
    const links = stripe.requests.filter((request) => request.path === '/v1/account_links');
    expect(links.at(-1)!.form).toMatchObject({
      type: 'account_onboarding',
      return_url: expect.stringContaining('/earnings'),
    });
  });

  it('refuses a payout without a linked account, and moves nothing', async () => {
    const { maker, earned } = await makerWith([40_000]);
    const refused = await post('/api/v1/earnings/payouts', maker);
    expect([refused.status, refused.body.error.code]).toEqual([409, 'PAYOUT_ACCOUNT_MISSING']);
    const totals = (await app.http('/api/v1/earnings', { token: maker.session })).body.data.totals;
    expect(Math.round(totals.available * 1e6)).toBe(earned);
  });

  it('pays whole cents as one transfer per payout, even asked at once; below a cent goes to the budget', async () => {
    const { maker, earned } = await makerWith([41_234, 20_001, 3_333]);
    await post('/api/v1/earnings/connect', maker);
    const account = (
      await db<{ account_id: string }>('SELECT account_id FROM maker_payout_accounts WHERE user_id = $1', [maker.id])
    )[0].account_id;
    const before = stripe.transfers.size;
    const answers = await Promise.all(Array.from({ length: 4 }, () => post('/api/v1/earnings/payouts', maker)));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    const made = answers.map((answer) => answer.body.data.payout).filter(Boolean);
    expect(made).toHaveLength(1);
    const whole = Math.floor(earned / 10_000) * 10_000;
    expect(made[0]).toMatchObject({ amount: whole / 1e6, status: 'paid', sandbox: false });
    expect(stripe.transfers.size - before).toBe(1);
    const transfer = stripe.transfers.get(made[0].transferId)!;
    expect(transfer).toMatchObject({ amount: whole / 10_000, currency: 'usd', destination: account });
    const request = stripe.requests.filter((r) => r.path === '/v1/transfers').at(-1)!;
    expect(request.idempotencyKey).toBe(`payout:${made[0].id}`);
    const credited = answers.reduce((sum, answer) => sum + Math.round(answer.body.data.credited * 1e6), 0);
    expect(credited).toBe(earned - whole);
    const listed = (await app.http('/api/v1/earnings/payouts', { token: maker.session })).body.data;
    expect(listed).toMatchObject({ connected: true, sandbox: false, payouts: [{ id: made[0].id, status: 'paid' }] });
    expect(await earningsDrifts()).toEqual([]);
  });

  it('keeps a payout pending when Stripe fails, and sends it again with the same key: paid once', async () => {
    const { maker } = await makerWith([60_000]);
    await post('/api/v1/earnings/connect', maker);
    stripe.failTransfers = 3; // the SDK's own retries (2) and the first attempt
    const failed = await post('/api/v1/earnings/payouts', maker);
    expect([failed.status, failed.body.error.code]).toEqual([502, 'PAYOUT_PENDING']);
    const [pending] = await db<{ id: string; status: string }>(
      'SELECT id, status FROM maker_payouts WHERE maker_id = $1',
      [maker.id],
    );
    expect(pending.status).toBe('pending');
    const retried = await post('/api/v1/earnings/payouts', maker);
    expect(retried.status).toBe(200);
    expect(retried.body.data.payout).toBeNull(); // nothing new was available: the pending one was sent
    const [paid] = await db<{ status: string; transfer_id: string }>(
      'SELECT status, transfer_id FROM maker_payouts WHERE id = $1',
      [pending.id],
    );
    expect(paid.status).toBe('paid');
    const keyed = stripe.requests.filter(
      (r) => r.path === '/v1/transfers' && r.idempotencyKey === `payout:${pending.id}`,
    );
    expect(keyed.length).toBeGreaterThan(1);
    expect([...stripe.transfers.values()].filter((t) => t.id === paid.transfer_id)).toHaveLength(1);
    expect(await earningsDrifts()).toEqual([]);
  });
});

describe('payouts in the sandbox (no Stripe key)', () => {
  let app: TestApp;
  let kit: OAuthTestKit;

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp({ port, publicUrl: `http://127.0.0.1:${port}`, signupCredit: 0, earningsHoldDays: 0 });
    kit = await OAuthTestKit.start(app);
  });
  afterAll(() => app?.close());

  it('links a labelled sandbox account and pays out with sandbox transfers', async () => {
    const { maker, earned } = await earningMaker(app, kit, [30_000]);
    const connected = await app.http('/api/v1/earnings/connect', { method: 'POST', token: maker.session });
    expect(connected.body.data.url).toBe(`${app.config.publicUrl}/earnings?connected=sandbox`);
    const listed = (await app.http('/api/v1/earnings/payouts', { token: maker.session })).body.data;
    expect(listed).toEqual({ connected: true, sandbox: true, payouts: [] });
    expect(
      (await app.app.get(ReconciliationService).reconcile()).drifts.filter((d) => d.kind.startsWith('earnings')),
    ).toEqual([]);
    const paid = await app.http('/api/v1/earnings/payouts', { method: 'POST', token: maker.session });
    const whole = Math.floor(earned / 10_000) * 10_000;
    expect(paid.body.data.payout).toMatchObject({ amount: whole / 1e6, status: 'paid', sandbox: true });
    expect(paid.body.data.payout.transferId).toMatch(/^tr_sandbox_/);
    expect(Math.round(paid.body.data.credited * 1e6)).toBe(earned - whole);
    const nothing = await app.http('/api/v1/earnings/payouts', { method: 'POST', token: maker.session });
    expect(nothing.body.data).toEqual({ payout: null, credited: 0 });
  });
});
