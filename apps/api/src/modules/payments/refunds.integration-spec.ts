import { randomUUID } from 'node:crypto';
import { main, refundCommand } from '../../cli/admin';
import { ReconciliationService, ReservationService, UsageRecorder } from '../usage';
import { RefundsService } from './refunds.service';
import { FakeStripe } from '../../../test/support/fake-stripe';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';

/**
 * Refunds and disputes of card top-ups (docs/payments.md, "Refunds and disputes"): the admin's refund and Stripe's
 * webhooks take the money once per Stripe id, at most what the balance has free, the rest the operator's loss.
 */
const ADMIN = { email: 'refunds-admin@example.com', password: 'refunds admin password' };
const CHAT = { model: 'demo-chat', messages: [{ role: 'user', content: 'Hello refunds' }] };

async function register(app: TestApp, tag: string) {
  const res = await app.http('/api/v1/auth/register', {
    body: { email: uniqueEmail(tag), password: `${tag} password` },
  });
  return { token: res.body.data.token as string, id: res.body.data.user.id as string };
}

async function money(app: TestApp, userId: string) {
  const [balance] = await app.database.dataSource.query(
    'SELECT credits_micros, debits_micros, reserved_micros FROM balances WHERE user_id = $1',
    [userId],
  );
  const refunds: { id: string; amount_micros: string; debited_micros: string; lost_micros: string }[] =
    await app.database.dataSource.query(
      'SELECT id, amount_micros, debited_micros, lost_micros FROM payment_refunds WHERE user_id = $1 ORDER BY created_at',
      [userId],
    );
  const [entries] = await app.database.dataSource.query(
    `SELECT count(*) AS n, COALESCE(-sum(amount_micros), 0) AS micros FROM ledger_entries WHERE user_id = $1 AND kind = 'refund'`,
    [userId],
  );
  return {
    free: Number(balance.credits_micros) - Number(balance.debits_micros) - Number(balance.reserved_micros),
    refundEntries: Number(entries.n),
    refundedMicros: Number(entries.micros),
    lostMicros: refunds.reduce((sum, r) => sum + Number(r.lost_micros), 0),
    refunds,
  };
}

async function expectBooksBalance(app: TestApp) {
  const report = await ReconciliationService.over(app.database.dataSource).reconcile(null);
  expect(report.drifts).toEqual([]);
}

function setup(stripe: () => FakeStripe | null) {
  const state = {} as { app: TestApp; admin: string };
  beforeAll(async () => {
    const fake = stripe();
    state.app = await startTestApp({
      signupCredit: 0,
      adminEmail: ADMIN.email,
      adminPassword: ADMIN.password,
      ...(fake
        ? {
            stripeSecretKey: FakeStripe.secretKey,
            stripeWebhookSecret: FakeStripe.webhookSecret,
            stripeApiBase: fake.url,
          }
        : {}),
    });
    state.admin = (await state.app.http('/api/v1/auth/login', { body: ADMIN })).body.data.token;
  });
  afterAll(() => state.app?.close());
  return state;
}

const refund = (s: { app: TestApp; admin: string }, userId: string, paymentId: string, body: unknown = {}) =>
  s.app.http(`/api/v1/admin/users/${userId}/payments/${paymentId}/refund`, { token: s.admin, body });

