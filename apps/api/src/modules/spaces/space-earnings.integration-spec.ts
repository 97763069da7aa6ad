import { freePort, OAuthTestKit } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';
import { markedUp, markupSplit, ReservationService, UsageRecorder } from '../usage';

const CHAT = { model: 'demo-chat', messages: [{ role: 'user', content: 'Write me a haiku' }], max_tokens: 30 };
const CLIENT_HEADER = 'X-Service-OAuth-Client-Id';
const micros = (units: number) => Math.round(units * 1e6);

/**
 * The space loop's money (docs/spaces.md#who-pays-and-who-earns): a published app's visitor signs in through the
 * app's own client and pays cost × (1 + the markup its creator set on that client), and the creator earns the markup
 * less the platform's fee, exactly as for any app (docs/earnings.md).
 */
describe('a space app paid by its visitor, earning its creator', () => {
  let app: TestApp;
  let kit: OAuthTestKit;

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp({ port, publicUrl: `http://127.0.0.1:${port}`, platformFeePercent: 20 });
    kit = await OAuthTestKit.start(app);
  });
  afterAll(() => app?.close());

  async function publishedApp(creator: { session: string }) {
    const handle = `cr${Date.now().toString(36)}`;
    expect(
      (await app.http('/api/v1/spaces/handle', { method: 'PUT', token: creator.session, body: { handle } })).status,
    ).toBe(200);
    const generated = await app.http('/api/v1/spaces/generate', {
      token: creator.session,
      body: { prompt: 'a haiku generator' },
    });
    expect(generated.status).toBe(202);
    const slug = generated.body.data.slug as string;
    const deadline = Date.now() + 20_000;
    let made = (await app.http(`/api/v1/spaces/me/apps/${slug}`, { token: creator.session })).body.data;
    while (made.status === 'generating' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      made = (await app.http(`/api/v1/spaces/me/apps/${slug}`, { token: creator.session })).body.data;
    }
    expect(made.status).toBe('ready');
    const published = await app.http(`/api/v1/spaces/${slug}/publish`, {
      method: 'PUT',
      token: creator.session,
      body: { published: true },
    });
    expect(published.status).toBe(200);
    return { url: made.url as string, clientId: published.body.data.clientId as string };
  }

  it('charges the visitor cost plus the markup the creator set, states it at consent, and credits the creator', async () => {
    const creator = await kit.newUser(5_000_000);
    const visitor = await kit.newUser(5_000_000);
    const { url, clientId } = await publishedApp(creator);
    // A space app's client starts without a markup; its creator sets one like on any app of theirs.
    const set = await app.http(`/api/v1/oauth2/clients/${clientId}`, {
      method: 'PUT',
      token: creator.session,
      body: { markupPercent: 50 },
    });
    expect([set.status, set.body.data.markupPercent]).toEqual([200, 50]);
    // Someone else cannot set it.
    const foreign = await app.http(`/api/v1/oauth2/clients/${clientId}`, {
      method: 'PUT',
      token: visitor.session,
      body: { markupPercent: 0 },
    });
    expect(foreign.status).toBe(404);

    // The consent the visitor sees names the markup before they allow.
    const shown = await app.http(
      `/api/v1/oauth2/authorize/request?${new URLSearchParams({
        client_id: clientId,
        response_type: 'code',
        redirect_uri: url,
        scope: 'api:access',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      }).toString()}`,
      { token: visitor.session },
    );
    expect(shown.body.data.markupPercent).toBe(50);
    const tokens = await kit.tokensFor({ clientId }, { user: visitor, redirectUri: url, scope: 'api:access' });

    const key = (await app.http('/api/v1/keys', { token: visitor.session, body: { name: 'baseline' } })).body.data
      .key as string;
    const baseline = await app.http('/v1/chat/completions', { token: key, body: CHAT });
    expect(baseline.status).toBe(200);
    const cost = micros(Number(baseline.headers.get('x-switchyard-cost')));
    const through = await app.http('/v1/chat/completions', {
      token: tokens.access_token,
      body: CHAT,
      headers: { [CLIENT_HEADER]: clientId },
    });
    expect(through.status).toBe(200);
    const paid = markedUp(cost, 50);
    expect(paid).toBeGreaterThan(cost);
    expect(micros(through.body.usage.cost)).toBe(paid);

    await app.app.get(ReservationService).flushSettlements(true);
    await app.app.get(UsageRecorder).flush();
    const { markupMicros } = markupSplit(paid, 50);
    const earnings = (await app.http('/api/v1/earnings', { token: creator.session })).body.data;
    expect(micros(earnings.totals.pending)).toBe(Math.floor((markupMicros * 80) / 100));
    // The visitor earns nothing from their own spending.
    expect((await app.http('/api/v1/earnings', { token: visitor.session })).body.data.totals.pending).toBe(0);
  });
});
