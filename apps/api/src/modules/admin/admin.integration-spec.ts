import { randomUUID } from 'node:crypto';
import { LedgerService, ReconciliationService, ReservationService, UsageRecorder } from '../usage';
import { freePort, OAuthTestKit } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';

const ADMIN = { email: 'console-admin@example.com', password: 'console admin password' };
const CHAT = { model: 'demo-chat', messages: [{ role: 'user', content: 'Hello console' }] };

/**
 * The operator's console (docs/operations.md): accounts with their money, balance adjustments through the ledger
 * with an audited reason, disabling and enabling accounts (keys, apps' tokens and sessions stop at once, on every
 * instance), usage across accounts, issued gift cards, and the append-only audit log.
 */
describe('the operator’s console', () => {
  // Two instances on one database and one Redis in CI's second pass; one on the embedded database.
  const twoInstances = Boolean(process.env.DATABASE_URL && process.env.REDIS_URL);
  let app: Awaited<ReturnType<typeof startTestApp>>;
  let other: TestApp;
  let kit: OAuthTestKit;
  let admin: string;
  let adminId: string;

  beforeAll(async () => {
    const port = await freePort();
    const config = {
      port,
      publicUrl: `http://127.0.0.1:${port}`,
      adminEmail: ADMIN.email,
      adminPassword: ADMIN.password,
      signupCredit: 0,
    };
    app = await startTestApp(config);
    other = twoInstances
      ? await startTestApp({ ...config, port: 0, redisPrefix: app.config.redisPrefix }, app.testDatabase)
      : app;
    kit = await OAuthTestKit.start(app);
    const signedIn = await app.http('/api/v1/auth/login', { body: ADMIN });
    admin = signedIn.body.data.token;
    adminId = signedIn.body.data.user.id;
  });
  afterAll(async () => {
    if (other !== app) await other?.close();
    await app?.close();
  });

  const as = (token: string) => ({
    get: (path: string) => app.http(`/api/v1/admin${path}`, { token }),
    post: (path: string, body: unknown) => app.http(`/api/v1/admin${path}`, { token, body }),
  });
  const adjust = (userId: string, body: Record<string, unknown>) =>
    as(admin).post(`/users/${userId}/adjustments`, { idempotencyKey: randomUUID(), reason: 'goodwill', ...body });
  const auditOf = async (userId: string) => (await as(admin).get(`/audit?userId=${userId}`)).body.data.items;

  it('is for admins only', async () => {
    const user = await kit.newUser();
    const routes: [string, string, unknown?][] = [
      ['GET', '/users'],
      ['GET', `/users/${user.id}`],
      ['POST', `/users/${user.id}/adjustments`, { amount: 1, reason: 'mine now', idempotencyKey: randomUUID() }],
      ['POST', `/users/${user.id}/disable`, { reason: 'just because' }],
      ['POST', `/users/${user.id}/enable`, { reason: 'just because' }],
      ['GET', '/usage'],
      ['GET', '/giftcards'],
      ['GET', '/audit'],
      ['GET', '/money'],
    ];
    for (const [method, path, body] of routes) {
      expect((await app.http(`/api/v1/admin${path}`, { method, token: user.session, body })).status).toBe(403);
      expect((await app.http(`/api/v1/admin${path}`, { method, body })).status).toBe(401);
    }
    expect((await app.http('/api/v1/usage/me/summary', { token: user.session })).body.data.remainingBudget).toBe(5);
  });

  it('finds accounts by part of the email, name or handle, or by id, with their balance, spend and status', async () => {
    const tag = randomUUID().slice(0, 8);
    const email = uniqueEmail(`find${tag}`);
    const registered = await app.http('/api/v1/auth/register', {
      body: { email, password: 'find me password', name: `Grace ${tag}` },
    });
    const { token, user } = registered.body.data;
    await app.app.get(LedgerService).credit(user.id, 5_000_000, 'payment', 'test', `console-test:${user.id}`);
    const key = (await app.http('/api/v1/keys', { token, body: { name: 'k' } })).body.data.key;
    expect((await app.http('/v1/chat/completions', { token: key, body: CHAT })).status).toBe(200);
    await app.app.get(ReservationService).flushSettlements();
    await app.app.get(UsageRecorder).flush();
    for (const q of [`FIND${tag}`.toLowerCase(), `grace ${tag}`.toUpperCase(), user.id, ` ＦＩＮＤ${tag} `]) {
      const found = (await as(admin).get(`/users?q=${encodeURIComponent(q)}`)).body.data.items;
      expect(found.map((u: { id: string }) => u.id)).toEqual([user.id]);
    }
    const [row] = (await as(admin).get(`/users?q=${encodeURIComponent(email)}`)).body.data.items;
    expect(row).toMatchObject({ email, status: 'active', role: 'user', emailVerified: false, credits: 5 });
    expect(row.spentThisMonth).toBeGreaterThan(0);
    expect(row.balance).toBeCloseTo(5 - row.spentThisMonth, 6);
    expect(row.lastCallAt).not.toBeNull();
    // Wildcards are literal; nothing matches a percent sign.
    expect((await as(admin).get('/users?q=%25')).body.data.items).toEqual([]);
    // Pages: newest first, the cursor goes on, a forged one is refused.
    const first = (await as(admin).get('/users?limit=2')).body.data;
    expect(first.items).toHaveLength(2);
    const second = (await as(admin).get(`/users?limit=2&cursor=${first.nextCursor}`)).body.data;
    expect(second.items[0].createdAt <= first.items[1].createdAt).toBe(true);
    expect(second.items.map((u: { id: string }) => u.id)).not.toContain(first.items[0].id);
    expect((await as(admin).get('/users?cursor=bm9wZQ')).status).toBe(400);
    // Paged through, every account comes once.
    const everyone: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { id: string }[]; nextCursor: string | null } = (
        await as(admin).get(`/users?limit=3${cursor ? `&cursor=${cursor}` : ''}`)
      ).body.data;
      everyone.push(...page.items.map((u: { id: string }) => u.id));
      cursor = page.nextCursor;
    } while (cursor && everyone.length < 1000);
    const [{ count }] = await app.database.dataSource.query('SELECT count(*)::int AS count FROM users');
    expect([everyone.length, new Set(everyone).size]).toEqual([count, count]);
    expect((await as(admin).get('/users?status=lost')).status).toBe(400);
    expect((await as(admin).get(`/users/${randomUUID()}`)).status).toBe(404);
    expect((await as(admin).get('/users/not-a-uuid')).status).toBe(400);
  });

  it('adjusts a balance through the ledger once per key, with the reason and the admin in the ledger and the audit log', async () => {
    const user = await kit.newUser(0);
    const key = randomUUID();
    const body = { amount: 1.5, reason: 'refund for an outage', idempotencyKey: key };
    const done = await as(admin).post(`/users/${user.id}/adjustments`, body);
    expect([done.status, done.body.data.applied, done.body.data.amount, done.body.data.user.balance]).toEqual([
      200,
      true,
      1.5,
      1.5,
    ]);
    // The same submission again (a retry, a double click, both at once) adjusts nothing more.
    const again = await Promise.all([
      as(admin).post(`/users/${user.id}/adjustments`, body),
      as(admin).post(`/users/${user.id}/adjustments`, { ...body, amount: 900 }),
    ]);
    for (const res of again) expect([res.status, res.body.data.applied]).toEqual([200, false]);
    expect(again[0].body.data.ledgerEntryId).toBe(done.body.data.ledgerEntryId);
    const ledger = await app.database.dataSource.query(
      `SELECT amount_micros::bigint AS amount, kind, source FROM ledger_entries WHERE user_id = $1`,
      [user.id],
    );
    expect(ledger).toEqual([{ amount: '1500000', kind: 'admin_adjustment', source: `admin:${adminId}` }]);
    // The user sees it in their history.
    const history = (await app.http('/api/v1/usage/me/ledger', { token: user.session })).body.data.items;
    expect(history[0]).toMatchObject({ kind: 'admin_adjustment', amount: 1.5 });

    // A debit within the balance; one beyond it is refused and leaves no trace.
    const debit = await adjust(user.id, { amount: -0.25, reason: 'chargeback' });
    expect([debit.status, debit.body.data?.user.balance, debit.body.error]).toEqual([200, 1.25, undefined]);
    const beyond = await adjust(user.id, { amount: -1.250001, reason: 'too much' });
    expect([beyond.status, beyond.body.error.code]).toEqual([409, 'ADJUSTMENT_EXCEEDS_BALANCE']);
    // Two first submissions racing: one adjusts, the other answers the same entry.
    const racing = { amount: 0.5, reason: 'race', idempotencyKey: randomUUID() };
    const raced = await Promise.all([1, 2, 3].map(() => as(admin).post(`/users/${user.id}/adjustments`, racing)));
    expect(raced.map((res) => res.status)).toEqual([200, 200, 200]);
    expect(raced.filter((res) => res.body.data.applied)).toHaveLength(1);
    expect(new Set(raced.map((res) => res.body.data.ledgerEntryId)).size).toBe(1);
    expect((await adjust(user.id, { amount: -0.5, reason: 'undo the race' })).status).toBe(200);
    // A key made for one account is not another's.
    const stranger = await kit.newUser(0);
    const reused = await as(admin).post(`/users/${stranger.id}/adjustments`, body);
    expect([reused.status, reused.body.error.code]).toEqual([409, 'ADJUSTMENT_KEY_REUSED']);

    const audit = await auditOf(user.id);
    expect(audit.map((entry: { action: string }) => entry.action)).toEqual(Array(4).fill('balance_adjusted'));
    expect(audit[3]).toMatchObject({
      actor: 'admin',
      admin: { id: adminId, email: ADMIN.email },
      target: { id: user.id },
      details: { amount: 1.5, reason: 'refund for an outage', ledgerEntryId: done.body.data.ledgerEntryId },
    });
    expect(audit[2].details).toMatchObject({ amount: -0.25, reason: 'chargeback' });
    expect(audit[0].details).toMatchObject({ amount: -0.5, reason: 'undo the race' });
    expect(Date.parse(audit[0].at)).toBeGreaterThan(Date.now() - 60_000);
    expect(await auditOf(stranger.id)).toEqual([]);
    const report = await app.app.get(ReconciliationService).reconcile(null, user.id);
    expect(report.drifts).toEqual([]);
  });

  it('refuses adjustments that are not numbers of money with a reason', async () => {
    const user = await kit.newUser(0);
    const bad: Record<string, unknown>[] = [
      { amount: 0 },
      { amount: '5' },
      { amount: 1_000_001 },
      { amount: -1_000_001 },
      { amount: 0.0000001 },
      { amount: Number.NaN },
      { amount: 1, reason: '' },
      { amount: 1, reason: '  x ' },
      { amount: 1, reason: 'r'.repeat(501) },
      { amount: 1, idempotencyKey: 'again' },
      { amount: 1, userId: randomUUID() },
    ];
    for (const body of bad) {
      const res = await adjust(user.id, body);
      expect([body, res.status]).toEqual([body, 400]);
    }
    expect((await adjust(randomUUID(), { amount: 1 })).status).toBe(404);
    expect((await app.http('/api/v1/usage/me/summary', { token: user.session })).body.data.maxBudget).toBe(0);
    expect(await auditOf(user.id)).toEqual([]);
  });

  it(`disables an account: its key, its app’s tokens and its sessions stop at once on ${twoInstances ? 'both instances' : 'the instance'}; enabling restores keys and apps`, async () => {
    const user = await kit.newUser();
    const key = (await app.http('/api/v1/keys', { token: user.session, body: { name: 'k' } })).body.data.key;
    const client = await kit.createClient({ clientName: 'Console app' });
    const tokens = await kit.tokensFor(client, { user });
    const viaApp = (on: TestApp) =>
      on.http('/v1/models', { token: tokens.access_token, headers: { 'x-service-oauth-client-id': client.clientId } });
    const email = (await app.http('/api/v1/auth/me', { token: user.session })).body.data.email;
    // Warm every instance's caches.
    for (const on of [app, other]) {
      expect((await on.http('/v1/models', { token: key })).status).toBe(200);
      expect((await viaApp(on)).status).toBe(200);
    }
    expect((await as(admin).post(`/users/${user.id}/disable`, {})).status).toBe(400);
    const disabled = await as(admin).post(`/users/${user.id}/disable`, { reason: 'abuse report #12' });
    expect([disabled.status, disabled.body.data.status]).toEqual([200, 'disabled']);
    for (const on of [app, other]) {
      expect((await on.http('/v1/models', { token: key })).status).toBe(403);
      expect((await on.http('/v1/chat/completions', { token: key, body: CHAT })).status).toBe(403);
      expect((await viaApp(on)).status).toBe(401);
      expect((await on.http('/api/v1/auth/me', { token: user.session })).status).toBe(401);
    }
    const refreshed = await app.http('/oauth2/token', {
      body: { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId },
    });
    expect(refreshed.status).toBe(400);
    const login = await app.http('/api/v1/auth/login', { body: { email, password: 'oauth password' } });
    expect([login.status, login.body.error.code]).toEqual([403, 'ACCOUNT_DISABLED']);
    // A second disable changes nothing and writes nothing.
    await as(admin).post(`/users/${user.id}/disable`, { reason: 'again' });

    const enabled = await as(admin).post(`/users/${user.id}/enable`, { reason: 'appeal accepted' });
    expect(enabled.body.data.status).toBe('active');
    for (const on of [app, other]) {
      expect((await on.http('/v1/models', { token: key })).status).toBe(200);
      expect((await viaApp(on)).status).toBe(200);
    }
    // The refresh token that was refused while disabled did not end the grant.
    const afterwards = await app.http('/oauth2/token', {
      body: { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.clientId },
    });
    expect(afterwards.status).toBe(200);
    const session = (await app.http('/api/v1/auth/login', { body: { email, password: 'oauth password' } })).body.data;
    expect(session.user.id).toBe(user.id);
    expect(
      (await auditOf(user.id)).map((entry: { action: string; details: { reason: string } }) => [
        entry.action,
        entry.details.reason,
      ]),
    ).toEqual([
      ['account_enabled', 'appeal accepted'],
      ['account_disabled', 'abuse report #12'],
    ]);
    // An admin cannot lock themselves out.
    const self = await as(admin).post(`/users/${adminId}/disable`, { reason: 'oops' });
    expect([self.status, self.body.error.code]).toEqual([400, 'CANNOT_DISABLE_SELF']);
  });

  it('keeps the audit log append-only in the database itself', async () => {
    const user = await kit.newUser(0);
    await adjust(user.id, { amount: 1 });
    for (const statement of [
      `UPDATE admin_audit_log SET details = '{}' WHERE target_user_id = '${user.id}'`,
      `DELETE FROM admin_audit_log WHERE target_user_id = '${user.id}'`,
      'TRUNCATE admin_audit_log',
    ])
      await expect(app.database.dataSource.query(statement)).rejects.toThrow(/append-only/);
    expect(await auditOf(user.id)).toHaveLength(1);
  });

  it('lists issued gift cards with their status, who redeemed them and when; issuing is audited', async () => {
    const issued = await as(admin).post('/giftcards', { amount: 2.5, count: 3 });
    expect(issued.status).toBe(201);
    const cards: { id: string; code: string }[] = issued.body.data.cards;
    const user = await kit.newUser(0);
    const redeemed = await app.http('/api/v1/giftcard/redeem', { token: user.session, body: { code: cards[1].code } });
    expect(redeemed.status).toBe(200);
    const listed = (await as(admin).get('/giftcards?limit=100')).body.data.items;
    const mine = cards.map((card) => listed.find((row: { id: string }) => row.id === card.id));
    expect(mine.map((row: { status: string }) => row.status)).toEqual(['unredeemed', 'redeemed', 'unredeemed']);
    const email = (await app.http('/api/v1/auth/me', { token: user.session })).body.data.email;
    expect(mine[1]).toMatchObject({
      amount: 2.5,
      issuedBy: { id: adminId, email: ADMIN.email },
      redeemedBy: { id: user.id, email },
    });
    expect(mine[0].redeemedAt).toBeNull();
    expect(Date.parse(mine[1].redeemedAt)).toBeGreaterThan(Date.now() - 60_000);
    const onlyRedeemed = (await as(admin).get('/giftcards?status=redeemed&limit=100')).body.data.items;
    expect(onlyRedeemed.every((row: { status: string }) => row.status === 'redeemed')).toBe(true);
    expect(onlyRedeemed.map((row: { id: string }) => row.id)).toContain(cards[1].id);
    // Paged two at a time, every card comes once, those issued together (one created_at) too.
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { items: { id: string }[]; nextCursor: string | null } = (
        await as(admin).get(`/giftcards?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
      ).body.data;
      paged.push(...page.items.map((card: { id: string }) => card.id));
      cursor = page.nextCursor;
    } while (cursor && paged.length < 1000);
    expect(new Set(paged).size).toBe(paged.length);
    expect(paged).toEqual(expect.arrayContaining(cards.map((card) => card.id)));
    expect(paged).toHaveLength(listed.length);
    const audit = (await as(admin).get('/audit?limit=100')).body.data.items;
    const entry = audit.find(
      (row: { action: string; details: { cardIds: string[] } }) =>
        row.action === 'gift_cards_issued' && row.details.cardIds.includes(cards[0].id),
    );
    expect(entry).toMatchObject({ actor: 'admin', admin: { id: adminId }, details: { count: 3, amount: 2.5 } });
  });

  it('shows usage and spend across accounts by day, model and user', async () => {
    const users = [await kit.newUser(), await kit.newUser()];
    for (const user of users) {
      const key = (await app.http('/api/v1/keys', { token: user.session, body: { name: 'k' } })).body.data.key;
      expect((await app.http('/v1/chat/completions', { token: key, body: CHAT })).status).toBe(200);
      expect(
        (await app.http('/v1/embeddings', { token: key, body: { model: 'demo-embedding', input: 'across' } })).status,
      ).toBe(200);
    }
    await app.app.get(ReservationService).flushSettlements();
    await app.app.get(UsageRecorder).flush();
    const byModel = (await as(admin).get('/usage?groupBy=model')).body.data;
    const models = byModel.rows.map((row: { model: string }) => row.model);
    expect(models).toEqual(expect.arrayContaining(['demo-chat', 'demo-embedding']));
    const chat = byModel.rows.find((row: { model: string }) => row.model === 'demo-chat');
    expect(chat.users).toBeGreaterThanOrEqual(2);
    expect(chat.cost).toBeGreaterThan(0);
    const sum = byModel.rows.reduce((total: number, row: { cost: number }) => total + row.cost, 0);
    expect(sum).toBeCloseTo(byModel.totals.cost, 6);
    const byUser = (await as(admin).get('/usage?groupBy=user')).body.data.rows;
    for (const user of users) expect(byUser.map((row: { userId: string }) => row.userId)).toContain(user.id);
    expect(byUser.every((row: { email: string }) => row.email.includes('@'))).toBe(true);
    const today = new Date().toISOString().slice(0, 10);
    const byDayModel = (await as(admin).get(`/usage?groupBy=day_model&from=${today}&to=${today}`)).body.data;
    expect(byDayModel.rows.every((row: { day: string }) => row.day === today)).toBe(true);
    expect(byDayModel.totals.requests).toBeGreaterThanOrEqual(4);
    expect((await as(admin).get('/usage?from=2026-02-01&to=2026-01-01')).status).toBe(400);
    expect((await as(admin).get('/usage?groupBy=planet')).status).toBe(400);
  });
  it('shows the fees earned on markups and the losses, per UTC day', async () => {
    const today = new Date().toISOString().slice(0, 10);
    type Day = { date: string; fees: number; markedUpCalls: number; lossCalls: number; callLosses: number };
    const dayOf = async () => {
      const res = await as(admin).get('/money?days=7');
      expect(res.status).toBe(200);
      expect(res.body.data.days).toBe(7);
      const day = (res.body.data.items as Day[]).find((item) => item.date === today);
      return day ?? { date: today, fees: 0, markedUpCalls: 0, lossCalls: 0, callLosses: 0 };
    };
    const before = await dayOf();
    const maker = await kit.newUser(0);
    const client = await kit.createClient({ clientName: 'Fee payer', markupPercent: 100 }, maker);
    const user = await kit.newUser();
    const tokens = await kit.tokensFor(client, { user });
    for (let i = 0; i < 3; i += 1) {
      const res = await app.http('/v1/chat/completions', {
        token: tokens.access_token,
        body: CHAT,
        headers: { 'X-Service-OAuth-Client-Id': client.clientId },
      });
      expect(res.status).toBe(200);
    }
    await app.app.get(ReservationService).flushSettlements(true);
    await app.app.get(UsageRecorder).flush();
    const [fees] = await app.database.dataSource.query(
      'SELECT sum(fee_micros)::bigint AS fees FROM maker_earnings WHERE oauth_client_id = $1',
      [client.clientId],
    );
    expect(Number(fees.fees)).toBeGreaterThan(0);
    // A call the balance could not pay at all (sy_settle_exact on an empty account): the operator's loss.
    const broke = await kit.newUser(0);
    await app.database.dataSource.query(
      `SELECT * FROM sy_settle_exact(gen_random_uuid(), $1, NULL, NULL, 'loss', NULL, 1234, 'refused')`,
      [broke.id],
    );
    const after = await dayOf();
    expect(Math.round((after.fees - before.fees) * 1e6)).toBe(Number(fees.fees));
    expect(after.markedUpCalls - before.markedUpCalls).toBe(3);
    expect(after.lossCalls - before.lossCalls).toBe(1);
    expect(Math.round((after.callLosses - before.callLosses) * 1e6)).toBe(1234);
    expect((await as(admin).get('/money?days=0')).status).toBe(400);
    expect((await as(admin).get('/money?days=366')).status).toBe(400);
    expect((await app.app.get(ReconciliationService).reconcile()).drifts).toEqual([]);
  });
});
