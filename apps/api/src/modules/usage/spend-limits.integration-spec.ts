import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { PermissionDeniedError } from 'openai';
import { ReservationService } from '.';
import { freePort, OAuthTestKit } from '../../../test/support/oauth-flow';
import { startTestApp, TestApp } from '../../../test/support/test-app';
import { UsageRecorder } from './usage-recorder';

const CHAT = { model: 'demo-chat', messages: [{ role: 'user' as const, content: 'Which limit?' }] };

/**
 * A call refused by a key's spend limit or an app's cap answers 403 `spend_limit_exceeded` naming the limit, its
 * scope and figures, in OpenAI's shape on /v1 and Anthropic's on /v1/messages; the account's balance stays
 * `budget_exhausted`; the request log names the limit (docs/budgets.md, "Which limit refused a call").
 */
interface ActivityItem {
  errorCode: string | null;
  refusedLimit: unknown;
  httpStatus: number;
}

describe('spend_limit_exceeded', () => {
  let app: TestApp;
  let kit: OAuthTestKit;

  beforeAll(async () => {
    const port = await freePort();
    app = await startTestApp({ port, publicUrl: `http://127.0.0.1:${port}`, signupCredit: 0 });
    kit = await OAuthTestKit.start(app);
  });
  afterAll(() => app?.close());

  const newKey = async (session: string, limits: Record<string, number | null>) => {
    const created = (await app.http('/api/v1/keys', { token: session, body: { name: 'limited' } })).body.data;
    const set = await app.http(`/api/v1/keys/${created.id}/limits`, { method: 'PUT', token: session, body: limits });
    expect(set.status).toBe(200);
    return { id: created.id as string, key: created.key as string };
  };
  const openai = (key: string, headers: Record<string, string> = {}) =>
    new OpenAI({ apiKey: key, baseURL: `${app.url}/v1`, maxRetries: 0, defaultHeaders: headers });
  const activity = async (session: string) =>
    (await app.http('/api/v1/usage/me/activity?limit=100', { token: session })).body.data.items as ActivityItem[];
  /** The request log once it holds `count` lines and `until` holds (its lines are written after the answers). */
  const logged = async (session: string, count: number, until: (items: ActivityItem[]) => boolean = () => true) => {
    for (let i = 0; i < 100; i += 1) {
      await app.app.get(UsageRecorder).flush();
      const items = await activity(session);
      if (items.length >= count && until(items)) return items;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return activity(session);
  };

  it('names a key’s per-request limit with its figures in OpenAI’s shape, with the balance left untouched', async () => {
    const user = await kit.newUser(21_130_000);
    const { id, key } = await newKey(user.session, { perRequest: 0.000001 });
    const error = await openai(key)
      .chat.completions.create(CHAT)
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(PermissionDeniedError);
    const body = (error as PermissionDeniedError).error as Record<string, unknown>;
    expect(body).toMatchObject({
      code: 'spend_limit_exceeded',
      type: 'permission_error',
      limit: 'per_request',
      scope: 'key',
      keyId: id,
      limitAmount: 0.000001,
      spent: null,
      resetsAt: null,
      remainingBudget: 21.13,
    });
    expect(body.needed as number).toBeGreaterThan(0.000001);
    expect(String(body.message)).toMatch(/per-request spend limit \(\$0\.000001\) is below what this call needs/);
    // Nothing was held or charged.
    const summary = (await app.http('/api/v1/usage/me/summary', { token: user.session })).body.data;
    expect([summary.totalCost, summary.remainingBudget]).toEqual([0, 21.13]);
  });

  it('names a window’s limit with what it spent and when it resets; the balance is budget_exhausted, apart', async () => {
    const user = await kit.newUser(1_000_000);
    const { id, key } = await newKey(user.session, { daily: 0.0002 });
    let refusal: Record<string, unknown> | null = null;
    for (let i = 0; i < 40 && !refusal; i += 1) {
      const res = await app.http('/v1/chat/completions', { token: key, body: { ...CHAT, max_tokens: 20 } });
      if (res.status === 403) refusal = res.body.error;
      else expect(res.status).toBe(200);
      await app.app.get(ReservationService).flushSettlements();
    }
    expect(refusal).toMatchObject({ code: 'spend_limit_exceeded', limit: 'daily', scope: 'key', limitAmount: 0.0002 });
    expect(refusal!.spent as number).toBeLessThanOrEqual(0.0002);
    expect((refusal!.limitAmount as number) - (refusal!.spent as number)).toBeLessThan(refusal!.needed as number);
    const tomorrow = new Date();
    tomorrow.setUTCHours(24, 0, 0, 0);
    expect(refusal!.resetsAt).toBe(tomorrow.toISOString());
    expect(String(refusal!.message)).toMatch(/daily spend limit is reached: \$0\.000\d+ of \$0\.0002 spent today/);

    // A user whose key has no limit but whose balance is empty: budget_exhausted, limit 'account'.
    const broke = await kit.newUser(0);
    const { key: brokeKey } = await newKey(broke.session, {});
    const exhausted = await app.http('/v1/chat/completions', { token: brokeKey, body: CHAT });
    expect([exhausted.status, exhausted.body.error.code, exhausted.body.error.limit]).toEqual([
      403,
      'budget_exhausted',
      'account',
    ]);

    // The request log names the limit of each refusal.
    // Several calls succeeded before the refusal: wait for the refusal's own line, not just any two.
    const items = await logged(user.session, 2, (lines) =>
      lines.some((item) => item.errorCode === 'spend_limit_exceeded'),
    );
    const refused = items.find((item) => item.errorCode === 'spend_limit_exceeded');
    expect(refused).toMatchObject({ httpStatus: 403, refusedLimit: { scope: 'key', limit: 'daily' } });
    expect(items.filter((item) => item.errorCode === null).every((item) => item.refusedLimit === null)).toBe(true);
    const brokeItems = await logged(broke.session, 1);
    expect(brokeItems[0]).toMatchObject({
      errorCode: 'budget_exhausted',
      refusedLimit: { scope: 'account', limit: null },
    });
    expect(id).toBeTruthy();
  });

  it('answers in Anthropic’s shape on /v1/messages, with the code and the figures inside its error', async () => {
    const user = await kit.newUser(5_000_000);
    const { key } = await newKey(user.session, { total: 0.000001 });
    const anthropic = new Anthropic({ apiKey: key, baseURL: app.url, maxRetries: 0 });
    const error = await anthropic.messages
      .create({ model: 'demo-chat', max_tokens: 50, messages: [{ role: 'user', content: 'Hi' }] })
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(Anthropic.PermissionDeniedError);
    const body = (error as InstanceType<typeof Anthropic.PermissionDeniedError>).error as Record<string, any>;
    expect(body.type).toBe('error');
    expect(body.error).toMatchObject({
      type: 'permission_error',
      code: 'spend_limit_exceeded',
      limit: 'total',
      scope: 'key',
      limitAmount: 0.000001,
      spent: 0,
      resetsAt: null,
    });
    const items = await logged(user.session, 1);
    expect(items[0]).toMatchObject({
      errorCode: 'spend_limit_exceeded',
      refusedLimit: { scope: 'key', limit: 'total' },
    });
  });

  it('names an app’s cap with scope app, for the user who set it, and never another user’s', async () => {
    const user = await kit.newUser(5_000_000);
    const client = await kit.createClient({ clientName: 'Capped for limits' });
    const tokens = await kit.tokensFor(client, { user, limits: { perRequest: 0.000001, monthly: null } });
    const error = await openai(tokens.access_token, { 'X-Service-OAuth-Client-Id': client.clientId })
      .chat.completions.create(CHAT)
      .then(
        () => null,
        (caught: unknown) => caught,
      );
    expect((error as PermissionDeniedError).error).toMatchObject({
      code: 'spend_limit_exceeded',
      limit: 'per_request',
      scope: 'app',
      clientId: client.clientId,
      limitAmount: 0.000001,
    });
    // Another user of the same app, without caps, is served.
    const other = await kit.newUser(5_000_000);
    const theirs = await kit.tokensFor(client, { user: other, limits: { perRequest: null, monthly: null } });
    const served = await openai(theirs.access_token, {
      'X-Service-OAuth-Client-Id': client.clientId,
    }).chat.completions.create(CHAT);
    expect(served.choices[0].message.content).toBeTruthy();
    const items = await logged(user.session, 1);
    expect(items[0]).toMatchObject({ refusedLimit: { scope: 'app', limit: 'per_request' } });
  });
});