describe('refunds of sandbox top-ups (no Stripe key)', () => {
  const s = setup(() => null);

  /** A sandbox top-up of `amount`, paid and credited. */
  async function topUp(user: { token: string }, amount: number): Promise<string> {
    const { sessionId } = (
      await s.app.http('/api/v1/payment/create-checkout-session', { token: user.token, body: { amount } })
    ).body.data;
    const paid = await fetch(`${s.app.url}/api/v1/payment/sandbox/${sessionId}/pay`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(paid.status).toBe(303);
    return sessionId;
  }

  it('is for admins only, and refuses another user’s payment, one never paid, and more than was paid', async () => {
    const alice = await register(s.app, 'refund-alice');
    const bob = await register(s.app, 'refund-bob');
    const payment = await topUp(alice, 5);
    const path = `/api/v1/admin/users/${alice.id}/payments/${payment}/refund`;
    expect((await s.app.http(path, { token: alice.token, body: {} })).status).toBe(403);
    expect((await s.app.http(path, { body: {} })).status).toBe(401);
    expect((await refund(s, bob.id, payment)).body.error.code).toBe('PAYMENT_NOT_FOUND');
    const over = await refund(s, alice.id, payment, { amount: 5.01 });
    expect(over.status).toBe(409);
    expect(over.body.error.code).toBe('PAYMENT_NOT_REFUNDABLE');
    for (const amount of [0, -1, 1.234, '1']) expect((await refund(s, alice.id, payment, { amount })).status).toBe(400);
    const { sessionId: unpaid } = (
      await s.app.http('/api/v1/payment/create-checkout-session', { token: alice.token, body: { amount: 3 } })
    ).body.data;
    expect((await refund(s, alice.id, unpaid)).status).toBe(409);
    const after = await money(s.app, alice.id);
    expect(after.free).toBe(5_000_000);
    expect(after.refunds).toEqual([]);
  });

  it('after calls: the balance goes down by the refund, at most what is left, and the rest is the operator’s loss', async () => {
    const user = await register(s.app, 'refund-calls');
    const payment = await topUp(user, 2);
    const key = (await s.app.http('/api/v1/keys', { token: user.token, body: { name: 'k' } })).body.data.key;
    for (let i = 0; i < 3; i += 1)
      expect((await s.app.http('/v1/chat/completions', { token: key, body: CHAT })).status).toBe(200);
    await s.app.app.get(ReservationService).flushSettlements();
    await s.app.app.get(UsageRecorder).flush();
    const before = await money(s.app, user.id);
    expect(before.free).toBeLessThan(2_000_000);
    expect(before.free).toBeGreaterThan(1_000_000);

    const partial = await refund(s, user.id, payment, { amount: 1 });
    expect(partial.status).toBe(200);
    expect(partial.body.data).toMatchObject({
      paymentId: payment,
      kind: 'refund',
      amount: 1,
      debited: 1,
      lost: 0,
      refundable: 1,
    });
    expect((await money(s.app, user.id)).free).toBe(before.free - 1_000_000);

    const rest = await refund(s, user.id, payment);
    expect(rest.status).toBe(200);
    const spent = 2_000_000 - before.free;
    expect(rest.body.data.amount).toBe(1);
    expect(rest.body.data.debited * 1_000_000).toBeCloseTo(1_000_000 - spent, 0);
    expect(rest.body.data.refundable).toBe(0);
    const after = await money(s.app, user.id);
    expect(after.free).toBe(0);
    expect(after.refundedMicros).toBe(2_000_000 - spent);
    expect(after.lostMicros).toBe(spent);
    expect((await refund(s, user.id, payment, { amount: 0.01 })).status).toBe(409);
    const audit = (await s.app.http(`/api/v1/admin/audit?userId=${user.id}`, { token: s.admin })).body.data.items;
    expect(audit.map((entry: { action: string }) => entry.action)).toEqual(['payment_refunded', 'payment_refunded']);
    expect(audit[1].details).toMatchObject({ paymentId: payment, amount: 1, debited: 1, lost: 0 });
    await expectBooksBalance(s.app);
    // Reconcile reports the loss (and `--fail-on-loss` fails on it): the refund the balance could not cover.
    const report = await ReconciliationService.over(s.app.database.dataSource).reconcile(null, user.id);
    expect(report.refundLosses).toMatchObject({ refunds: 1, micros: spent });
    expect(report.refundLosses.largest).toEqual([
      { userId: user.id, refundId: rest.body.data.refundId, kind: 'refund', lost: spent, clawed: 0 },
    ]);
  });

  it('npm run admin -- refund: checks its arguments before opening anything, and refunds once', async () => {
    const quiet = jest.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      for (const argv of [
        ['refund'],
        ['refund', 'not-a-user', 'cs_x'],
        ['refund', '00000000-0000-0000-0000-000000000000'],
        ['refund', '00000000-0000-0000-0000-000000000000', 'cs_x', '--amount', '1.234'],
      ])
        expect(await main(argv)).toBe(2);
      const user = await register(s.app, 'refund-cli');
      const payment = await topUp(user, 3);
      const refunds = s.app.app.get(RefundsService);
      expect(await refundCommand(refunds, { userId: user.id, paymentId: payment, amount: 3.01 })).toBe(1);
      expect(await refundCommand(refunds, { userId: user.id, paymentId: payment, amount: undefined })).toBe(0);
      expect(quiet.mock.calls.flat().join('\n')).toContain('refunded 3.00 of');
      expect(await refundCommand(refunds, { userId: user.id, paymentId: payment, amount: undefined })).toBe(1);
      expect((await money(s.app, user.id)).free).toBe(0);
      const audit = (await s.app.http(`/api/v1/admin/audit?userId=${user.id}`, { token: s.admin })).body.data.items;
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ action: 'payment_refunded', admin: null });
    } finally {
      quiet.mockRestore();
    }
  });

  it('refunds in parallel never take more than the payment', async () => {
    const user = await register(s.app, 'refund-race');
    const payment = await topUp(user, 10);
    const answers = await Promise.all(Array.from({ length: 6 }, () => refund(s, user.id, payment, { amount: 3 })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(3);
    expect(answers.filter((a) => a.status === 409)).toHaveLength(3);
    const all = await Promise.all(Array.from({ length: 4 }, () => refund(s, user.id, payment)));
    expect(all.filter((a) => a.status === 200)).toHaveLength(1);
    const after = await money(s.app, user.id);
    expect(after.refundedMicros).toBe(10_000_000);
    expect(after.free).toBe(0);
    expect(after.lostMicros).toBe(0);
    await expectBooksBalance(s.app);
  });
});

