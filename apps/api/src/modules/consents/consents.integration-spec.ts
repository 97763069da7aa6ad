import { freePort, OAuthTestKit, type OAuthTestUser as User } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';
import { ReservationService, SponsorService, UsageRecorder } from '../usage';
import { ConsentsService } from './consents.service';

const CHAT = { model: 'demo-chat', messages: [{ role: 'user' as const, content: 'Hello from an app' }] };

/**
 * The consents module's rules (docs/oauth.md): what each user let each app do and spend, seen and revoked by that
 * user only. Which authorizations ask for consent is oauth.integration-spec.ts's.
 */
describe('consents', () => {
  let app: TestApp;
  let kit: OAuthTestKit;

  const v1 = (token: string, clientId: string, path = '/v1/models', init: { body?: unknown } = {}) =>
    app.http(path, { token, headers: { 'x-service-oauth-client-id': clientId }, ...init });
  const chat = (token: string, clientId: string) => v1(token, clientId, '/v1/chat/completions', { body: CHAT });
  const consentsOf = async (user: User) =>
    (await app.http('/api/v1/oauth2/consents', { token: user.session })).body.data as Array<Record<string, any>>;
  const countOf = async (user: User) =>
    (await app.http('/api/v1/oauth2/consents/count', { token: user.session })).body.data as number;
  const setLimits = (user: User, clientId: string, body: Record<string, unknown>) =>
    app.http(`/api/v1/oauth2/consents/${clientId}/limits`, { method: 'PUT', token: user.session, body });
  const revoke = (user: User, clientId: string) =>
    app.http(`/api/v1/oauth2/consents/${clientId}`, { method: 'DELETE', token: user.session });
  const refresh = (refreshToken: string, clientId: string) =>
    app.http('/oauth2/token', { body: { grantType: 'refresh_token', refreshToken, clientId } });

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp({ port, publicUrl: `http://127.0.0.1:${port}`, signupCredit: 0 });
    kit = await OAuthTestKit.start(app);
  });
  afterAll(() => app?.close());

  it('lists only the caller’s own consents, and counts them', async () => {
    const [alice, bob] = [await kit.newUser(), await kit.newUser()];
    const forAlice = await kit.createClient({ clientName: 'Alice’s App' });
    const forBob = await kit.createClient({ clientName: 'Bob’s App' });
    expect([await consentsOf(alice), await countOf(alice)]).toEqual([[], 0]);
    await kit.codeFor(forAlice.clientId, { user: alice });
    await kit.codeFor(forBob.clientId, { user: bob });
    const mine = await consentsOf(alice);
    expect(mine).toEqual([
      {
        clientId: forAlice.clientId,
        clientName: 'Alice’s App',
        scopes: ['api:access', 'profile:read'],
        grantedAt: expect.any(String),
        lastUsedAt: null,
        limits: { total: null, daily: null, weekly: null, monthly: null, perRequest: null },
        spentThisMonth: 0,
        redirectUris: ['http://127.0.0.1:8765/callback'],
        markupPercent: 0,
        pendingMarkupPercent: null,
        sponsor: null,
      },
    ]);
    expect((await consentsOf(bob)).map((consent) => consent.clientId)).toEqual([forBob.clientId]);
    expect([await countOf(alice), await countOf(bob)]).toEqual([1, 1]);
    // The app's owner authorized nothing.
    expect([await consentsOf(kit.owner), await countOf(kit.owner)]).toEqual([[], 0]);
  });

  it('lets no one revoke or cap a consent that is not theirs (404 CONSENT_NOT_FOUND), and it stays', async () => {
    const [alice, mallory] = [await kit.newUser(), await kit.newUser()];
    const client = await kit.createClient({ clientName: 'Guarded App' });
    const tokens = await kit.tokensFor(client, { user: alice });
    for (const res of [
      await revoke(mallory, client.clientId),
      await setLimits(mallory, client.clientId, { perRequest: 0 }),
      await revoke(alice, 'syc_unknown'),
    ])
      expect(res).toMatchObject({ status: 404, body: { success: false, error: { code: 'CONSENT_NOT_FOUND' } } });
    const [consent] = await consentsOf(alice);
    expect(consent).toMatchObject({ clientId: client.clientId, limits: { perRequest: null } });
    expect((await chat(tokens.access_token, client.clientId)).status).toBe(200);
  });

  it('consent revoked mid-session: the app’s tokens stop at once', async () => {
    const alice = await kit.newUser();
    const client = await kit.createClient({ clientName: 'Revoked App' });
    const tokens = await kit.tokensFor(client, { user: alice });
    expect((await v1(tokens.access_token, client.clientId)).status).toBe(200);
    const count = await countOf(alice);
    const revoked = await revoke(alice, client.clientId);
    expect(revoked).toMatchObject({ status: 200, body: { data: { clientId: client.clientId } } });
    expect(await countOf(alice)).toBe(count - 1);
    expect((await v1(tokens.access_token, client.clientId)).status).toBe(401);
    expect((await refresh(tokens.refresh_token!, client.clientId)).body.error).toBe('invalid_grant');
    const [left] = await app.database.dataSource.query(
      `SELECT (SELECT count(*)::int FROM oauth_grants WHERE user_id = $1 AND client_pk = $2) AS grants,
              (SELECT count(*)::int FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id WHERE g.user_id = $1 AND g.client_pk = $2) AS tokens`,
      [alice.id, client.id],
    );
    expect(left).toEqual({ grants: 0, tokens: 0 });
  });

  it('revoking ends that user’s tokens of that app only: other users of the app and the user’s other apps go on', async () => {
    const [alice, bob] = [await kit.newUser(), await kit.newUser()];
    const shared = await kit.createClient({ clientName: 'Shared App' });
    const other = await kit.createClient({ clientName: 'Other App' });
    const aliceShared = await kit.tokensFor(shared, { user: alice });
    const aliceOther = await kit.tokensFor(other, { user: alice });
    const bobShared = await kit.tokensFor(shared, { user: bob });
    expect((await revoke(alice, shared.clientId)).status).toBe(200);
    expect((await v1(aliceShared.access_token, shared.clientId)).status).toBe(401);
    expect((await v1(bobShared.access_token, shared.clientId)).status).toBe(200);
    expect((await v1(aliceOther.access_token, other.clientId)).status).toBe(200);
    expect((await refresh(bobShared.refresh_token!, shared.clientId)).status).toBe(200);
    expect((await consentsOf(alice)).map((consent) => consent.clientId)).toEqual([other.clientId]);
    expect((await consentsOf(bob)).map((consent) => consent.clientId)).toEqual([shared.clientId]);
  });

  it('widens a consent’s scopes to the union of what the user granted, never narrows them', async () => {
    const alice = await kit.newUser();
    const client = await kit.createClient({ clientName: 'Growing App' });
    await kit.codeFor(client.clientId, { user: alice, scope: 'api:access' });
    expect((await consentsOf(alice))[0].scopes).toEqual(['api:access']);
    await kit.codeFor(client.clientId, { user: alice, scope: 'profile:read' });
    expect((await consentsOf(alice))[0].scopes).toEqual(['api:access', 'profile:read']);
    await kit.codeFor(client.clientId, { user: alice, scope: 'api:access' });
    expect((await consentsOf(alice))[0].scopes).toEqual(['api:access', 'profile:read']);
  });

  it('enforces the per-request maximum and the monthly cap set on the consent page, and lets the user change them', async () => {
    const user = await kit.newUser();
    const client = await kit.createClient({ clientName: 'Capped App' });
    const tokens = await kit.tokensFor(client, { user, limits: { perRequest: 0.000001, monthly: null } });
    const refused = await chat(tokens.access_token, client.clientId);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'spend_limit_exceeded', scope: 'app', limit: 'per_request' });

    const lifted = await setLimits(user, client.clientId, { perRequest: null, monthly: 1 });
    expect(lifted.body.data.limits).toEqual({ total: null, daily: null, weekly: null, monthly: 1, perRequest: null });
    expect((await chat(tokens.access_token, client.clientId)).status).toBe(200);
    await app.app.get(ReservationService).flushSettlements();
    const [consent] = await consentsOf(user);
    expect(consent.spentThisMonth).toBeGreaterThan(0);

    await setLimits(user, client.clientId, { monthly: consent.spentThisMonth });
    const capped = await chat(tokens.access_token, client.clientId);
    expect(capped.status).toBe(403);
    expect(capped.body.error).toMatchObject({ scope: 'app', limit: 'monthly' });
    // The same five caps as a key's: total, daily and weekly too; the first that trips is named.
    await setLimits(user, client.clientId, { monthly: null, daily: consent.spentThisMonth });
    expect((await chat(tokens.access_token, client.clientId)).body.error.limit).toBe('daily');
    await setLimits(user, client.clientId, { daily: null, total: consent.spentThisMonth });
    expect((await chat(tokens.access_token, client.clientId)).body.error.limit).toBe('total');
    await setLimits(user, client.clientId, { total: null });
    expect((await chat(tokens.access_token, client.clientId)).status).toBe(200);
  });

  it('changes the caps sent, clears those sent as null, keeps those left out, and refuses bad amounts (400)', async () => {
    const alice = await kit.newUser();
    const client = await kit.createClient({ clientName: 'Capped Again' });
    await kit.codeFor(client.clientId, { user: alice });
    expect((await setLimits(alice, client.clientId, { monthly: 5, perRequest: 0.25 })).body.data.limits).toEqual({
      total: null,
      daily: null,
      weekly: null,
      monthly: 5,
      perRequest: 0.25,
    });
    expect((await setLimits(alice, client.clientId, { daily: 1.5 })).body.data.limits).toEqual({
      total: null,
      daily: 1.5,
      weekly: null,
      monthly: 5,
      perRequest: 0.25,
    });
    expect((await setLimits(alice, client.clientId, { monthly: null })).body.data.limits).toEqual({
      total: null,
      daily: 1.5,
      weekly: null,
      monthly: null,
      perRequest: 0.25,
    });
    const [row] = await app.database.dataSource.query(
      'SELECT limit_daily_micros, limit_monthly_micros, limit_per_request_micros FROM oauth_consents WHERE user_id = $1 AND client_pk = $2',
      [alice.id, client.id],
    );
    expect(row).toEqual({
      limit_daily_micros: '1500000',
      limit_monthly_micros: null,
      limit_per_request_micros: '250000',
    });
    for (const body of [
      { monthly: -1 },
      { monthly: 1_000_001 },
      { daily: 0.0000001 },
      { total: 'ten' },
      { weekly: 1, overdraft: true },
    ]) {
      const res = await setLimits(alice, client.clientId, body);
      expect([body, res.status, res.body.error?.code]).toEqual([body, 400, 'VALIDATION_FAILED']);
    }
    expect((await consentsOf(alice))[0].limits).toEqual({
      total: null,
      daily: 1.5,
      weekly: null,
      monthly: null,
      perRequest: 0.25,
    });
  });

  it('shows one consent to its user only; tells an app what is left of its caps (consents/current)', async () => {
    const [alice, mallory] = [await kit.newUser(), await kit.newUser()];
    const client = await kit.createClient({ clientName: 'Allowance App' });
    const tokens = await kit.tokensFor(client, { user: alice, limits: { monthly: 2, perRequest: 1 } });
    const one = await app.http(`/api/v1/oauth2/consents/${client.clientId}`, { token: alice.session });
    expect(one.body.data).toMatchObject({
      clientId: client.clientId,
      redirectUris: ['http://127.0.0.1:8765/callback'],
    });
    expect((await app.http(`/api/v1/oauth2/consents/${client.clientId}`, { token: mallory.session })).status).toBe(404);

    const current = () =>
      app.http('/api/v1/oauth2/consents/current', {
        token: tokens.access_token,
        headers: { 'x-service-oauth-client-id': client.clientId },
      });
    const before = await current();
    expect(before.body.data).toEqual({
      clientId: client.clientId,
      clientName: 'Allowance App',
      limits: { total: null, daily: null, weekly: null, monthly: 2, perRequest: 1 },
      spent: { total: 0, daily: 0, weekly: 0, monthly: 0 },
      remaining: { total: null, daily: null, weekly: null, monthly: 2, perRequest: 1 },
    });
    expect((await chat(tokens.access_token, client.clientId)).status).toBe(200);
    await app.app.get(ReservationService).flushSettlements();
    const after = (await current()).body.data;
    expect(after.spent.monthly).toBeGreaterThan(0);
    expect(after.remaining.monthly).toBeCloseTo(2 - after.spent.monthly, 6);
    // Without the client-id header, refused; a dashboard session has no current app.
    const noHeader = await app.http('/api/v1/oauth2/consents/current', { token: tokens.access_token });
    expect(noHeader.status).toBe(400);
    expect((await app.http('/api/v1/oauth2/consents/current', { token: alice.session })).status).toBe(404);
  });

  it('records when an app last acted for the user', async () => {
    const alice = await kit.newUser();
    const client = await kit.createClient({ clientName: 'Quiet App' });
    const tokens = await kit.tokensFor(client, { user: alice });
    expect((await consentsOf(alice))[0].lastUsedAt).toBeNull();
    const before = Date.now();
    expect((await v1(tokens.access_token, client.clientId)).status).toBe(200);
    await app.app.get(ConsentsService).flushTouches();
    const { lastUsedAt } = (await consentsOf(alice))[0];
    expect(Date.parse(lastUsedAt)).toBeGreaterThanOrEqual(before - 1000);
  });

  describe('sponsored credits (docs/earnings.md)', () => {
    const micros = (units: number) => Math.round(units * 1e6);
    const sponsor = (maker: User, clientId: string, body: unknown) =>
      app.http(`/api/v1/oauth2/clients/${clientId}/sponsor`, { method: 'PUT', token: maker.session, body });
    const sponsorOf = async (user: User, clientId: string) => {
      const consent = (await consentsOf(user)).find((one) => one.clientId === clientId);
      expect(consent).toBeDefined();
      return consent!.sponsor as { allowance: number; left: number; endsAt: string | null } | null;
    };
    const settled = async () => {
      await app.app.get(ReservationService).flushSettlements(true);
      await app.app.get(UsageRecorder).flush();
    };

    it('shows each user their own allowance, what is left of it after a call, and the end; null without one', async () => {
      const maker = await kit.newUser(1_000_000);
      const client = await kit.createClient({ clientName: 'Sponsoring App' }, maker);
      const plain = await kit.createClient({ clientName: 'Plain App' });
      const early = await kit.newUser();
      await kit.codeFor(client.clientId, { user: early });
      const endsAt = new Date(Date.now() + 7 * 86_400_000).toISOString();
      expect((await sponsor(maker, client.clientId, { amount: 0.5, allowancePerUser: 0.01, endsAt })).status).toBe(200);

      const [user, other] = [await kit.newUser(), await kit.newUser()];
      const tokens = await kit.tokensFor(client, { user });
      await kit.codeFor(client.clientId, { user: other });
      await kit.codeFor(plain.clientId, { user });
      expect(await sponsorOf(user, client.clientId)).toEqual({ allowance: 0.01, left: 0.01, endsAt });
      // An app with no pool, and a user who approved before the pool opened: nothing.
      expect(await sponsorOf(user, plain.clientId)).toBeNull();
      expect(await sponsorOf(early, client.clientId)).toBeNull();

      // A call through the app: what is left drops by what the app paid of it, for this user only.
      expect((await chat(tokens.access_token, client.clientId)).status).toBe(200);
      await settled();
      const activity = await app.http('/api/v1/usage/me/activity?limit=5', { token: user.session });
      const [call] = activity.body.data.items as Array<{ money: { sponsored: number; charged: number } }>;
      expect(call.money.sponsored).toBeGreaterThan(0);
      expect(call.money.sponsored).toBe(call.money.charged);
      const after = await sponsorOf(user, client.clientId);
      expect(after).toEqual({ allowance: 0.01, left: expect.any(Number), endsAt });
      expect(micros(after!.left)).toBe(micros(0.01) - micros(call.money.sponsored));
      expect(await sponsorOf(other, client.clientId)).toEqual({ allowance: 0.01, left: 0.01, endsAt });
      // The one app's answers say the same as the list, and saving caps keeps it.
      const one = await app.http(`/api/v1/oauth2/consents/${client.clientId}`, { token: user.session });
      expect(one.body.data.sponsor).toEqual(after);
      expect((await setLimits(user, client.clientId, { monthly: 3 })).body.data.sponsor).toEqual(after);

      // No one else reads a user's figures: not another user, not the app's maker (who consented to nothing).
      const mallory = await kit.newUser();
      expect((await app.http(`/api/v1/oauth2/consents/${client.clientId}`, { token: mallory.session })).status).toBe(
        404,
      );
      expect(await consentsOf(mallory)).toEqual([]);
      expect(await consentsOf(maker)).toEqual([]);

      // Withdrawn, the pool pays no more: no line for anyone.
      const withdrawn = await app.http(`/api/v1/oauth2/clients/${client.clientId}/sponsor/withdraw`, {
        method: 'POST',
        token: maker.session,
      });
      expect(withdrawn.status).toBe(200);
      expect([await sponsorOf(user, client.clientId), await sponsorOf(other, client.clientId)]).toEqual([null, null]);
    });

    it('shows an allowance used up as 0 left, and reads every app’s sponsorship in one query', async () => {
      const maker = await kit.newUser(1_000_000);
      const apps = [
        await kit.createClient({ clientName: 'Tiny Sponsor' }, maker),
        await kit.createClient({ clientName: 'Open Sponsor' }, maker),
      ];
      await sponsor(maker, apps[0].clientId, { amount: 0.01, allowancePerUser: 0.000001 });
      await sponsor(maker, apps[1].clientId, { amount: 0.01, allowancePerUser: 0.002 });
      const user = await kit.newUser();
      const tokens = await kit.tokensFor(apps[0], { user });
      await kit.codeFor(apps[1].clientId, { user });
      expect((await chat(tokens.access_token, apps[0].clientId)).status).toBe(200);
      await settled();
      expect(await sponsorOf(user, apps[0].clientId)).toEqual({ allowance: 0.000001, left: 0, endsAt: null });

      // Two sponsored apps, one read of the allowances (not one per consent).
      const reads = jest.spyOn(app.app.get(SponsorService), 'sponsorshipsOf');
      const queries = jest.spyOn(app.database.dataSource, 'query');
      const list = await consentsOf(user);
      const calls = reads.mock.calls.length;
      const allowanceQueries = queries.mock.calls.filter(([sql]) => String(sql).includes('sponsor_allowances')).length;
      reads.mockRestore();
      queries.mockRestore();
      expect(list.map((consent) => [consent.clientName, consent.sponsor])).toEqual([
        ['Open Sponsor', { allowance: 0.002, left: 0.002, endsAt: null }],
        ['Tiny Sponsor', { allowance: 0.000001, left: 0, endsAt: null }],
      ]);
      expect([calls, allowanceQueries]).toEqual([1, 1]);
    });
  });
});
