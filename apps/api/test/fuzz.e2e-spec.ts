import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { fuzzRequest, FuzzRequest, routesOf } from './support/fuzz-plan';
import { freePort, OAuthTestKit } from './support/oauth-flow';
import { startTestApp, TestApp } from './support/test-app';

/**
 * 10,000 malformed requests across every route — the OpenAPI document's (apps/api/openapi.json, which lists the
 * gateway's /v1 routes too), the gateway's aliases, hosted spaces, profiles and dashboard pages — with and without
 * valid credentials, 20 at a time, from a fixed seed (FUZZ_SEED to try another): methods, paths (NUL, %00, %ff,
 * overlong segments, dot segments), headers, content types and bodies (truncated or deeply nested JSON, huge
 * numbers, wrong types, NUL, lone surrogates, invalid UTF-8, big bodies). No answer may be a 5xx.
 */
const SEED = Number(process.env.FUZZ_SEED ?? 20261117);
const TOTAL = 10_000;
const CONCURRENCY = 20;

interface Outcome {
  status: number | 'no answer';
  label: string;
}

describe('fuzzing every route', () => {
  let app: TestApp;

  beforeAll(async () => {
    const port = await freePort();
    // With a webhook secret, the Stripe webhook checks signatures (without one it answers 503: not configured).
    app = await startTestApp({ port, publicUrl: `http://127.0.0.1:${port}`, stripeWebhookSecret: 'whsec_fuzz' });
  });
  afterAll(async () => {
    await app?.close();
  });

  it(`answers ${TOTAL} malformed requests without a single 5xx`, async () => {
    const kit = await OAuthTestKit.start(app);
    const client = await kit.createClient();
    const tokens = await kit.tokensFor(client);
    const key = (await app.http('/api/v1/keys', { token: kit.alice.session, body: { name: 'fuzz' } })).body.data
      .key as string;
    const routes = routesOf(JSON.parse(readFileSync(join(__dirname, '..', 'openapi.json'), 'utf8')));
    expect(routes.length).toBeGreaterThan(100);
    const credentials = {
      session: kit.alice.session,
      sessionCookie: kit.alice.cookie,
      apiKey: key,
      oauthToken: tokens.access_token,
      oauthClientId: client.clientId,
    };

    const url = new URL(app.url);
    const send = (item: FuzzRequest): Promise<Outcome> =>
      new Promise((resolve) => {
        const label = `#${item.index} ${item.method} ${item.path.slice(0, 120)} [${item.label}]`;
        // A connection of its own (agent: false): a request that makes the server close its connection cannot
        // spoil the next one's, and node's agent does not hand the next request a connection about to close.
        const req = request(
          {
            host: url.hostname,
            port: url.port,
            method: item.method,
            path: item.path,
            headers: item.headers,
            agent: false,
            timeout: 30_000,
          },
          (res) => {
            res.resume();
            res.on('end', () => resolve({ status: res.statusCode!, label }));
            res.on('error', () => resolve({ status: res.statusCode!, label }));
          },
        );
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.on('error', (error: Error & { code?: string }) =>
          resolve({ status: 'no answer', label: `${label} (${error.code}: ${error.message})` }),
        );
        req.end(item.body);
      });

    const started = Date.now();
    const outcomes: Outcome[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        // Each request is built when it is sent (from its own seed), so big bodies are not all held at once.
        while (next < TOTAL) outcomes.push(await send(fuzzRequest(next++, SEED, routes, credentials)));
      }),
    );
    const elapsed = (Date.now() - started) / 1000;

    const byStatus = new Map<string, number>();
    for (const { status } of outcomes) byStatus.set(String(status), (byStatus.get(String(status)) ?? 0) + 1);
    const summary = [...byStatus]
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([status, count]) => `${status}: ${count}`)
      .join(', ');
    const failures = outcomes.filter(({ status }) => status === 'no answer' || status >= 500);
    console.log(
      `fuzz seed ${SEED}: ${outcomes.length} requests in ${elapsed.toFixed(1)} s; ${summary}${
        failures.length
          ? `\n${failures
              .slice(0, 30)
              .map((f) => `${f.status} ${f.label}`)
              .join('\n')}`
          : ''
      }`,
    );
    expect(outcomes.length).toBe(TOTAL);
    expect(failures.map((f) => `${f.status} ${f.label}`)).toEqual([]);
    // Ten thousand requests take ~20 s on a quiet machine; a loaded CI machine gets room (the time is not the point).
  }, 300_000);
});
