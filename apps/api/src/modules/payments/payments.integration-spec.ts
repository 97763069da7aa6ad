import { request, type IncomingHttpHeaders } from 'node:http';
import Stripe from 'stripe';
import { FakeStripe } from '../../../test/support/fake-stripe';
import { freePort } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';

async function register(app: TestApp, tag: string) {
  const res = await app.http('/api/v1/auth/register', {
    body: { email: uniqueEmail(tag), password: `${tag} password` },
  });
  return { token: res.body.data.token as string, id: res.body.data.user.id as string };
}

/** The user's ledger credits by kind, and the balance row, straight from the database. */
async function money(app: TestApp, userId: string) {
  const entries: { kind: string; amount_micros: string; idempotency_key: string }[] =
    await app.database.dataSource.query(
      `SELECT kind, amount_micros, idempotency_key FROM ledger_entries WHERE user_id = $1 AND amount_micros > 0 ORDER BY id`,
      [userId],
    );
  const [balance] = await app.database.dataSource.query('SELECT credits_micros FROM balances WHERE user_id = $1', [
    userId,
  ]);
  return {
    entries: entries.map((e) => ({ kind: e.kind, micros: Number(e.amount_micros), key: e.idempotency_key })),
    creditsMicros: Number(balance?.credits_micros ?? 0),
  };
}

