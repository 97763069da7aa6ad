// An app that earns (docs/earnings.md): the maker sets a markup on the OAuth apps page; a user signs in through
// the app, reads the markup on the consent page and allows it; the app calls the gateway with the user's token
// (each call costs the provider's price plus the markup); the maker's Earnings page shows what the calls earned
// and moves it into the maker's budget. The browser run has no hold (EARNINGS_HOLD_DAYS=0). Screenshot:
// earnings-desktop.png.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { expectEqual, expectPath, expectText, expectVisible } from '../expect.mjs';
import { signInThrough } from '../flows.mjs';
import { api, loaded, newAccount, screenshot } from '../devices.mjs';

export const name = 'earnings';

/** The app's callback: answers "done" and hands over the query it got. */
async function callbackServer() {
  let resolveQuery;
  const query = new Promise((resolve) => (resolveQuery = resolve));
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname === '/callback') resolveQuery(Object.fromEntries(url.searchParams));
    res.writeHead(200, { 'content-type': 'text/plain' }).end('done');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return { redirectUri: `http://127.0.0.1:${server.address().port}/callback`, query, close: () => server.close() };
}

export async function run({ newPage, baseUrl }) {
  const cb = await callbackServer();
  const maker = await newAccount(baseUrl, 'maker');
  const app = await api(baseUrl, '/api/v1/oauth2/clients', {
    token: maker.token,
    body: { clientName: 'Earning app', redirectUris: [cb.redirectUri], requestedScopes: ['api:access'] },
  });

  // The maker sets a 50 % markup on the app's card.
  const makerPage = await newPage();
  await signInThrough(makerPage, maker, '/apps');
  await loaded(makerPage, 'the apps');
  const card = makerPage.locator('article', { has: makerPage.getByRole('heading', { name: 'Earning app' }) });
  await card.getByLabel('Markup (%)').fill('50');
  await card.getByRole('button', { name: 'Save markup' }).click();
  await expectText(card, '50%');
  expectEqual(
    (await api(baseUrl, `/api/v1/oauth2/clients/${app.clientId}`, { token: maker.token })).markupPercent,
    50,
    'the saved markup',
  );

  // A user authorizes the app: the consent page states the markup before Allow.
  const user = await newAccount(baseUrl, 'payer');
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(8).toString('hex');
  const authorize = `/oauth2/authorize?${new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: cb.redirectUri,
    response_type: 'code',
    scope: 'api:access',
    state,
    code_challenge: createHash('sha256').update(verifier).digest('base64url'),
    code_challenge_method: 'S256',
  })}`;
  const userPage = await newPage();
  await userPage.goto(authorize);
  await expectPath(userPage, (url) => url.pathname === '/signin');
  await userPage.getByLabel('Email').fill(user.email);
  await userPage.getByLabel('Password').fill(user.password);
  await userPage.getByRole('button', { name: 'Sign in' }).click();
  await expectPath(userPage, (url) => url.pathname === '/consent');
  await expectText(userPage.getByTestId('consent-markup'), 'adds 50% to the price of each call');
  await userPage.getByRole('button', { name: 'Allow', exact: true }).click();
  const answer = await cb.query;
  expectEqual(answer.state, state, 'the state at the callback');
  const tokens = await (
    await fetch(`${baseUrl}/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: answer.code,
        code_verifier: verifier,
        redirect_uri: cb.redirectUri,
        client_id: app.clientId,
      }),
      signal: AbortSignal.timeout(10_000),
    })
  ).json();
  cb.close();

  // The app calls the gateway for the user: each answer states the markup in its cost.
  const calls = async (count, tag) => {
    for (let i = 0; i < count; i += 1) {
      const response = await fetch(`${baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${tokens.access_token}`,
          'x-service-oauth-client-id': app.clientId,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          model: 'demo-chat',
          messages: [{ role: 'user', content: `Earn ${tag} ${i}` }],
          max_tokens: 20,
        }),
        signal: AbortSignal.timeout(15_000),
      });
      const body = await response.json();
      expectEqual(response.status, 200, 'a call through the app');
      if (!(body.usage.cost_details.markup > 0)) throw new Error(`expected a markup in ${JSON.stringify(body.usage)}`);
    }
  };
  await calls(3, 'first');

  // The maker's Earnings page: available at once (no hold here), moved into the budget with one click.
  const before = await api(baseUrl, '/api/v1/usage/me/summary', { token: maker.token });
  await makerPage.goto('/earnings');
  await loaded(makerPage, 'your earnings');
  await expectVisible(makerPage.getByRole('heading', { name: 'Earnings', level: 1 }));
  await expectText(makerPage.getByRole('table').first(), 'Earning app');
  await expectText(makerPage.getByTestId('earnings-available'), '$');
  await screenshot(makerPage, 'earnings-desktop.png');
  await makerPage.getByRole('button', { name: 'Move available to my budget' }).click();
  await expectVisible(makerPage.getByText(/moved into your budget/));
  await expectText(makerPage.getByTestId('earnings-available'), '$0.00');
  const after = await api(baseUrl, '/api/v1/usage/me/summary', { token: maker.token });
  if (!(after.remainingBudget > before.remainingBudget))
    throw new Error(`expected the maker's budget to grow: ${before.remainingBudget} → ${after.remainingBudget}`);

  // Payouts: the sandbox stands in for Stripe here; what a few calls earn is under a cent, so it goes to the budget.
  await calls(2, 'second');
  await makerPage.reload();
  await loaded(makerPage, 'your earnings');
  await makerPage.getByRole('button', { name: 'Set up payouts' }).click();
  await expectPath(makerPage, (url) => url.pathname === '/earnings' && url.searchParams.get('connected') === 'sandbox');
  await loaded(makerPage, 'your earnings');
  await expectText(makerPage.getByRole('region', { name: 'Payouts' }), 'linked sandbox account');
  await makerPage.getByRole('button', { name: 'Pay out available' }).click();
  await expectVisible(makerPage.getByText(/under a cent\) moved into your budget/));
}
