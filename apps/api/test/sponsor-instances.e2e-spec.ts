import { ReconciliationService, ReservationService, UsageRecorder } from '../src/modules/usage';
import { OAuthTestKit } from './support/oauth-flow';
import { startTwoInstances, TestApp, TwoInstances } from './support/test-app';

const CHAT = { model: 'demo-chat', messages: [{ role: 'user', content: 'Two instances, one pool' }], max_tokens: 30 };
const micros = (units: number) => Math.round(units * 1e6);

/**
 * A sponsor pool on two instances sharing one database (docs/earnings.md, "Sponsored credits"): users calling
 * through both at once never take the pool below zero, what they drew is what left it, and reconcile balances.
 */
describe('a sponsor pool on two instances', () => {
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

  it('never takes the pool below zero across instances, and the users paid the rest of their calls', async () => {
    const maker = await kit.newUser(1_000_000);
    const client = await kit.createClient({ clientName: 'Shared pool', markupPercent: 25 }, maker);
    const funded = await apps[0].http(`/api/v1/oauth2/clients/${client.clientId}/sponsor`, {
      method: 'PUT',
      token: maker.session,
      body: { amount: 0.001, allowancePerUser: 0.0003 },
    });
    expect(funded.status).toBe(200);
    const users = await Promise.all(Array.from({ length: 12 }, () => kit.newUser(1_000_000)));
    const tokens = [];
    for (const user of users) tokens.push((await kit.tokensFor(client, { user })).access_token);
    const answers = await Promise.all(
      [...tokens, ...tokens].map((token, i) =>
        apps[i % 2].http('/v1/chat/completions', {
          token,
          body: CHAT,
          headers: { 'X-Service-OAuth-Client-Id': client.clientId },
        }),
      ),
    );
    expect(answers.every((answer) => answer.status === 200)).toBe(true);
    for (const running of apps) {
      await running.app.get(ReservationService).flushSettlements(true);
      await running.app.get(UsageRecorder).flush();
    }
    const db = apps[0].database.dataSource;
    const [pool] = await db.query(
      `SELECT left_micros, drawn_micros, funded_micros FROM sponsor_pools WHERE oauth_client_id = $1`,
      [client.clientId],
    );
    expect(Number(pool.left_micros)).toBeGreaterThanOrEqual(0);
    expect(Number(pool.drawn_micros)).toBeGreaterThan(0);
    expect(Number(pool.drawn_micros) + Number(pool.left_micros)).toBe(1000);
    const [spent] = await db.query(
      `SELECT sum(1000000 - (credits_micros - debits_micros))::bigint AS paid FROM balances WHERE user_id = ANY($1::uuid[])`,
      [users.map((user) => user.id)],
    );
    const charged = answers.reduce((sum, answer) => sum + micros(Number(answer.headers.get('x-switchyard-cost'))), 0);
    expect(Number(spent.paid)).toBe(charged - Number(pool.drawn_micros));
    expect((await ReconciliationService.over(db).reconcile()).drifts).toEqual([]);
  });
});
