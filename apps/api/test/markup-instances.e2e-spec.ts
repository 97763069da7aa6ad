import { markedUp, ReconciliationService, ReservationService, UsageRecorder } from '../src/modules/usage';
import { OAuthTestKit } from './support/oauth-flow';
import { startTwoInstances, TestApp, TwoInstances } from './support/test-app';

const CHAT = { model: 'demo-chat', messages: [{ role: 'user', content: 'Two instances, one cap' }], max_tokens: 30 };
const micros = (units: number) => Math.round(units * 1e6);

/**
 * An app's markup on two instances sharing one database (docs/earnings.md): calls through a marked-up app spread
 * over both never pass the cap the user set on it, counted on what the user pays; each call earns once; reconcile
 * balances. With Redis (the instances' shared bus), a cut made through one instance prices the other's next call.
 */
describe('a markup on two instances', () => {
  let instances: TwoInstances | undefined;
  let apps: TestApp[] = [];
  let kit: OAuthTestKit;

  beforeAll(async () => {
    instances = await startTwoInstances({ signupCredit: 0 });
    apps = instances.apps;
    kit = await OAuthTestKit.start(apps[0]);
  });
  afterAll(async () => {
    await instances?.close();
  });

  const flushed = async () => {
    for (const running of apps) {
      await running.app.get(ReservationService).flushSettlements(true);
      await running.app.get(UsageRecorder).flush();
    }
  };

  it('holds an app cap across both instances on what the user pays, and every call earns once', async () => {
    const maker = await kit.newUser(0);
    const client = await kit.createClient({ clientName: 'Spread', markupPercent: 200 }, maker);
    const user = await kit.newUser(5_000_000);
    const tokens = await kit.tokensFor(client, { user, limits: { total: 0.001, monthly: null, perRequest: null } });
    const answers = await Promise.all(
      Array.from({ length: 16 }, (_, i) =>
        apps[i % 2].http('/v1/chat/completions', {
          token: tokens.access_token,
          body: CHAT,
          headers: { 'X-Service-OAuth-Client-Id': client.clientId },
        }),
      ),
    );
    expect(answers.some((answer) => answer.status === 200)).toBe(true);
    expect(answers.some((answer) => answer.status === 403)).toBe(true);
    await flushed();
    const db = apps[0].database.dataSource;
    const [row] = await db.query(
      `SELECT COALESCE(sum(r.settled_micros), 0)::bigint AS spent, count(*)::int AS calls, count(e.call_id)::int AS earned
         FROM reservations r LEFT JOIN maker_earnings e ON e.call_id = r.id
        WHERE r.user_id = $1 AND NOT r.lease AND r.status = 'settled'`,
      [user.id],
    );
    expect(Number(row.spent)).toBeLessThanOrEqual(1000);
    expect(row.earned).toBe(row.calls);
    const paid = answers
      .filter((answer) => answer.status === 200)
      .reduce((sum, answer) => sum + micros(Number(answer.headers.get('x-switchyard-cost'))), 0);
    expect(paid).toBe(Number(row.spent));
    expect((await ReconciliationService.over(db).reconcile()).drifts).toEqual([]);
  });

  (process.env.REDIS_URL ? it : it.skip)(
    'prices the next call on the other instance at a cut made through the first (Redis)',
    async () => {
      const maker = await kit.newUser(0);
      const client = await kit.createClient({ clientName: 'Cut', markupPercent: 100 }, maker);
      const user = await kit.newUser(5_000_000);
      const tokens = await kit.tokensFor(client, { user });
      const key = (await apps[0].http('/api/v1/keys', { token: user.session, body: { name: 'cost' } })).body.data.key;
      const cost = micros(
        Number(
          (await apps[0].http('/v1/chat/completions', { token: key, body: CHAT })).headers.get('x-switchyard-cost'),
        ),
      );
      const callOn = async (instance: TestApp) =>
        micros(
          Number(
            (
              await instance.http('/v1/chat/completions', {
                token: tokens.access_token,
                body: CHAT,
                headers: { 'X-Service-OAuth-Client-Id': client.clientId },
              })
            ).headers.get('x-switchyard-cost'),
          ),
        );
      expect(await callOn(apps[1])).toBe(markedUp(cost, 100));
      const cut = await apps[0].http(`/api/v1/oauth2/clients/${client.clientId}`, {
        method: 'PUT',
        token: maker.session,
        body: { markupPercent: 10 },
      });
      expect(cut.status).toBe(200);
      // The bus delivers the change to the other instance; its next call is priced at the cut.
      let seen = await callOn(apps[1]);
      for (let i = 0; i < 40 && seen !== markedUp(cost, 10); i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        seen = await callOn(apps[1]);
      }
      expect(seen).toBe(markedUp(cost, 10));
    },
  );
});