describe('refunds and disputes through Stripe (a local server speaking its wire format)', () => {
  let stripe: FakeStripe;
  beforeAll(async () => {
    stripe = await FakeStripe.start();
  });
  afterAll(() => stripe?.stop());
  const s = setup(() => stripe);

  const deliver = (delivery: { payload: string; signature: string }) =>
    s.app.http('/api/v1/payment/webhook', {
      rawBody: delivery.payload,
      headers: { 'stripe-signature': delivery.signature },
    });

  /** A Stripe top-up of `amount`, paid, credited by the webhook. */
  async function topUp(user: { token: string }, amount: number): Promise<string> {
    const { sessionId } = (
      await s.app.http('/api/v1/payment/create-checkout-session', { token: user.token, body: { amount } })
    ).body.data;
    stripe.pay(sessionId);
    expect((await deliver(stripe.event('checkout.session.completed', sessionId))).status).toBe(200);
    return sessionId;
  }

  it('an admin refund at Stripe, then its charge.refunded twice: the money is taken once', async () => {
    const user = await register(s.app, 'stripe-refund');
    const payment = await topUp(user, 10);
    const res = await refund(s, user.id, payment, { amount: 4 });
    expect(res.status).toBe(200);
    expect(res.body.data.refundId).toMatch(/^re_/);
    expect(stripe.refunds.get(res.body.data.refundId)?.amount).toBe(400);
    const event = stripe.chargeEvent('charge.refunded', payment);
    expect((await deliver(event)).status).toBe(200);
    expect((await deliver(event)).status).toBe(200);
    const after = await money(s.app, user.id);
    expect(after.refundEntries).toBe(1);
    expect(after.free).toBe(6_000_000);
    // Above what is left: refused before Stripe is asked.
    const asked = stripe.refunds.size;
    expect((await refund(s, user.id, payment, { amount: 6.01 })).status).toBe(409);
    expect(stripe.refunds.size).toBe(asked);
    await expectBooksBalance(s.app);
  });

  it('a refund in Stripe’s dashboard: charge.refunded takes it once, also delivered twice at once', async () => {
    const user = await register(s.app, 'stripe-dashboard');
    const payment = await topUp(user, 5);
    stripe.refund(payment, 150);
    const event = stripe.chargeEvent('charge.refunded', payment);
    const answers = await Promise.all([
      deliver(event),
      deliver(event),
      deliver(stripe.chargeEvent('charge.refunded', payment)),
    ]);
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    const after = await money(s.app, user.id);
    expect(after.refundEntries).toBe(1);
    expect(after.free).toBe(3_500_000);
  });

  it('a dispute takes the disputed amount once (created, then closed lost), never below zero; one won takes nothing', async () => {
    const user = await register(s.app, 'stripe-dispute');
    const payment = await topUp(user, 8);
    // The user spends part of it first (as an adjustment would): 3 left free.
    const spent = await s.app.http(`/api/v1/admin/users/${user.id}/adjustments`, {
      token: s.admin,
      body: { amount: -5, reason: 'spent', idempotencyKey: randomUUID() },
    });
    expect(spent.status).toBe(200);
    const dispute = { id: 'dp_test_lost_1', amount: 800, status: 'needs_response' };
    expect((await deliver(stripe.disputeEvent('charge.dispute.created', payment, dispute))).status).toBe(200);
    expect(
      (await deliver(stripe.disputeEvent('charge.dispute.closed', payment, { ...dispute, status: 'lost' }))).status,
    ).toBe(200);
    const after = await money(s.app, user.id);
    expect(after.free).toBe(0);
    expect(after.refunds).toHaveLength(1);
    expect(after.refunds[0]).toMatchObject({
      id: 'dp_test_lost_1',
      amount_micros: '8000000',
      debited_micros: '3000000',
      lost_micros: '5000000',
    });

    const other = await register(s.app, 'stripe-dispute-won');
    const second = await topUp(other, 4);
    const won = { id: 'dp_test_won_1', amount: 400, status: 'won' };
    expect((await deliver(stripe.disputeEvent('charge.dispute.closed', second, won))).status).toBe(200);
    expect((await money(s.app, other.id)).free).toBe(4_000_000);
    await expectBooksBalance(s.app);
  });
});