describe('card top-ups through Stripe (a local server speaking its wire format)', () => {
  let stripe: FakeStripe;
  let app: TestApp;
  let alice: { token: string; id: string };
  let bob: { token: string; id: string };

  const checkout = (user: { token: string }, amount: unknown, headers?: Record<string, string>) =>
    app.http('/api/v1/payment/create-checkout-session', { token: user.token, body: { amount }, headers });
  const verify = (user: { token: string }, sessionId: string) =>
    app.http(`/api/v1/payment/verify-and-capture?session_id=${encodeURIComponent(sessionId)}`, {
      method: 'POST',
      token: user.token,
    });
  const deliver = (delivery: { payload: string; signature: string }) =>
    app.http('/api/v1/payment/webhook', {
      rawBody: delivery.payload,
      headers: { 'stripe-signature': delivery.signature },
    });

  beforeAll(async () => {
    stripe = await FakeStripe.start();
    app = await startTestApp({
      signupCredit: 0,
      stripeSecretKey: FakeStripe.secretKey,
      stripeWebhookSecret: FakeStripe.webhookSecret,
      stripeApiBase: stripe.url,
    });
    alice = await register(app, 'alice');
    bob = await register(app, 'bob');
  });
  afterAll(async () => {
    await app?.close();
    await stripe?.stop();
  });

  it('validates the amount: at least 0.50, at most 10,000, whole cents', async () => {
    for (const amount of [0.49, 10_000.01, 1.234, '5', null, -1]) {
      const res = await checkout(alice, amount);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
      expect(res.body.error.details[0].field).toBe('amount');
    }
    expect((await checkout(alice, 0.5)).status).toBe(201);
    expect((await checkout(alice, 10_000)).status).toBe(201);
  });

  it('creates a Checkout Session in payment mode that returns to the billing page, owned by the caller, and records it', async () => {
    const res = await checkout(alice, 15);
    expect(res.status).toBe(201);
    const { sessionId, checkoutUrl } = res.body.data;
    expect(sessionId).toMatch(/^cs_test_/);
    const request = stripe.requests.at(-1)!;
    expect(request).toMatchObject({ method: 'POST', path: '/v1/checkout/sessions' });
    expect(request.stripeVersion).toBeTruthy();
    expect(request.idempotencyKey).toMatch(new RegExp(`^checkout:${alice.id}:`));
    expect(request.form).toMatchObject({
      mode: 'payment',
      client_reference_id: alice.id,
      // The origin the caller is on (a loopback alias of PUBLIC_URL here): docs/payments.md.
      success_url: `${app.url}/billing?session_id={CHECKOUT_SESSION_ID}`,
      line_items: [{ quantity: '1', price_data: { currency: 'usd', unit_amount: '1500' } }],
      metadata: { userId: alice.id, amountMicros: '15000000' },
    });
    expect(checkoutUrl).toBe(stripe.sessions.get(sessionId)!.url);
    const [row] = await app.database.dataSource.query(
      'SELECT user_id, amount_micros, status, provider FROM payments WHERE id = $1',
      [sessionId],
    );
    expect(row).toEqual({ user_id: alice.id, amount_micros: '15000000', status: 'open', provider: 'stripe' });
  });

  it('answers the same session for the same Idempotency-Key (per user), and refuses a malformed key', async () => {
    const first = await checkout(alice, 3, { 'idempotency-key': 'topup-42' });
    const again = await checkout(alice, 3, { 'idempotency-key': 'topup-42' });
    expect(again.body.data.sessionId).toBe(first.body.data.sessionId);
    const bobs = await checkout(bob, 3, { 'idempotency-key': 'topup-42' });
    expect(bobs.body.data.sessionId).not.toBe(first.body.data.sessionId);
    const [{ count }] = await app.database.dataSource.query(
      'SELECT count(*)::int AS count FROM payments WHERE id = $1',
      [first.body.data.sessionId],
    );
    expect(count).toBe(1);
    expect((await checkout(alice, 3, { 'idempotency-key': 'no spaces allowed' })).status).toBe(400);
  });

  it('credits a paid session exactly once: verified twice, webhook delivered twice and out of order, all at once', async () => {
    const user = await register(app, 'payer');
    const { sessionId } = (await checkout(user, 15)).body.data;

    const early = await verify(user, sessionId);
    expect(early.status).toBe(200);
    expect(early.body.data).toEqual({ status: 'unpaid', amountAdded: 0, newBalance: 0 });

    stripe.pay(sessionId);
    const completed = stripe.event('checkout.session.completed', sessionId);
    const asyncSucceeded = stripe.event('checkout.session.async_payment_succeeded', sessionId);
    // The async event first (out of order), then everything together: redirect, retry, two deliveries, a replay.
    expect((await deliver(asyncSucceeded)).status).toBe(200);
    const answers = await Promise.all([
      verify(user, sessionId),
      deliver(completed),
      verify(user, sessionId),
      deliver(completed),
      deliver(asyncSucceeded),
    ]);
    for (const answer of answers) expect(answer.status).toBe(200);
    for (const answer of [answers[0], answers[2], await verify(user, sessionId)])
      expect(answer.body.data).toEqual({ status: 'paid', amountAdded: 15, newBalance: 15 });

    expect(await money(app, user.id)).toEqual({
      entries: [{ kind: 'payment', micros: 15_000_000, key: `payment:${sessionId}` }],
      creditsMicros: 15_000_000,
    });
    expect((await app.http('/api/v1/usage/me/summary', { token: user.token })).body.data).toMatchObject({
      maxBudget: 15,
      remainingBudget: 15,
    });
    const [row] = await app.database.dataSource.query(
      'SELECT status, paid_at, credited_at FROM payments WHERE id = $1',
      [sessionId],
    );
    expect(row.status).toBe('paid');
    expect(row.credited_at).not.toBeNull();
  });

  it('waits for a delayed payment: completed-but-unpaid credits nothing, async_payment_succeeded credits once', async () => {
    const user = await register(app, 'delayed');
    const { sessionId } = (await checkout(user, 7.25)).body.data;
    stripe.pay(sessionId, { async: true });
    const completedUnpaid = stripe.event('checkout.session.completed', sessionId);
    expect((await deliver(completedUnpaid)).status).toBe(200);
    expect((await verify(user, sessionId)).body.data).toEqual({ status: 'unpaid', amountAdded: 0, newBalance: 0 });
    expect((await money(app, user.id)).entries).toEqual([]);

    stripe.clear(sessionId);
    expect((await deliver(stripe.event('checkout.session.async_payment_succeeded', sessionId))).status).toBe(200);
    // A late redelivery of the earlier (unpaid) completion changes nothing.
    expect((await deliver(completedUnpaid)).status).toBe(200);
    expect((await verify(user, sessionId)).body.data).toEqual({ status: 'paid', amountAdded: 7.25, newBalance: 7.25 });
    expect((await money(app, user.id)).creditsMicros).toBe(7_250_000);
  });

  it('refuses a webhook whose signature does not match (400) and credits nothing', async () => {
    const user = await register(app, 'forger');
    const { sessionId } = (await checkout(user, 20)).body.data;
    stripe.pay(sessionId);
    const genuine = stripe.event('checkout.session.completed', sessionId);
    const forged = [
      stripe.event('checkout.session.completed', sessionId, 'whsec_someone_else'),
      { payload: genuine.payload.replace('"amount_total":2000', '"amount_total":9000'), signature: genuine.signature },
      { payload: genuine.payload, signature: '' },
      {
        payload: genuine.payload,
        signature: Stripe.webhooks.generateTestHeaderString({
          payload: genuine.payload,
          secret: FakeStripe.webhookSecret,
          timestamp: Math.floor(Date.now() / 1000) - 3600,
        }),
      },
    ];
    for (const delivery of forged) {
      const res = await deliver(delivery);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'PAYMENT_WEBHOOK_SIGNATURE_INVALID' } });
    }
    expect((await app.http('/api/v1/payment/webhook', { body: JSON.parse(genuine.payload) })).status).toBe(400);
    expect(await money(app, user.id)).toEqual({ entries: [], creditsMicros: 0 });
    // The genuine delivery still works afterwards.
    expect((await deliver(genuine)).status).toBe(200);
    expect((await money(app, user.id)).creditsMicros).toBe(20_000_000);
  });

  it("refuses another user's session exactly like a missing one (404), and credits nobody", async () => {
    const { sessionId } = (await checkout(alice, 9)).body.data;
    stripe.pay(sessionId);
    const before = await money(app, bob.id);
    const theirs = await verify(bob, sessionId);
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('PAYMENT_NOT_FOUND');
    const missing = await verify(bob, 'cs_test_does_not_exist');
    expect(missing.body).toMatchObject({ error: { code: 'PAYMENT_NOT_FOUND' }, message: theirs.body.message });
    expect(await money(app, bob.id)).toEqual(before);
    expect((await money(app, alice.id)).entries.filter((e) => e.key === `payment:${sessionId}`)).toEqual([]);
    expect((await verify(bob, 'not-a-session')).status).toBe(400);
    expect(
      (await app.http(`/api/v1/payment/verify-and-capture?session_id=${sessionId}`, { method: 'POST' })).status,
    ).toBe(401);
  });

  it('reports an expired session, and a session Stripe no longer knows as a provider error (502)', async () => {
    const user = await register(app, 'expiry');
    const expiring = (await checkout(user, 4)).body.data.sessionId;
    stripe.expire(expiring);
    expect((await verify(user, expiring)).body.data).toEqual({ status: 'expired', amountAdded: 0, newBalance: 0 });
    const [row] = await app.database.dataSource.query('SELECT status FROM payments WHERE id = $1', [expiring]);
    expect(row.status).toBe('expired');

    const vanished = (await checkout(user, 4)).body.data.sessionId;
    stripe.sessions.delete(vanished);
    const res = await verify(user, vanished);
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('PAYMENT_PROVIDER_ERROR');
    expect(JSON.stringify(res.body)).not.toContain(FakeStripe.secretKey);
  });

  it('credits nothing when Stripe’s session disagrees with our record of the owner or the amount', async () => {
    const user = await register(app, 'mismatch');
    const { sessionId } = (await checkout(user, 5)).body.data;
    Object.assign(stripe.pay(sessionId), { amount_total: 50_000 });
    expect((await deliver(stripe.event('checkout.session.completed', sessionId))).status).toBe(200);
    const res = await verify(user, sessionId);
    expect(res.status).toBe(502);
    expect(res.body.error.code).toBe('PAYMENT_PROVIDER_ERROR');
    Object.assign(stripe.sessions.get(sessionId)!, { amount_total: 500, client_reference_id: bob.id });
    expect((await deliver(stripe.event('checkout.session.completed', sessionId))).status).toBe(200);
    expect(await money(app, user.id)).toEqual({ entries: [], creditsMicros: 0 });
    expect((await money(app, bob.id)).entries.filter((e) => e.key === `payment:${sessionId}`)).toEqual([]);
  });

  it('acknowledges events for sessions it did not make, and events it does not handle, crediting nothing', async () => {
    stripe.sessions.set('cs_test_foreign', {
      ...stripe.sessions.values().next().value!,
      id: 'cs_test_foreign',
      client_reference_id: alice.id,
      payment_status: 'paid',
    });
    const before = await money(app, alice.id);
    expect((await deliver(stripe.event('checkout.session.completed', 'cs_test_foreign'))).status).toBe(200);
    expect((await deliver(stripe.event('customer.created', 'cs_test_foreign'))).status).toBe(200);
    expect(await money(app, alice.id)).toEqual(before);
  });

  it('lists credits in the ledger history, newest first, paged with a cursor', async () => {
    const user = await register(app, 'history');
    const sessions: string[] = [];
    for (const amount of [1, 2, 3]) {
      const { sessionId } = (await checkout(user, amount)).body.data;
      stripe.pay(sessionId);
      await verify(user, sessionId);
      sessions.push(sessionId);
    }
    const first = (await app.http('/api/v1/usage/me/ledger?limit=2', { token: user.token })).body.data;
    expect(first.items.map((item: { amount: number; kind: string }) => [item.kind, item.amount])).toEqual([
      ['payment', 3],
      ['payment', 2],
    ]);
    expect(first.items[0].reference).toMatch(/^cs_test_/);
    const second = (await app.http(`/api/v1/usage/me/ledger?limit=2&cursor=${first.nextCursor}`, { token: user.token }))
      .body.data;
    expect(second.items.map((item: { amount: number }) => item.amount)).toEqual([1]);
    expect(second.nextCursor).toBeNull();
    expect((await app.http('/api/v1/usage/me/ledger?cursor=abc', { token: user.token })).status).toBe(400);
    const others = (await app.http('/api/v1/usage/me/ledger', { token: alice.token })).body.data.items.map(
      (item: { reference: string }) => item.reference,
    );
    for (const sessionId of sessions) expect(others).not.toContain(sessionId);
  });
});

