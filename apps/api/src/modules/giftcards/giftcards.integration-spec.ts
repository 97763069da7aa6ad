import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';
import { createRestartableDatabase } from '../../../test/support/test-database';
import { GiftcardsService } from './giftcards.service';

const ROOT = join(__dirname, '..', '..', '..', '..', '..');
const ADMIN = { email: 'giftcard-admin@example.com', password: 'admin password 123' };
const CODE = /^SYGC(-[0-9A-HJKMNP-TV-Z]{4}){4}$/;

async function register(app: TestApp, tag: string) {
  const res = await app.http('/api/v1/auth/register', {
    body: { email: uniqueEmail(tag), password: `${tag} password` },
  });
  return { token: res.body.data.token as string, id: res.body.data.user.id as string };
}

async function signInAdmin(app: TestApp): Promise<string> {
  return (await app.http('/api/v1/auth/login', { body: ADMIN })).body.data.token;
}

async function issue(
  app: TestApp,
  admin: string,
  body: Record<string, unknown>,
): Promise<{ id: string; code: string }[]> {
  const res = await app.http('/api/v1/admin/giftcards', { token: admin, body });
  if (res.status !== 201) throw new Error(`issuing failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.data.cards;
}

/** Each test's attempts come from their own address (TRUST_PROXY is on), so address limits stay apart. */
let lastAddress = 0;
const nextAddress = () => `198.51.100.${(lastAddress += 1)}`;

const redeem = (app: TestApp, token: string, code: string, address: string) =>
  app.http('/api/v1/giftcard/redeem', { token, body: { code }, headers: { 'x-forwarded-for': address } });

async function giftCardCredits(app: TestApp, cardId: string) {
  return app.database.dataSource.query(`SELECT user_id, amount_micros FROM ledger_entries WHERE idempotency_key = $1`, [
    `giftcard:${cardId}`,
  ]);
}

describe('gift cards', () => {
  let app: TestApp;
  let admin: string;
  const limits = { giftcardAttemptsPerAccount: 5, giftcardAttemptsPerIp: 12, trustProxy: true };

  beforeAll(async () => {
    app = await startTestApp({ signupCredit: 0, adminEmail: ADMIN.email, adminPassword: ADMIN.password, ...limits });
    admin = await signInAdmin(app);
  });
  afterAll(() => app?.close());

  it('are issued by admins only, codes shown once (80 random bits, readable) and stored only as hashes', async () => {
    const res = await app.http('/api/v1/admin/giftcards', {
      token: admin,
      body: { amount: 10, count: 5, expiresAt: '2099-01-31' },
    });
    expect(res.status).toBe(201);
    expect(res.body.message).toMatch(/not shown again/);
    const { amount, expiresAt, cards } = res.body.data;
    // A bare date: valid through that day (UTC).
    expect([amount, expiresAt]).toEqual([10, '2099-02-01T00:00:00.000Z']);
    expect(cards).toHaveLength(5);
    expect(new Set(cards.map((card: { code: string }) => card.code)).size).toBe(5);
    for (const card of cards) expect(card.code).toMatch(CODE);
    const stored: { code_hash: string; amount_micros: string; redeemed_at: Date | null }[] =
      await app.database.dataSource.query(
        'SELECT code_hash, amount_micros, redeemed_at FROM gift_cards WHERE id = ANY($1::uuid[])',
        [cards.map((card: { id: string }) => card.id)],
      );
    expect(stored).toHaveLength(5);
    const dump = JSON.stringify(await app.database.dataSource.query('SELECT * FROM gift_cards'));
    for (const card of cards) {
      expect(dump).not.toContain(card.code.slice(5));
      expect(stored.map((row) => row.code_hash)).toContain(createHash('sha256').update(card.code).digest('hex'));
    }
    expect(stored.every((row) => row.amount_micros === '10000000' && row.redeemed_at === null)).toBe(true);

    const user = await register(app, 'not-admin');
    const refused = await app.http('/api/v1/admin/giftcards', { token: user.token, body: { amount: 10, count: 1 } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect((await app.http('/api/v1/admin/giftcards', { body: { amount: 10, count: 1 } })).status).toBe(401);
  });

  it('validate what an admin asks for: amount, count and a future expiry', async () => {
    for (const body of [
      { amount: 0, count: 1 },
      { amount: 10, count: 0 },
      { amount: 10, count: 501 },
      { amount: 10.001, count: 1 },
      { amount: 10, count: 1, expiresAt: 'soon' },
      { amount: 10, count: 1, expiresAt: '2001-01-01' },
      { amount: 10, count: 1, extra: true },
    ]) {
      const res = await app.http('/api/v1/admin/giftcards', { token: admin, body });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_FAILED');
    }
  });

  it('redeem once into the balance, however the code is typed, with the documented result', async () => {
    const [card] = await issue(app, admin, { amount: 7.5, count: 1 });
    const user = await register(app, 'redeemer');
    const address = nextAddress();
    const typed = ` ${card.code.toLowerCase().replace(/-/g, ' ')} `;
    const res = await redeem(app, user.token, typed, address);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      success: true,
      message: 'Gift card redeemed: $7.50 added to your balance',
      amountAdded: 7.5,
      newBalance: 7.5,
    });
    expect(await giftCardCredits(app, card.id)).toEqual([{ user_id: user.id, amount_micros: '7500000' }]);
    expect((await app.http('/api/v1/usage/me/summary', { token: user.token })).body.data).toMatchObject({
      maxBudget: 7.5,
      remainingBudget: 7.5,
    });
    const history = (await app.http('/api/v1/usage/me/ledger', { token: user.token })).body.data.items;
    expect(history).toEqual([expect.objectContaining({ kind: 'gift_card', amount: 7.5, reference: card.id })]);

    for (const who of [user, await register(app, 'latecomer')]) {
      const again = await redeem(app, who.token, card.code, address);
      expect(again.status).toBe(409);
      expect(again.body).toMatchObject({ success: false, error: { code: 'GIFTCARD_ALREADY_REDEEMED' } });
    }
    expect(await giftCardCredits(app, card.id)).toHaveLength(1);
  });

  it('tell unknown (404), used (409) and expired (422) codes apart', async () => {
    const user = await register(app, 'errors');
    const address = nextAddress();
    const unknown = await redeem(app, user.token, 'SYGC-0000-0000-0000-0000', address);
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'GIFTCARD_NOT_FOUND']);
    const malformed = await redeem(app, user.token, 'not a code', address);
    expect([malformed.status, malformed.body.error.code]).toEqual([404, 'GIFTCARD_NOT_FOUND']);

    const [expiring] = await issue(app, admin, {
      amount: 3,
      count: 1,
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    });
    await app.database.dataSource.query(
      `UPDATE gift_cards SET expires_at = now() - interval '1 second' WHERE id = $1`,
      [expiring.id],
    );
    const expired = await redeem(app, user.token, expiring.code, address);
    expect([expired.status, expired.body.error.code, expired.body.message]).toEqual([
      422,
      'GIFTCARD_EXPIRED',
      'This gift card has expired',
    ]);
    expect(await giftCardCredits(app, expiring.id)).toEqual([]);
    expect((await app.http('/api/v1/giftcard/redeem', { token: user.token, body: { code: '' } })).status).toBe(400);
    expect((await app.http('/api/v1/giftcard/redeem', { body: { code: expiring.code } })).status).toBe(401);
  });

  it('finish a redemption interrupted between claim and credit: by the owner’s retry, or by the recovery sweep', async () => {
    const [retried, swept] = await issue(app, admin, { amount: 4, count: 2 });
    const owner = await register(app, 'interrupted');
    const other = await register(app, 'bystander');
    // What an instance that died right after claiming leaves behind: redeemed, never credited.
    await app.database.dataSource.query(
      `UPDATE gift_cards SET redeemed_at = now() - interval '2 minutes', redeemed_by = $2 WHERE id = ANY($1::uuid[])`,
      [[retried.id, swept.id], owner.id],
    );
    const address = nextAddress();
    expect((await redeem(app, other.token, retried.code, address)).status).toBe(409);
    const finished = await redeem(app, owner.token, retried.code, address);
    expect(finished.body.data).toEqual({
      success: true,
      message: 'Gift card redeemed: $4.00 added to your balance',
      amountAdded: 4,
      newBalance: 4,
    });
    expect((await redeem(app, owner.token, retried.code, address)).status).toBe(409);

    const service = app.app.get(GiftcardsService);
    expect(await service.recoverUnfinished()).toBe(1);
    expect(await service.recoverUnfinished()).toBe(0);
    for (const card of [retried, swept])
      expect(await giftCardCredits(app, card.id)).toEqual([{ user_id: owner.id, amount_micros: '4000000' }]);
    const notes: { credited_at: Date | null }[] = await app.database.dataSource.query(
      'SELECT credited_at FROM gift_cards WHERE id = ANY($1::uuid[])',
      [[retried.id, swept.id]],
    );
    expect(notes.every((row) => row.credited_at !== null)).toBe(true);
    expect((await app.http('/api/v1/usage/me/summary', { token: owner.token })).body.data.remainingBudget).toBe(8);
  });

  it('rate limit guessing per account (429 with Retry-After), even for a valid code, and per address', async () => {
    const [card] = await issue(app, admin, { amount: 1, count: 1 });
    const guesser = await register(app, 'guesser');
    const address = nextAddress();
    for (let i = 0; i < limits.giftcardAttemptsPerAccount; i += 1)
      expect(
        (await redeem(app, guesser.token, `SYGC-0000-0000-0000-${String(i).padStart(4, '0')}`, address)).status,
      ).toBe(404);
    const limited = await redeem(app, guesser.token, card.code, address);
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: 'RATE_LIMITED', retryAfterSeconds: expect.any(Number) });
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await giftCardCredits(app, card.id)).toEqual([]);

    // Other accounts from the same address: allowed until the address has made its 12 attempts in all.
    const [first, second] = [await register(app, 'crowd'), await register(app, 'crowd')];
    for (let i = 0; i < limits.giftcardAttemptsPerIp - limits.giftcardAttemptsPerAccount - 1; i += 1)
      expect((await redeem(app, i % 2 ? first.token : second.token, 'SYGC-1111-1111-1111-1111', address)).status).toBe(
        404,
      );
    const byAddress = await redeem(app, first.token, card.code, address);
    expect(byAddress.status).toBe(429);
    // From elsewhere, the card is still good.
    expect((await redeem(app, second.token, card.code, nextAddress())).status).toBe(200);
  });
});

describe('one gift card, 50 concurrent redemptions', () => {
  // Two instances share one database on a server; the embedded database has one owner, so one instance there.
  const twoInstances = Boolean(process.env.DATABASE_URL);
  const apps: TestApp[] = [];

  beforeAll(async () => {
    const overrides = {
      signupCredit: 0,
      adminEmail: ADMIN.email,
      adminPassword: ADMIN.password,
      trustProxy: true,
      giftcardAttemptsPerAccount: 25,
      giftcardAttemptsPerIp: 25,
    };
    const first = await startTestApp(overrides);
    apps.push(first);
    // The same Redis prefix, so both instances count attempts in the same place.
    if (twoInstances)
      apps.push(await startTestApp({ ...overrides, redisPrefix: first.config.redisPrefix }, first.testDatabase));
  });
  afterAll(async () => {
    for (const app of [...apps].reverse()) await app.close();
  });

  it(`credits exactly one of them, 5 rounds (${twoInstances ? 'two instances, PostgreSQL' : 'one instance, embedded'})`, async () => {
    const admin = await signInAdmin(apps[0]);
    const users = await Promise.all(Array.from({ length: 10 }, () => register(apps[0], 'racer')));
    const figures: string[] = [];
    let total = 0;
    for (let round = 1; round <= 5; round += 1) {
      const [card] = await issue(apps[0], admin, { amount: 25, count: 1 });
      // 10 accounts, 5 attempts each, from 10 addresses, spread over the instances.
      const attempts = Array.from({ length: 50 }, (_, i) => ({
        user: users[i % 10],
        app: apps[i % apps.length],
        address: `203.0.113.${i % 10}`,
      }));
      const started = Date.now();
      const answers = await Promise.all(
        attempts.map(({ user, app, address }) => redeem(app, user.token, card.code, address)),
      );
      const ms = Date.now() - started;
      const statuses = answers.map((answer) => answer.status);
      expect(statuses.filter((status) => status === 200)).toHaveLength(1);
      expect(statuses.filter((status) => status === 409)).toHaveLength(49);
      const winner = attempts[statuses.indexOf(200)].user;
      expect(await giftCardCredits(apps[0], card.id)).toEqual([{ user_id: winner.id, amount_micros: '25000000' }]);
      const [row] = await apps[0].database.dataSource.query('SELECT redeemed_by FROM gift_cards WHERE id = $1', [
        card.id,
      ]);
      expect(row.redeemed_by).toBe(winner.id);
      total += 25_000_000;
      figures.push(`round ${round}: 50 attempts in ${ms} ms, 1 credited, 49 refused with 409`);
    }
    const [{ credits }] = await apps[0].database.dataSource.query(
      'SELECT COALESCE(sum(credits_micros), 0)::bigint AS credits FROM balances WHERE user_id = ANY($1::uuid[])',
      [users.map((user) => user.id)],
    );
    expect(Number(credits)).toBe(total);
    console.log(
      `gift card race (${twoInstances ? 'two instances, PostgreSQL' : 'one instance, embedded'}):\n${figures.join('\n')}`,
    );
  });
});

describe('npm run admin -- giftcards', () => {
  it('issues cards into the service’s database and prints each code once, for the service to redeem', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sy-admin-'));
    // The service's database: a server's, or embedded data on disk that the command opens, then the app.
    const database = await createRestartableDatabase(dir);
    const { dataDir } = database;
    try {
      const output = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
        const child = spawn('npm', ['run', '--silent', 'admin', '--', 'giftcards', '--amount', '10', '--count', '3'], {
          cwd: ROOT,
          env: { ...process.env, NODE_OPTIONS: '', DATABASE_URL: database.databaseUrl ?? '', DATA_DIR: dataDir },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
        child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), 50_000);
        child.on('error', reject);
        child.on('exit', (code) => {
          clearTimeout(timer);
          resolve({ code, stdout, stderr });
        });
      });
      expect(output.code).toBe(0);
      const codes = output.stdout.trim().split('\n');
      expect(codes).toHaveLength(3);
      for (const code of codes) expect(code).toMatch(CODE);
      expect(output.stderr).toContain('3 gift cards of 10.00, no expiry');

      const app = await startTestApp({ signupCredit: 0 }, database);
      try {
        const user = await register(app, 'cli');
        const res = await redeem(app, user.token, codes[1], '127.0.0.1');
        expect(res.body.data).toMatchObject({ success: true, amountAdded: 10, newBalance: 10 });
      } finally {
        await app.close();
      }
    } finally {
      await database.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
