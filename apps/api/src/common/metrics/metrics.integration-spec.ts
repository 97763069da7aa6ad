import { startTestApp, TestApp, uniqueEmail } from '../../../test/support/test-app';

describe('Prometheus metrics', () => {
  let app: TestApp;
  const token = 'metrics-token-0123456789';
  beforeAll(async () => {
    app = await startTestApp({ metricsToken: token, signupCredit: 5 });
  });
  afterAll(() => app?.close());

  it('counts gateway calls, tokens and cost by model, and the reservations open; behind its token', async () => {
    const session = (
      await app.http('/api/v1/auth/register', { body: { email: uniqueEmail('metrics'), password: 'metrics password' } })
    ).body.data.token;
    const key = (await app.http('/api/v1/keys', { token: session, body: { name: 'm' } })).body.data.key;
    const chat = await app.http('/v1/chat/completions', {
      token: key,
      body: { model: 'demo-chat', messages: [{ role: 'user', content: 'count me' }] },
    });
    expect(chat.status).toBe(200);

    expect((await app.http('/metrics')).status).toBe(401);
    expect((await app.http('/metrics', { headers: { authorization: 'Bearer wrong-token-0123456789' } })).status).toBe(
      401,
    );
    const res = await fetch(`${app.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('switchyard_gateway_calls_total{method="chat_completions",status="success"} 1');
    expect(text).toMatch(
      new RegExp(`switchyard_tokens_total\\{model="demo-chat",kind="prompt"\\} ${chat.body.usage.prompt_tokens}\\b`),
    );
    expect(text).toMatch(
      new RegExp(
        `switchyard_tokens_total\\{model="demo-chat",kind="completion"\\} ${chat.body.usage.completion_tokens}\\b`,
      ),
    );
    expect(text).toMatch(/switchyard_cost_total\{model="demo-chat"\} [0-9.e-]+/);
    expect(text).toMatch(
      /switchyard_gateway_call_duration_seconds_count\{method="chat_completions",stream="false"\} 1/,
    );
    expect(text).toMatch(/switchyard_reservations_open \d+/);
    expect(text).toContain('switchyard_process_cpu_seconds_total');
    // Nothing that names a user, a key or a request.
    expect(text).not.toContain(key);
    expect(text).not.toMatch(/user_id|api_key|request_id/);
  });
});