describe('the checkout returns to the origin the user is on, if it is one of the service’s own', () => {
  let app: TestApp;
  let user: { token: string; id: string };
  let port: number;

  /** A raw request, so the Host header can be anything (fetch sends the URL's). */
  const raw = (path: string, method: string, headers: Record<string, string>, body?: string) =>
    new Promise<{ status: number; headers: IncomingHttpHeaders; text: string }>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
        let text = '';
        res.on('data', (chunk: Buffer) => (text += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
      });
      req.on('error', reject);
      req.end(body);
    });
  const create = async (headers: Record<string, string>) => {
    const res = await raw(
      '/api/v1/payment/create-checkout-session',
      'POST',
      { authorization: `Bearer ${user.token}`, 'content-type': 'application/json', ...headers },
      JSON.stringify({ amount: 1 }),
    );
    return JSON.parse(res.text).data as { sessionId: string; checkoutUrl: string };
  };

  beforeAll(async () => {
    port = await freePort();
    app = await startTestApp({ signupCredit: 0, port, publicUrl: `http://127.0.0.1:${port}` });
    user = await register(app, 'hosts');
  });
  afterAll(() => app?.close());

  it('keeps localhost when the user is on localhost and PUBLIC_URL is 127.0.0.1 (same port)', async () => {
    const { sessionId, checkoutUrl } = await create({ host: `localhost:${port}`, origin: `http://localhost:${port}` });
    expect(checkoutUrl).toBe(`http://localhost:${port}/api/v1/payment/sandbox/${sessionId}`);
    const page = await raw(`/api/v1/payment/sandbox/${sessionId}`, 'GET', { host: `localhost:${port}` });
    expect(page.text).toContain(`http://localhost:${port}/billing?checkout=cancelled`);
    const paid = await raw(`/api/v1/payment/sandbox/${sessionId}/pay`, 'POST', {
      host: `localhost:${port}`,
      'content-type': 'application/x-www-form-urlencoded',
    });
    expect([paid.status, paid.headers.location]).toEqual([
      303,
      `http://localhost:${port}/billing?session_id=${sessionId}`,
    ]);
  });

  it('falls back to PUBLIC_URL for a Host or Origin that is not configured: no open redirect', async () => {
    const cases: Record<string, string>[] = [
      { host: 'evil.example', origin: 'https://evil.example' },
      { host: `evil.example:${port}` },
      { host: `localhost:${port + 1}`, origin: `http://localhost:${port + 1}` },
      { host: `127.0.0.1:${port}@evil.example` },
    ];
    for (const headers of cases) {
      const { sessionId, checkoutUrl } = await create(headers);
      expect(checkoutUrl).toBe(`http://127.0.0.1:${port}/api/v1/payment/sandbox/${sessionId}`);
      const paid = await raw(`/api/v1/payment/sandbox/${sessionId}/pay`, 'POST', {
        host: headers.host,
        'content-type': 'application/x-www-form-urlencoded',
      });
      expect(paid.headers.location).toBe(`http://127.0.0.1:${port}/billing?session_id=${sessionId}`);
    }
  });
});

