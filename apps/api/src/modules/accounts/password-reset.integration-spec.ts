import { Logger } from '@nestjs/common';
import { FakeSmtp } from '../../../test/support/fake-smtp';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { AccountMailService } from './account-mail.service';

const CREDENTIALS = { user: 'mailer', pass: 'smtp secret' };

/**
 * The password reset and the address verification by mail (docs/mail.md), against a real SMTP server the test
 * starts on 127.0.0.1 (smtp-server), with AUTH, as an operator's SMTP_URL would name it.
 */
describe('password reset and address verification by mail', () => {
  let app: TestApp;
  let smtp: FakeSmtp;
  const password = 'first password';

  beforeAll(async () => {
    smtp = await FakeSmtp.start(CREDENTIALS);
    app = await startTestApp({
      smtpUrl: smtp.url(CREDENTIALS),
      mailFrom: 'Switchyard Test <mail@switchyard.test>',
      passwordResetsPerAccount: 3,
    });
  });
  afterAll(async () => {
    await app?.close();
    await smtp?.close();
  });

  const register = async (email = uniqueEmail('reset')) => {
    const res = await app.http('/api/v1/auth/register', { body: { email, password } });
    expect(res.status).toBe(201);
    return { email, session: res.body.data.token as string, id: res.body.data.user.id as string };
  };
  const ask = (email: string, headers: Record<string, string> = {}) =>
    app.http('/api/v1/auth/password-reset', { body: { email }, headers });
  const confirm = (token: string, newPassword = 'second password', extra: object = {}) =>
    app.http('/api/v1/auth/password-reset/confirm', { body: { token, newPassword, ...extra } });
  const login = (email: string, pass: string) => app.http('/api/v1/auth/login', { body: { email, password: pass } });
  const tokenOf = (link: string | null) => new URL(link!).hash.replace(/^#token=/, '');
  const resetMail = (email: string, after = 0) =>
    smtp.next(email, (mail) => mail.kind === 'password_reset' && smtp.to(email).indexOf(mail) >= after);

  it('mails a single-use link over SMTP that sets a new password and signs out every session', async () => {
    const user = await register();
    const asked = await ask(` ${user.email.toUpperCase()} `);
    expect([asked.status, asked.body.message]).toEqual([
      202,
      'If an account uses this address, a link to reset its password is on its way',
    ]);
    const mail = await resetMail(user.email);
    expect(smtp.authenticated).toContain('mailer');
    expect(mail.from).toBe('mail@switchyard.test');
    expect(mail.subject).toBe('Reset your Switchyard password');
    expect(mail.text).toContain('works once, for 30 minutes');
    expect(mail.link).toMatch(new RegExp(`^${app.config.publicUrl}/reset-password#token=syr_[A-Za-z0-9_-]{40,}$`));
    expect(mail.html).toContain(mail.link!);
    const token = tokenOf(mail.link);

    // Stored as its hash only.
    const rows = await app.database.dataSource.query(
      `SELECT token_hash, purpose FROM account_tokens WHERE user_id = $1 AND purpose = 'password_reset'`,
      [user.id],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].token_hash).not.toContain(token.slice(4));

    const short = await confirm(token, 'short');
    expect([short.status, short.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
    const done = await confirm(token);
    expect([done.status, done.body.data]).toEqual([
      200,
      { signedOutSessions: 1, revokedApiKeys: 0, revokedAppAuthorizations: 0 },
    ]);
    expect((await app.http('/api/v1/auth/me', { token: user.session })).status).toBe(401);
    expect((await login(user.email, password)).status).toBe(401);
    const signedIn = await login(user.email, 'second password');
    expect(signedIn.status).toBe(200);
    // The link was read at the address: it counts as verified.
    expect(signedIn.body.data.user.emailVerified).toBe(true);
    // Once only.
    const again = await confirm(token, 'third password');
    expect([again.status, again.body.error.code, again.body.error.details[0].field]).toEqual([
      400,
      'RESET_LINK_INVALID',
      'token',
    ]);
    expect((await login(user.email, 'second password')).status).toBe(200);
  });

  it('answers the same for an address no account has, and mails nothing there', async () => {
    const nobody = uniqueEmail('nobody');
    const user = await register();
    const [unknown, known] = [await ask(nobody), await ask(user.email)];
    const shape = (res: typeof unknown) => [res.status, res.body.success, res.body.message, res.body.data];
    expect(shape(unknown)).toEqual(shape(known));
    await resetMail(user.email);
    await app.app.get(AccountMailService).idle();
    expect(smtp.to(nobody)).toEqual([]);
  });

  it('refuses unknown, forged, expired and other purposes’ tokens, and a token of a link that was superseded by a reset', async () => {
    const user = await register();
    for (const token of ['syr_nothing', 'x'.repeat(101), '', `syr_${'A'.repeat(43)}`]) {
      const res = await confirm(token);
      expect(res.status).toBe(400);
    }
    await ask(user.email);
    const first = tokenOf((await resetMail(user.email)).link);
    await ask(user.email);
    const second = tokenOf(
      (await smtp.next(user.email, (mail) => mail.kind === 'password_reset' && tokenOf(mail.link) !== first)).link,
    );
    // The verification mail's token is not a reset token.
    const verify = tokenOf((await smtp.next(user.email, (mail) => mail.kind === 'verify_email')).link);
    expect((await confirm(verify)).body.error.code).toBe('RESET_LINK_INVALID');
    // Expired.
    await app.database.dataSource.query(
      `UPDATE account_tokens SET expires_at = now() - interval '1 second' WHERE user_id = $1 AND purpose = 'password_reset' AND used_at IS NULL`,
      [user.id],
    );
    expect((await confirm(second)).body.error.code).toBe('RESET_LINK_INVALID');
    await app.database.dataSource.query(
      `UPDATE account_tokens SET expires_at = now() + interval '10 minutes' WHERE user_id = $1 AND purpose = 'password_reset'`,
      [user.id],
    );
    expect((await confirm(second)).status).toBe(200);
    // Using one link ends the others.
    expect((await confirm(first)).body.error.code).toBe('RESET_LINK_INVALID');
    expect((await login(user.email, 'second password')).status).toBe(200);
  });

  it('lets exactly one of two racing uses of a link win', async () => {
    const user = await register();
    await ask(user.email);
    const token = tokenOf((await resetMail(user.email)).link);
    const results = await Promise.all([confirm(token, 'racer one pw'), confirm(token, 'racer two pw')]);
    expect(results.map((res) => res.status).sort()).toEqual([200, 400]);
    const winner = results[0].status === 200 ? 'racer one pw' : 'racer two pw';
    expect((await login(user.email, winner)).status).toBe(200);
  });

  it('revokes every key and app authorization with the reset when asked', async () => {
    const user = await register();
    const key = (await app.http('/api/v1/keys', { token: user.session, body: { name: 'k' } })).body.data.key;
    expect((await app.http('/v1/models', { token: key })).status).toBe(200);
    await ask(user.email);
    const token = tokenOf((await resetMail(user.email)).link);
    const done = await confirm(token, 'second password', { revokeCredentials: true });
    expect(done.body.data).toMatchObject({ revokedApiKeys: 1, revokedAppAuthorizations: 0 });
    expect((await app.http('/v1/models', { token: key })).status).toBe(403);
  });

  it('limits how many mails one address is sent, whether or not an account has it', async () => {
    const user = await register();
    const nobody = uniqueEmail('nobody');
    for (const email of [user.email, nobody]) {
      const statuses = [];
      for (let i = 0; i < 4; i += 1) statuses.push((await ask(email)).status);
      expect(statuses).toEqual([202, 202, 202, 429]);
    }
    await app.app.get(AccountMailService).idle();
    expect(smtp.to(user.email).filter((mail) => mail.kind === 'password_reset')).toHaveLength(3);
    const invisible = await ask(`${user.email.split('@')[0]}\u200b@${user.email.split('@')[1]}`);
    expect([invisible.status, invisible.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
  });

  it('mails a verification link at registration that verifies the address once', async () => {
    const user = await register();
    expect((await app.http('/api/v1/auth/me', { token: user.session })).body.data.emailVerified).toBe(false);
    const mail = await smtp.next(user.email, (m) => m.kind === 'verify_email');
    expect(mail.subject).toBe('Verify your address for Switchyard');
    expect(mail.link).toMatch(new RegExp(`^${app.config.publicUrl}/verify-email#token=syv_`));
    const token = tokenOf(mail.link);
    // Opened in another browser: no session needed.
    const verified = await app.http('/api/v1/auth/verify-email', { body: { token } });
    expect([verified.status, verified.body.data]).toEqual([200, { email: user.email }]);
    expect((await app.http('/api/v1/auth/me', { token: user.session })).body.data.emailVerified).toBe(true);
    expect((await app.http('/api/v1/auth/verify-email', { body: { token } })).body.error.code).toBe(
      'VERIFY_LINK_INVALID',
    );
    // Nothing more to send once verified; a new one can be asked for before.
    const resend = await app.http('/api/v1/auth/verify-email/send', { method: 'POST', token: user.session });
    expect([resend.status, resend.body.data]).toEqual([202, { sent: false }]);
    const other = await register();
    const sent = await app.http('/api/v1/auth/verify-email/send', { method: 'POST', token: other.session });
    expect(sent.body.data).toEqual({ sent: true });
    await smtp.next(other.email, (m) => m.kind === 'verify_email' && smtp.to(other.email).indexOf(m) >= 1);
    expect((await app.http('/api/v1/auth/verify-email/send', { method: 'POST' })).status).toBe(401);
  });
});

describe('mail when the SMTP server cannot be reached', () => {
  it('answers a reset request as always, and logs the failure without the link', async () => {
    const smtp = await FakeSmtp.start();
    const port = smtp.port;
    await smtp.close();
    const app = await startTestApp({ smtpUrl: `smtp://127.0.0.1:${port}` });
    const errors = jest.spyOn(Logger.prototype, 'error');
    try {
      const email = uniqueEmail('down');
      expect((await app.http('/api/v1/auth/register', { body: { email, password: 'first password' } })).status).toBe(
        201,
      );
      expect((await app.http('/api/v1/auth/password-reset', { body: { email } })).status).toBe(202);
      await app.app.get(AccountMailService).idle();
      const logged = errors.mock.calls.map((call) => String(call[0]));
      expect(logged.some((line) => /a mail could not be sent: .*ECONNREFUSED/.test(line))).toBe(true);
      expect(logged.join('\n')).not.toMatch(/syr_|#token|reset-password/);
    } finally {
      errors.mockRestore();
      await app.close();
    }
  });
});
