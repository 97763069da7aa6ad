import { randomUUID } from 'node:crypto';
import { FakeSmtp, type ReceivedMail } from '../../../test/support/fake-smtp';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { ReservationService } from '../usage';
import { NotificationsService } from './notifications.service';

const ADMIN = { email: 'alerts-admin@example.com', password: 'alerts admin password' };
const CHAT = { model: 'demo-chat', max_tokens: 20, messages: [{ role: 'user', content: 'Spend a little' }] };

/**
 * Receipts for every credit and the budget alerts (docs/mail.md), against a real SMTP server on 127.0.0.1; and the
 * operator's REQUIRE_VERIFIED_EMAIL_FOR_TOPUP.
 */
describe('receipts and budget alerts by mail', () => {
  let app: TestApp;
  let smtp: FakeSmtp;
  let admin: string;

  beforeAll(async () => {
    smtp = await FakeSmtp.start();
    app = await startTestApp({
      smtpUrl: smtp.url(),
      signupCredit: 0,
      adminEmail: ADMIN.email,
      adminPassword: ADMIN.password,
    });
    admin = (await app.http('/api/v1/auth/login', { body: ADMIN })).body.data.token;
  });
  afterAll(async () => {
    await app?.close();
    await smtp?.close();
  });

  const register = async () => {
    const email = uniqueEmail('alerts');
    const res = await app.http('/api/v1/auth/register', { body: { email, password: 'alerts password' } });
    return { email, session: res.body.data.token as string, id: res.body.data.user.id as string };
  };
  const adjust = (userId: string, amount: number) =>
    app.http(`/api/v1/admin/users/${userId}/adjustments`, {
      token: admin,
      body: { amount, reason: 'alerts test', idempotencyKey: randomUUID() },
    });
  const mails = (email: string, kind: string) => smtp.to(email).filter((mail: ReceivedMail) => mail.kind === kind);
  const sweep = () => app.app.get(NotificationsService).sweep();

  it('mails a receipt for a gift card and an operator’s credit, once each, and none for a debit', async () => {
    const user = await register();
    const issued = await app.http('/api/v1/admin/giftcards', { token: admin, body: { amount: 7.5, count: 1 } });
    const code = issued.body.data.cards[0].code;
    expect((await app.http('/api/v1/giftcard/redeem', { token: user.session, body: { code } })).status).toBe(200);
    const receipt = await smtp.next(user.email, (mail) => mail.kind === 'receipt');
    expect(receipt.subject).toBe('Receipt: $7.50 added to your Switchyard balance');
    expect(receipt.text).toContain('Gift card: $7.50 was added to your balance');
    expect(receipt.text).toContain(`Reference: ${issued.body.data.cards[0].id}`);
    expect(receipt.text).toContain('Your balance is now $7.50.');
    expect(receipt.link).toBe(`${app.config.publicUrl}/billing`);
    // Redeeming again adds nothing and mails nothing.
    expect((await app.http('/api/v1/giftcard/redeem', { token: user.session, body: { code } })).status).toBe(409);
    expect((await adjust(user.id, 0.000214)).status).toBe(200);
    await smtp.next(user.email, (mail) => mail.kind === 'receipt' && mail.subject.includes('$0.000214'));
    expect((await adjust(user.id, -1)).status).toBe(200);
    await app.app.get(NotificationsService).idle();
    expect(mails(user.email, 'receipt').map((mail) => mail.subject)).toEqual([
      'Receipt: $7.50 added to your Switchyard balance',
      'Receipt: $0.000214 added to your Switchyard balance',
    ]);
  });

  it('mails a receipt for a card payment once, however many times it is confirmed', async () => {
    const user = await register();
    const checkout = await app.http('/api/v1/payment/create-checkout-session', {
      token: user.session,
      body: { amount: 12 },
    });
    expect(checkout.status).toBe(201);
    const { sessionId } = checkout.body.data;
    const pay = await fetch(`${app.url}/api/v1/payment/sandbox/${sessionId}/pay`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect([pay.status, await pay.text()]).toEqual([303, expect.anything()]);
    for (let i = 0; i < 3; i += 1)
      await app.http(`/api/v1/payment/verify-and-capture?session_id=${sessionId}`, {
        method: 'POST',
        token: user.session,
      });
    await smtp.next(user.email, (mail) => mail.kind === 'receipt');
    await app.app.get(NotificationsService).idle();
    const receipts = mails(user.email, 'receipt');
    expect(receipts).toHaveLength(1);
    expect(receipts[0].text).toContain(`Card payment: $12.00 was added`);
    expect(receipts[0].text).toContain(`Reference: ${sessionId}`);
  });

  it('has thresholds of its own per account, with defaults, checked', async () => {
    const user = await register();
    const get = () => app.http('/api/v1/notifications/settings', { token: user.session });
    expect((await get()).body.data).toEqual({ lowBalance: 1, capAlertPercent: 80 });
    const put = (body: unknown) =>
      app.http('/api/v1/notifications/settings', { method: 'PUT', token: user.session, body });
    expect((await put({ lowBalance: 2.5, capAlertPercent: 50 })).body.data).toEqual({
      lowBalance: 2.5,
      capAlertPercent: 50,
    });
    for (const bad of [
      { lowBalance: -1, capAlertPercent: 50 },
      { lowBalance: 1, capAlertPercent: 0 },
      { lowBalance: 1, capAlertPercent: 101 },
      { lowBalance: 1, capAlertPercent: 50.5 },
      { lowBalance: 0.0000001, capAlertPercent: 50 },
      { lowBalance: '1', capAlertPercent: 50 },
      { lowBalance: 1 },
      { lowBalance: 1, capAlertPercent: 50, receipts: false },
    ])
      expect((await put(bad)).status).toBe(400);
    expect((await put({ lowBalance: null, capAlertPercent: null })).body.data).toEqual({
      lowBalance: null,
      capAlertPercent: null,
    });
    expect((await app.http('/api/v1/notifications/settings')).status).toBe(401);
  });

  it('mails a low balance once per crossing: again only after the balance went back above', async () => {
    const user = await register();
    await app.http('/api/v1/notifications/settings', {
      method: 'PUT',
      token: user.session,
      body: { lowBalance: 0.5, capAlertPercent: null },
    });
    await adjust(user.id, 0.6);
    await sweep();
    expect(mails(user.email, 'low_balance')).toHaveLength(0);
    await adjust(user.id, -0.2);
    await Promise.all([sweep(), sweep()]);
    await sweep();
    const first = await smtp.next(user.email, (mail) => mail.kind === 'low_balance');
    expect(first.subject).toBe('Your Switchyard balance is below $0.50');
    expect(first.text).toContain('Your balance is $0.40, below the $0.50');
    expect(mails(user.email, 'low_balance')).toHaveLength(1);
    // Back above: re-armed; below again: a second mail.
    await adjust(user.id, 1);
    await sweep();
    await adjust(user.id, -1.2);
    await sweep();
    await sweep();
    expect(mails(user.email, 'low_balance')).toHaveLength(2);
    // Turned off: nothing more.
    await app.http('/api/v1/notifications/settings', {
      method: 'PUT',
      token: user.session,
      body: { lowBalance: null, capAlertPercent: null },
    });
    await adjust(user.id, 1);
    await sweep();
    await adjust(user.id, -1.1);
    await sweep();
    expect(mails(user.email, 'low_balance')).toHaveLength(2);
  });

  it('mails once when a key’s spend reaches the chosen share of its daily limit, naming the key', async () => {
    const user = await register();
    await adjust(user.id, 1);
    await app.http('/api/v1/notifications/settings', {
      method: 'PUT',
      token: user.session,
      body: { lowBalance: null, capAlertPercent: 50 },
    });
    const key = (await app.http('/api/v1/keys', { token: user.session, body: { name: 'Nightly job' } })).body.data;
    await app.http(`/api/v1/keys/${key.id}/limits`, { method: 'PUT', token: user.session, body: { daily: 0.0002 } });
    for (let i = 0; i < 40; i += 1) {
      const res = await app.http('/v1/chat/completions', { token: key.key, body: CHAT });
      if (res.status !== 200) break;
      await app.app.get(ReservationService).flushSettlements();
      const [{ spent }] = await app.database.dataSource.query(
        `SELECT COALESCE(sum(settled_micros), 0)::int AS spent FROM reservations WHERE api_key_id = $1`,
        [key.id],
      );
      if (spent >= 100) break;
    }
    await Promise.all([sweep(), sweep()]);
    await sweep();
    const alert = await smtp.next(user.email, (mail) => mail.kind === 'cap_alert');
    expect(alert.subject).toMatch(/^Your API key "Nightly job" has used \d+% of its daily limit$/);
    expect(alert.text).toMatch(/of its \$0\.0002 daily limit today \(UTC\)/);
    expect(alert.link).toBe(`${app.config.publicUrl}/keys`);
    expect(mails(user.email, 'cap_alert')).toHaveLength(1);
  });
});

describe('REQUIRE_VERIFIED_EMAIL_FOR_TOPUP', () => {
  let app: TestApp;
  let smtp: FakeSmtp;
  beforeAll(async () => {
    smtp = await FakeSmtp.start();
    app = await startTestApp({ smtpUrl: smtp.url(), requireVerifiedEmailForTopUp: true });
  });
  afterAll(async () => {
    await app?.close();
    await smtp?.close();
  });

  it('refuses card top-ups and gift cards until the address is verified; sign-in and calls work before', async () => {
    const email = uniqueEmail('unverified');
    const session = (await app.http('/api/v1/auth/register', { body: { email, password: 'verify me please' } })).body
      .data.token;
    const key = (await app.http('/api/v1/keys', { token: session, body: { name: 'k' } })).body.data.key;
    expect((await app.http('/v1/chat/completions', { token: key, body: CHAT })).status).toBe(200);
    const checkout = () => app.http('/api/v1/payment/create-checkout-session', { token: session, body: { amount: 5 } });
    const refused = await checkout();
    expect([refused.status, refused.body.error.code]).toEqual([403, 'EMAIL_UNVERIFIED']);
    const redeem = await app.http('/api/v1/giftcard/redeem', { token: session, body: { code: 'SYGC-AAAA-BBBB' } });
    expect([redeem.status, redeem.body.error.code]).toEqual([403, 'EMAIL_UNVERIFIED']);
    const mail = await smtp.next(email, (m) => m.kind === 'verify_email');
    const token = new URL(mail.link!).hash.replace('#token=', '');
    expect((await app.http('/api/v1/auth/verify-email', { body: { token } })).status).toBe(200);
    expect((await checkout()).status).toBe(201);
  });
});
