import { freePort, OAuthTestKit, type OAuthTestUser } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';
import { ReconciliationService, ReservationService, UsageRecorder } from '../usage';

const CHAT = { model: 'demo-chat', messages: [{ role: 'user', content: 'Who pays for this?' }], max_tokens: 30 };
const CLIENT_HEADER = 'X-Service-OAuth-Client-Id';
const micros = (units: number) => Math.round(units * 1e6);

/**
 * Sponsored credits (docs/earnings.md, "Sponsored credits"): a maker funds a pool for an app; each user who
 * consents after it opened gets an allowance; their calls through the app draw it first, then their own budget;
 * the pool never goes below zero, also with many users at once; what is left goes back to the maker; every move
 * is in the ledger and reconcile balances.
 */
describe('sponsored credits', () => {
  let app: TestApp;
  let kit: OAuthTestKit;

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp({ port, publicUrl: `http://127.0.0.1:${port}`, signupCredit: 0 });
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
  const freeOf = async (userId: string) =>
    Number(
      (
        await db<{ free: string }>('SELECT credits_micros - debits_micros AS free FROM balances WHERE user_id = $1', [
          userId,
        ])
      )[0]?.free ?? 0,
    );
  const sponsor = (maker: OAuthTestUser, clientId: string, body: unknown) =>
    app.http(`/api/v1/oauth2/clients/${clientId}/sponsor`, { method: 'PUT', token: maker.session, body });
  const poolOf = async (maker: OAuthTestUser, clientId: string) =>
    (await app.http(`/api/v1/oauth2/clients/${clientId}/sponsor`, { token: maker.session })).body.data as {
      status: string;
      funded: number;
      left: number;
      drawn: number;
      takenBack: number;
      users: number;
    };
  const call = (token: string, clientId: string) =>
    app.http('/v1/chat/completions', { token, body: CHAT, headers: { [CLIENT_HEADER]: clientId } });
  /** What the consent page would say the app pays (null: nothing). */
  const offerTo = async (user: OAuthTestUser, clientId: string) => {
    const params = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:8765/callback',
      scope: 'api:access',
      state: 'offer',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    });
    const res = await app.http(`/api/v1/oauth2/authorize/request?${params.toString()}`, { token: user.session });
    expect(res.status).toBe(200);
    return res.body.data.sponsoredUpTo as number | null;
  };

  it('draws the allowance first, then the user’s own budget; the log says what the app paid', async () => {
    const maker = await kit.newUser(1_000_000);
    const client = await kit.createClient({ clientName: 'Generous', markupPercent: 50 }, maker);
    const early = await kit.newUser(1_000_000);
    await kit.tokensFor(client, { user: early });
    const opened = await sponsor(maker, client.clientId, { amount: 0.5, allowancePerUser: 0.0005 });
    expect(opened.status).toBe(200);
    expect(opened.body.data).toMatchObject({ status: 'open', funded: 0.5, left: 0.5, drawn: 0, users: 0 });
    expect(await freeOf(maker.id)).toBe(500_000);

    const user = await kit.newUser(1_000_000);
    expect(await offerTo(user, client.clientId)).toBe(0.0005);
    // A user who approved before the pool opened gets no allowance.
    expect(await offerTo(early, client.clientId)).toBeNull();
    const tokens = await kit.tokensFor(client, { user });
    let charged = 0;
    for (let i = 0; i < 14; i += 1) {
      const answer = await call(tokens.access_token, client.clientId);
      expect(answer.status).toBe(200);
      charged += micros(Number(answer.headers.get('x-switchyard-cost')));
      // Each call's settlement written before the next call holds: a hold claims the allowance up to what it
      // holds, and what it did not spend goes back to the allowance only when it settles. Unflushed, a quick next
      // call finds part of the allowance still held and pays that part itself (the allowance keeps it for later).
      await flushed();
    }
    expect(charged).toBeGreaterThan(500);
    // The app paid its allowance, all of it; the user the rest.
    expect(await freeOf(user.id)).toBe(1_000_000 - (charged - 500));
    expect(await poolOf(maker, client.clientId)).toMatchObject({ drawn: 0.0005, left: 0.4995, users: 1 });
    expect(await offerTo(user, client.clientId)).toBeNull();

    const activity = await app.http('/api/v1/usage/me/activity?limit=20', { token: user.session });
    const sponsored = (activity.body.data.items as Array<{ money: { sponsored: number; charged: number } }>).map(
      (item) => item.money,
    );
    expect(sponsored.reduce((sum, money) => sum + micros(money.sponsored), 0)).toBe(500);
    for (const money of sponsored) expect(money.sponsored).toBeLessThanOrEqual(money.charged);
    expect(sponsored.some((money) => money.sponsored === 0)).toBe(true);

    // The one who consented early pays all of theirs.
    const earlyTokens = await kit.tokensFor(client, { user: early });
    const answer = await call(earlyTokens.access_token, client.clientId);
    await flushed();
    expect(await freeOf(early.id)).toBe(1_000_000 - micros(Number(answer.headers.get('x-switchyard-cost'))));
    expect((await reconcile()).drifts).toEqual([]);
  });

  it('lets a user with no money of their own call on the allowance alone, then refuses with budget_exhausted', async () => {
    const maker = await kit.newUser(1_000_000);
    const client = await kit.createClient({ clientName: 'Free tier' }, maker);
    await sponsor(maker, client.clientId, { amount: 0.01, allowancePerUser: 0.0003 });
    const user = await kit.newUser(0);
    const tokens = await kit.tokensFor(client, { user });
    const statuses: number[] = [];
    for (let i = 0; i < 10 && !statuses.includes(403); i += 1) {
      statuses.push((await call(tokens.access_token, client.clientId)).status);
      await flushed();
    }
    expect(statuses[0]).toBe(200);
    expect(statuses.at(-1)).toBe(403);
    expect(await freeOf(user.id)).toBe(0);
    const pool = await poolOf(maker, client.clientId);
    expect(micros(pool.drawn)).toBeLessThanOrEqual(300);
    expect(micros(pool.drawn)).toBeGreaterThan(0);
    expect((await reconcile()).drifts).toEqual([]);
  });

  it('never takes the pool below zero when many users draw at once, and what they drew is what left it', async () => {
    const maker = await kit.newUser(1_000_000);
    const client = await kit.createClient({ clientName: 'Crowded', markupPercent: 20 }, maker);
    await sponsor(maker, client.clientId, { amount: 0.001, allowancePerUser: 0.0004 });
    const users = await Promise.all(Array.from({ length: 20 }, () => kit.newUser(1_000_000)));
    const tokens = [];
    for (const user of users) tokens.push((await kit.tokensFor(client, { user })).access_token);
    const answers = await Promise.all(tokens.map((token) => call(token, client.clientId)));
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    await flushed();
    const pool = await poolOf(maker, client.clientId);
    expect(pool.left).toBeGreaterThanOrEqual(0);
    expect(pool.drawn).toBeGreaterThan(0);
    expect(micros(pool.drawn) + micros(pool.left)).toBe(1000);
    const [drawn] = await db<{ sponsor: string; ledger: string }>(
      `SELECT (SELECT sum(LEAST(settled_micros, sponsor_micros)) FROM reservations
                WHERE oauth_client_id = $1 AND status <> 'open') AS sponsor,
              (SELECT sum(amount_micros) FROM ledger_entries WHERE kind = 'sponsor' AND source = $1) AS ledger`,
      [client.clientId],
    );
    expect(Number(drawn.sponsor)).toBe(micros(pool.drawn));
    expect(Number(drawn.ledger)).toBe(micros(pool.drawn));
    // Each user paid what their call cost less what the app paid of it.
    let own = 0;
    for (const [i, user] of users.entries())
      own += micros(Number(answers[i].headers.get('x-switchyard-cost'))) - (1_000_000 - (await freeOf(user.id)));
    expect(own).toBe(micros(pool.drawn));
    expect((await reconcile()).drifts).toEqual([]);
  });

  it('takes what is left back into the maker’s balance; calls then draw nothing', async () => {
    const maker = await kit.newUser(1_000_000);
    const client = await kit.createClient({ clientName: 'Changed my mind' }, maker);
    await sponsor(maker, client.clientId, { amount: 0.2, allowancePerUser: 0.0002 });
    const user = await kit.newUser(1_000_000);
    const tokens = await kit.tokensFor(client, { user });
    expect((await call(tokens.access_token, client.clientId)).status).toBe(200);
    await flushed();
    const before = await poolOf(maker, client.clientId);
    const path = `/api/v1/oauth2/clients/${client.clientId}/sponsor/withdraw`;
    const withdrawn = await app.http(path, { method: 'POST', token: maker.session });
    expect(withdrawn.status).toBe(200);
    expect(withdrawn.body.data.takenBack).toBe(before.left);
    expect(withdrawn.body.data.pool).toMatchObject({ status: 'withdrawn', left: 0, takenBack: before.left });
    expect(await freeOf(maker.id)).toBe(800_000 + micros(before.left));
    expect((await app.http(path, { method: 'POST', token: maker.session })).body.data.takenBack).toBe(0);
    const free = await freeOf(user.id);
    const answer = await call(tokens.access_token, client.clientId);
    await flushed();
    expect(await freeOf(user.id)).toBe(free - micros(Number(answer.headers.get('x-switchyard-cost'))));
    expect(await offerTo(await kit.newUser(0), client.clientId)).toBeNull();
    expect((await reconcile()).drifts).toEqual([]);
  });

  it('stops draws at the end date', async () => {
    const maker = await kit.newUser(1_000_000);
    const client = await kit.createClient({ clientName: 'Ending' }, maker);
    const endsAt = new Date(Date.now() + 3_600_000).toISOString();
    const opened = await sponsor(maker, client.clientId, { amount: 0.1, allowancePerUser: 0.001, endsAt });
    expect(opened.body.data.endsAt).toBe(endsAt);
    const user = await kit.newUser(1_000_000);
    const tokens = await kit.tokensFor(client, { user });
    await db(`UPDATE sponsor_pools SET ends_at = now() - interval '1 second' WHERE oauth_client_id = $1`, [
      client.clientId,
    ]);
    const answer = await call(tokens.access_token, client.clientId);
    await flushed();
    expect(await freeOf(user.id)).toBe(1_000_000 - micros(Number(answer.headers.get('x-switchyard-cost'))));
    expect(await poolOf(maker, client.clientId)).toMatchObject({ status: 'ended', drawn: 0, left: 0.1 });
  });

  it('gives what is left back to the maker when the app is deleted', async () => {
    const maker = await kit.newUser(1_000_000);
    const client = await kit.createClient({ clientName: 'Short-lived' }, maker);
    await sponsor(maker, client.clientId, { amount: 0.3, allowancePerUser: 0.0002 });
    const user = await kit.newUser(1_000_000);
    const tokens = await kit.tokensFor(client, { user });
    expect((await call(tokens.access_token, client.clientId)).status).toBe(200);
    await flushed();
    const left = micros((await poolOf(maker, client.clientId)).left);
    expect(left).toBeLessThan(300_000);
    const deleted = await app.http(`/api/v1/oauth2/clients/${client.clientId}`, {
      method: 'DELETE',
      token: maker.session,
    });
    expect(deleted.status).toBe(200);
    expect(await freeOf(maker.id)).toBe(700_000 + left);
    const [pool] = await db<{ left_micros: string; taken_back_micros: string }>(
      'SELECT left_micros, taken_back_micros FROM sponsor_pools WHERE oauth_client_id = $1',
      [client.clientId],
    );
    expect(pool).toEqual({ left_micros: '0', taken_back_micros: String(left) });
    expect((await reconcile()).drifts).toEqual([]);
  });

  it('refuses other users’ apps (404), bad amounts (400) and more than the balance (409), moving nothing', async () => {
    const maker = await kit.newUser(100_000);
    const client = await kit.createClient({ clientName: 'Mine' }, maker);
    const attacker = await kit.newUser(1_000_000);
    const base = `/api/v1/oauth2/clients/${client.clientId}/sponsor`;
    for (const res of [
      await app.http(base, { token: attacker.session }),
      await sponsor(attacker, client.clientId, { amount: 0.01, allowancePerUser: 0.01 }),
      await app.http(`${base}/withdraw`, { method: 'POST', token: attacker.session }),
      await sponsor(attacker, String(client.id), { amount: 0.01, allowancePerUser: 0.01 }),
    ]) {
      expect(res.status).toBe(404);
      expect(res.body).toMatchObject({ success: false, error: { code: 'CLIENT_NOT_FOUND' } });
    }
    for (const body of [
      { amount: -1, allowancePerUser: 0.01 },
      { amount: 0.01, allowancePerUser: -0.01 },
      { amount: 0.01, allowancePerUser: 0 },
      { amount: 1e12, allowancePerUser: 0.01 },
      { amount: 0.0000001, allowancePerUser: 0.01 },
      { amount: '5', allowancePerUser: 0.01 },
      { amount: 0.01, allowancePerUser: 0.01, endsAt: 'tomorrow' },
    ]) {
      const res = await sponsor(maker, client.clientId, body);
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ success: false, error: { code: 'VALIDATION_FAILED' } });
    }
    expect((await sponsor(maker, client.clientId, { amount: 0.01 })).body.error.code).toBe('SPONSOR_POOL_INCOMPLETE');
    expect((await sponsor(maker, client.clientId, { amount: 0, allowancePerUser: 0.01 })).status).toBe(400);
    const past = await sponsor(maker, client.clientId, { amount: 0.01, allowancePerUser: 0.01, endsAt: '2020-01-01' });
    expect(past.body.error.code).toBe('SPONSOR_ENDS_AT_PAST');
    const tooMuch = await sponsor(maker, client.clientId, { amount: 0.100001, allowancePerUser: 0.01 });
    expect(tooMuch.status).toBe(409);
    expect(tooMuch.body.error.code).toBe('SPONSOR_BALANCE_TOO_LOW');
    const [withdraw] = [await app.http(`${base}/withdraw`, { method: 'POST', token: maker.session })];
    expect(withdraw.status).toBe(404);
    expect(await freeOf(maker.id)).toBe(100_000);
    expect(await freeOf(attacker.id)).toBe(1_000_000);
    expect(await poolOf(maker, client.clientId)).toMatchObject({ status: 'none', funded: 0 });
    // Funding at once, more than the balance in all: each is paid or refused whole, the balance never below zero.
    const fundings = await Promise.all(
      Array.from({ length: 6 }, () => sponsor(maker, client.clientId, { amount: 0.03, allowancePerUser: 0.01 })),
    );
    expect(fundings.filter((res) => res.status === 200)).toHaveLength(3);
    expect(await freeOf(maker.id)).toBe(10_000);
    expect(await poolOf(maker, client.clientId)).toMatchObject({ funded: 0.09, left: 0.09 });
    expect((await reconcile()).drifts).toEqual([]);
  });
});
