import { freePort, OAuthTestKit, type OAuthTestUser } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';
import { markedUp, markupSplit, ReservationService, UsageRecorder } from '../usage';

const CHAT = { model: 'demo-chat', messages: [{ role: 'user', content: 'What does the app add?' }], max_tokens: 30 };
const EMBED = { model: 'demo-embedding', input: 'a markup on embeddings too' };
const CLIENT_HEADER = 'X-Service-OAuth-Client-Id';
const micros = (units: number) => Math.round(units * 1e6);

/**
 * An app's markup (docs/earnings.md): a call through the app costs its user cost × (1 + markup), in the answer, the
 * hold, the caps and the ledger; each consent keeps the rate its user agreed to (a raise waits for re-consent, a cut
 * is at once), and a call keeps the rate it began with.
 */
describe('a markup per app', () => {
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
  const keyOf = async (user: OAuthTestUser) =>
    (await app.http('/api/v1/keys', { token: user.session, body: { name: 'baseline' } })).body.data.key as string;
  const setMarkup = async (clientId: string, markupPercent: unknown, by = kit.owner) =>
    app.http(`/api/v1/oauth2/clients/${clientId}`, { method: 'PUT', token: by.session, body: { markupPercent } });
  const call = (path: string, token: string, body: unknown, clientId?: string) =>
    app.http(path, { token, body, headers: clientId ? { [CLIENT_HEADER]: clientId } : {} });
  /** What the settled reservation of a call says: its rate and what it was charged. */
  const settledCall = async (requestId: string) => {
    await flushed();
    const [row] = await db<{ markup: number; settled: string }>(
      `SELECT markup_percent AS markup, settled_micros AS settled FROM reservations WHERE request_id = $1`,
      [requestId],
    );
    return { markup: Number(row.markup), settled: Number(row.settled) };
  };

  it('charges cost × (1 + markup) on chat, streaming and embeddings, and splits it in cost_details', async () => {
    const user = await kit.newUser(5_000_000);
    const key = await keyOf(user);
    const client = await kit.createClient({ clientName: 'Marked up', markupPercent: 25 });
    const tokens = await kit.tokensFor(client, { user });
    for (const [path, body] of [
      ['/v1/chat/completions', CHAT],
      ['/v1/embeddings', EMBED],
    ] as const) {
      const baseline = await call(path, key, body);
      expect(baseline.status).toBe(200);
      const cost = micros(Number(baseline.headers.get('x-switchyard-cost')));
      expect(cost).toBeGreaterThan(0);
      const through = await call(path, tokens.access_token, body, client.clientId);
      expect(through.status).toBe(200);
      const paid = markedUp(cost, 25);
      expect(paid).toBeGreaterThan(cost);
      expect(micros(Number(through.headers.get('x-switchyard-cost')))).toBe(paid);
      expect(micros(through.body.usage.cost)).toBe(paid);
      expect(micros(through.body.usage.cost_details.provider_cost)).toBe(cost);
      expect(micros(through.body.usage.cost_details.markup)).toBe(paid - cost);
      expect(await settledCall(through.headers.get('x-request-id')!)).toEqual({ markup: 25, settled: paid });
    }
    // Streaming: the final usage chunk states what was paid, and the ledger debits exactly that.
    const stream = { ...CHAT, stream: true, stream_options: { include_usage: true } };
    const baseline = await call('/v1/chat/completions', key, stream);
    const through = await call('/v1/chat/completions', tokens.access_token, stream, client.clientId);
    const usageOf = (text: string) =>
      text
        .split('\n')
        .filter((line) => line.startsWith('data: {'))
        .map((line) => JSON.parse(line.slice(6)))
        .find((chunk) => chunk.usage)?.usage;
    const cost = micros(usageOf(baseline.body).cost);
    expect(micros(usageOf(through.body).cost)).toBe(markedUp(cost, 25));
    expect(micros(usageOf(through.body).cost_details.markup)).toBe(markedUp(cost, 25) - cost);
    expect(await settledCall(through.headers.get('x-request-id')!)).toEqual({
      markup: 25,
      settled: markedUp(cost, 25),
    });
    const ledger = await db<{ debit: string }>(
      `SELECT -amount_micros AS debit FROM ledger_entries WHERE kind = 'usage' AND source = (
         SELECT id::text FROM reservations WHERE request_id = $1)`,
      [through.headers.get('x-request-id')],
    );
    expect(Number(ledger[0].debit)).toBe(markedUp(cost, 25));
    // The Requests page's money trace carries the markup line: the rate and the split of what was charged.
    const items = (await app.http('/api/v1/usage/me/activity?limit=20', { token: user.session })).body.data.items as {
      requestId: string;
      money: { charged: number; markup: { percent: number; providerCost: number; markup: number } | null };
    }[];
    const marked = items.find((item) => item.requestId === through.headers.get('x-request-id'))!;
    expect(marked.money.markup).toEqual({
      percent: 25,
      providerCost: cost / 1e6,
      markup: (markedUp(cost, 25) - cost) / 1e6,
    });
    expect(items.filter((item) => item.money.markup === null).length).toBeGreaterThan(0);
  });

  it('applies a raise only after the user approves it again, and a cut at once; the page counts the old rate', async () => {
    const user = await kit.newUser(5_000_000);
    const key = await keyOf(user);
    const client = await kit.createClient({ clientName: 'Raised', markupPercent: 10 });
    const tokens = await kit.tokensFor(client, { user });
    const cost = micros(Number((await call('/v1/chat/completions', key, CHAT)).headers.get('x-switchyard-cost')));
    const paid = async (token: string) =>
      micros(
        Number((await call('/v1/chat/completions', token, CHAT, client.clientId)).headers.get('x-switchyard-cost')),
      );
    expect(await paid(tokens.access_token)).toBe(markedUp(cost, 10));

    expect((await setMarkup(client.clientId, 50)).body.data).toMatchObject({ markupPercent: 50, usersOnOldRate: 1 });
    // The user's token is still priced at what they agreed to.
    expect(await paid(tokens.access_token)).toBe(markedUp(cost, 10));
    // A new authorization is not silent: the consent page comes back, stating the new rate.
    const { verifier: _unused, challengePromise } = kit.pkce();
    const params = {
      client_id: client.clientId,
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:8765/callback',
      scope: 'api:access profile:read',
      state: 'raise',
      code_challenge: await challengePromise,
      code_challenge_method: 'S256',
    };
    expect((await kit.authorize(params, user)).location).toMatch(/^\/consent\?/);
    const shown = await app.http(`/api/v1/oauth2/authorize/request?${new URLSearchParams(params).toString()}`, {
      token: user.session,
    });
    expect(shown.body.data).toMatchObject({ markupPercent: 50, agreedMarkupPercent: 10 });
    const consents = (await app.http('/api/v1/oauth2/consents', { token: user.session })).body.data;
    expect(consents.find((c: { clientId: string }) => c.clientId === client.clientId)).toMatchObject({
      markupPercent: 10,
      pendingMarkupPercent: 50,
    });
    // Approved: the new rate applies (also to the token issued before).
    const again = await kit.tokensFor(client, { user });
    expect(await paid(again.access_token)).toBe(markedUp(cost, 50));
    expect(await paid(tokens.access_token)).toBe(markedUp(cost, 50));
    expect(
      (await app.http(`/api/v1/oauth2/clients/${client.clientId}`, { token: kit.owner.session })).body.data,
    ).toMatchObject({ usersOnOldRate: 0 });
    // A cut applies at once; raising back again needs approval again.
    await setMarkup(client.clientId, 5);
    expect(await paid(again.access_token)).toBe(markedUp(cost, 5));
    await setMarkup(client.clientId, 50);
    expect(await paid(again.access_token)).toBe(markedUp(cost, 5));
  });

  it('keeps the rate a call began with when the markup changes while it runs', async () => {
    const user = await kit.newUser(5_000_000);
    const client = await kit.createClient({ clientName: 'Mid-call', markupPercent: 40 });
    const tokens = await kit.tokensFor(client, { user });
    const res = await fetch(`${app.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${tokens.access_token}`,
        'content-type': 'application/json',
        [CLIENT_HEADER]: client.clientId,
      },
      body: JSON.stringify({ ...CHAT, max_tokens: 200, stream: true, stream_options: { include_usage: true } }),
    });
    const reader = res.body!.getReader();
    await reader.read(); // the answer has begun: its hold was made at 40 %
    expect((await setMarkup(client.clientId, 0)).status).toBe(200);
    const decoder = new TextDecoder();
    let text = '';
    for (let part = await reader.read(); !part.done; part = await reader.read()) text += decoder.decode(part.value);
    const usage = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)))
      .find((chunk) => chunk.usage)!.usage;
    const settled = await settledCall(res.headers.get('x-request-id')!);
    expect(settled.markup).toBe(40);
    expect(settled.settled).toBe(micros(usage.cost));
    const split = markupSplit(settled.settled, 40);
    expect(micros(usage.cost_details.markup)).toBe(split.markupMicros);
    expect(split.markupMicros).toBeGreaterThan(0);
  });

  it('never lets calls at once pass an app cap, counted on what the user pays', async () => {
    const user = await kit.newUser(5_000_000);
    const client = await kit.createClient({ clientName: 'Capped', markupPercent: 300 });
    const tokens = await kit.tokensFor(client, { user, limits: { total: 0.0006, monthly: null, perRequest: null } });
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => call('/v1/chat/completions', tokens.access_token, CHAT, client.clientId)),
    );
    expect(answers.map((answer) => [answer.status, answer.headers.get('x-switchyard-cost')])).toContainEqual([
      403,
      null,
    ]);
    await flushed();
    const [spent] = await db<{ total: string; below: number }>(
      `SELECT COALESCE(sum(settled_micros), 0) AS total, count(*) FILTER (WHERE markup_percent <> 300)::int AS below
         FROM reservations WHERE user_id = $1 AND status = 'settled'`,
      [user.id],
    );
    expect(Number(spent.total)).toBeGreaterThan(0);
    // Each call holds about 4 × 49 µ: three fit under the cap of 600 µ, whatever the order.
    expect(Number(spent.total)).toBeLessThanOrEqual(600);
    expect(spent.below).toBe(0);
    const paid = answers
      .filter((answer) => answer.status === 200)
      .reduce((sum, answer) => sum + micros(Number(answer.headers.get('x-switchyard-cost'))), 0);
    expect(paid).toBe(Number(spent.total));
  });

  it('refuses a markup out of range or not whole, and another maker’s app; a consent never agrees above the app', async () => {
    for (const markupPercent of [-1, 301, 1e12, 12.5, '20', null]) {
      const created = await app.http('/api/v1/oauth2/clients', {
        token: kit.owner.session,
        body: { clientName: 'Bad', redirectUris: ['http://127.0.0.1:8765/callback'], markupPercent },
      });
      expect([markupPercent, created.status]).toEqual([markupPercent, 400]);
    }
    const client = await kit.createClient({ clientName: 'Mine', markupPercent: 10 });
    for (const markupPercent of [-5, 400, 3.3])
      expect((await setMarkup(client.clientId, markupPercent)).status).toBe(400);
    const stranger = await kit.newUser(0);
    expect((await setMarkup(client.clientId, 300, stranger)).status).toBe(404);
    expect(
      (await app.http(`/api/v1/oauth2/clients/${client.clientId}`, { token: kit.owner.session })).body.data,
    ).toMatchObject({ markupPercent: 10 });
    // A consent posted with a higher rate than the app's keeps the app's: a later raise still needs approval.
    const user = await kit.newUser(5_000_000);
    await kit.tokensFor(client, { user, markupPercent: 300 });
    const [consent] = await db<{ markup: number }>(
      'SELECT markup_percent AS markup FROM oauth_consents WHERE user_id = $1',
      [user.id],
    );
    expect(Number(consent.markup)).toBe(10);
  });
});
