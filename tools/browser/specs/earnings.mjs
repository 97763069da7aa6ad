// An app that earns (docs/earnings.md): the maker sets a markup on the OAuth apps page; a user signs in through
// the app, reads the markup on the consent page and allows it; the app calls the gateway with the user's token
// (each call costs the provider's price plus the markup); the maker's Earnings page shows what the calls earned
// and moves it into the maker's budget. The browser run has no hold (EARNINGS_HOLD_DAYS=0). Screenshot:
// earnings-desktop.png.
import { expectEqual, expectPath, expectText, expectVisible } from '../expect.mjs';
import { appCallback, reachConsent, signInThrough } from '../flows.mjs';
import { api, loaded, newAccount, screenshot } from '../devices.mjs';

export const name = 'earnings';

export async function run({ newPage, baseUrl }) {
  const cb = await appCallback();
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
  const userPage = await newPage();
  const consentPage = await reachConsent(userPage, { baseUrl, clientId: app.clientId, callback: cb, account: user });
  await expectText(userPage.getByTestId('consent-markup'), 'adds 50% to the price of each call');
  const tokens = await consentPage.allow();

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
