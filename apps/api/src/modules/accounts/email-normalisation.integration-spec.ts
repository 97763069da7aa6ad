import { loadConfig } from '../../config/config';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';

/**
 * Emails are NFKC-normalised and refused when they hold invisible or formatting characters, wherever one is taken
 * (docs/accounts.md, "Emails"): an attacker cannot register an address that reads like an existing account's.
 */
describe('emails as attackers type them', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  const register = (email: string) =>
    app.http('/api/v1/auth/register', { body: { email, password: 'attacker password' } });
  const login = (email: string, password = 'victim password') =>
    app.http('/api/v1/auth/login', { body: { email, password } });

  it('refuses a lookalike of an existing account with a 400 that names the character, at sign-up and sign-in', async () => {
    const victim = uniqueEmail('victim');
    const [local, domain] = victim.split('@');
    expect(
      (await app.http('/api/v1/auth/register', { body: { email: victim, password: 'victim password' } })).status,
    ).toBe(201);
    const lookalikes: [string, string][] = [
      [`${local}\u200b@${domain}`, 'U+200B'],
      [`${local}\u200c@${domain}`, 'U+200C'],
      [`${local}@\u202e${domain}`, 'U+202E'],
      [`\u2066${local}@${domain}`, 'U+2066'],
      [`${local}\u00ad@${domain}`, 'U+00AD'],
      [`${local}@${domain}\ufeff`, 'U+FEFF'],
      [`${local}\u180e@${domain}`, 'U+180E'],
      [`${local}\u{e007f}@${domain}`, 'U+E007F'],
      [`${local}\u3000x@${domain}`, 'U+0020'],
    ];
    for (const [email, named] of lookalikes) {
      for (const res of [await register(email), await login(email)]) {
        expect([res.status, res.body.error.code]).toEqual([400, 'VALIDATION_FAILED']);
        expect(res.body.error.details[0]).toEqual({
          field: 'email',
          messages: expect.arrayContaining([`email must not contain invisible or formatting characters (${named})`]),
        });
      }
    }
    const [{ count }] = await app.database.dataSource.query(
      `SELECT count(*)::int AS count FROM users WHERE email <> $1 AND replace(email, chr(8203), '') = $1`,
      [victim],
    );
    expect(count).toBe(0);
  });

  it('folds compatibility forms into the account they spell: taken at sign-up, found at sign-in', async () => {
    const victim = uniqueEmail('fold');
    expect(
      (await app.http('/api/v1/auth/register', { body: { email: victim, password: 'victim password' } })).status,
    ).toBe(201);
    const fullwidth = [...victim]
      .map((c) => (/[a-z0-9@]/.test(c) ? String.fromCodePoint(c.codePointAt(0)! + 0xfee0) : c))
      .join('');
    expect(fullwidth).not.toBe(victim);
    const taken = await register(fullwidth);
    expect([taken.status, taken.body.error.code]).toEqual([409, 'EMAIL_TAKEN']);
    const signedIn = await login(`  ${fullwidth.toUpperCase()}\t`);
    expect([signedIn.status, signedIn.body.data.user.email]).toEqual([200, victim]);
    expect((await login(`\u00a0${victim}\u00a0`)).status).toBe(200);
  });

  it('refuses an ADMIN_EMAIL with an invisible character at start-up, and normalises a fullwidth one', () => {
    expect(() =>
      loadConfig({ ADMIN_EMAIL: 'admin\u200b@example.com', ADMIN_PASSWORD: 'a long admin password' }),
    ).toThrow(/ADMIN_EMAIL="admin\u200b@example.com" holds an invisible or formatting character \(U\+200B\)/);
    expect(
      loadConfig({ ADMIN_EMAIL: 'ＡＤＭＩＮ@example.com', ADMIN_PASSWORD: 'a long admin password' }).adminEmail,
    ).toBe('admin@example.com');
  });
});