describe('the sandbox checkout (no Stripe key)', () => {
  let app: TestApp;
  let user: { token: string; id: string };

  const pay = (app: TestApp, sessionId: string) =>
    fetch(`${app.url}/api/v1/payment/sandbox/${sessionId}/pay`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });

  beforeAll(async () => {
    app = await startTestApp({ signupCredit: 0 });
    user = await register(app, 'sandbox');
  });
  afterAll(() => app?.close());

  it('serves a page labelled as a sandbox, whose Pay completes the session, credits once and returns to billing', async () => {
    const created = await app.http('/api/v1/payment/create-checkout-session', {
      token: user.token,
      body: { amount: 12.5 },
    });
    expect(created.status).toBe(201);
    const { sessionId, checkoutUrl } = created.body.data;
    expect(sessionId).toMatch(/^cs_sandbox_[0-9a-f]{32}$/);
    expect(checkoutUrl).toBe(`${app.url}/api/v1/payment/sandbox/${sessionId}`);

    const page = await fetch(`${app.url}/api/v1/payment/sandbox/${sessionId}`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).toContain('Sandbox — no real card is charged');
    expect(html).toContain('$12.50');
    expect(html).toContain(`action="/api/v1/payment/sandbox/${sessionId}/pay"`);

    const verify = () =>
      app.http(`/api/v1/payment/verify-and-capture?session_id=${sessionId}`, { method: 'POST', token: user.token });
    expect((await verify()).body.data).toEqual({ status: 'unpaid', amountAdded: 0, newBalance: 0 });

    const [paid, again] = [await pay(app, sessionId), await pay(app, sessionId)];
    for (const res of [paid, again]) {
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe(`${app.url}/billing?session_id=${sessionId}`);
    }
    for (let i = 0; i < 2; i += 1)
      expect((await verify()).body.data).toEqual({ status: 'paid', amountAdded: 12.5, newBalance: 12.5 });
    expect(await money(app, user.id)).toEqual({
      entries: [{ kind: 'payment', micros: 12_500_000, key: `payment:${sessionId}` }],
      creditsMicros: 12_500_000,
    });
    expect(await (await fetch(`${app.url}/api/v1/payment/sandbox/${sessionId}`)).text()).toContain('already paid');
  });

  it('expires a sandbox session after 24 hours: the page says so, Pay is refused, verify reports expired', async () => {
    const { sessionId } = (
      await app.http('/api/v1/payment/create-checkout-session', { token: user.token, body: { amount: 1 } })
    ).body.data;
    await app.database.dataSource.query(`UPDATE payments SET created_at = now() - interval '25 hours' WHERE id = $1`, [
      sessionId,
    ]);
    expect(await (await fetch(`${app.url}/api/v1/payment/sandbox/${sessionId}`)).text()).toContain('expired');
    const refused = await pay(app, sessionId);
    expect(refused.status).toBe(422);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('PAYMENT_SESSION_EXPIRED');
    const res = await app.http(`/api/v1/payment/verify-and-capture?session_id=${sessionId}`, {
      method: 'POST',
      token: user.token,
    });
    expect(res.body.data.status).toBe('expired');
  });

  it('has no page for unknown sessions, and no webhook without STRIPE_WEBHOOK_SECRET', async () => {
    expect((await fetch(`${app.url}/api/v1/payment/sandbox/cs_sandbox_${'0'.repeat(32)}`)).status).toBe(404);
    expect((await pay(app, 'cs_test_not_a_sandbox_one')).status).toBe(404);
    const webhook = await app.http('/api/v1/payment/webhook', {
      rawBody: '{}',
      headers: { 'stripe-signature': 't=1,v1=00' },
    });
    expect(webhook.status).toBe(503);
    expect(webhook.body.error.code).toBe('PAYMENT_WEBHOOK_NOT_CONFIGURED');
  });
});
