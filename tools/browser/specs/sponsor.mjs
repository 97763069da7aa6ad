// Sponsored credits (docs/earnings.md): the maker funds a pool for their app on the OAuth apps page and sets an
// allowance per new user and an end; a user who signs in through the app reads on the consent page what the app
// pays of their calls and allows it; the app calls the gateway for them; their Authorized apps page says what is
// left of the allowance, and their Requests page's money trace says the app paid for the call; the maker takes
// back what is left, and the line goes. Screenshots: sponsor-desktop.png, sponsor-authorized-apps-desktop.png.
import { expectEqual, expectText, expectVisible } from '../expect.mjs';
import { appCallback, reachConsent, signInThrough } from '../flows.mjs';
import { api, loaded, newAccount, screenshot } from '../devices.mjs';

export const name = 'sponsor';

/** The dashboard's money format (apps/dashboard/src/lib/money.ts). */
const money = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 6,
});
const micros = (units) => Math.round(units * 1e6);

export async function run({ newPage, baseUrl }) {
  const cb = await appCallback();
  const maker = await newAccount(baseUrl, 'sponsor');
  const app = await api(baseUrl, '/api/v1/oauth2/clients', {
    token: maker.token,
    body: { clientName: 'Sponsored app', redirectUris: [cb.redirectUri], requestedScopes: ['api:access'] },
  });

  // The maker funds the pool on the app's card.
  const makerPage = await newPage();
  await signInThrough(makerPage, maker, '/apps');
  await loaded(makerPage, 'the apps');
  const card = makerPage.locator('article', { has: makerPage.getByRole('heading', { name: 'Sponsored app' }) });
  await card.getByRole('button', { name: 'Sponsored credits' }).click();
  const form = card.getByRole('form', { name: 'Fund the pool of Sponsored app' });
  await form.getByLabel('Add to the pool ($)').fill('1');
  await form.getByLabel('Allowance per new user ($)').fill('0.25');
  await form.getByLabel('Ends on (optional)').fill('2099-06-15');
  await form.getByRole('button', { name: 'Save sponsor pool' }).click();
  await expectText(card.getByTestId('sponsor-figures'), 'Open: new users get the allowance');
  await expectText(card.getByTestId('sponsor-figures'), '$1.00');
  const pool = await api(baseUrl, `/api/v1/oauth2/clients/${app.clientId}/sponsor`, { token: maker.token });
  expectEqual(pool.left, 1, 'what the pool has left');
  await screenshot(makerPage, 'sponsor-desktop.png', 'here');

  // A new user reads what the app pays of their calls before Allow.
  const user = await newAccount(baseUrl, 'sponsored');
  const userPage = await newPage();
  const consentPage = await reachConsent(userPage, { baseUrl, clientId: app.clientId, callback: cb, account: user });
  await expectText(userPage.getByTestId('consent-sponsored'), 'Sponsored app pays up to $0.25 of your calls');

  // They allow it; the app calls the gateway for them once.
  const tokens = await consentPage.allow();
  const call = await fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${tokens.access_token}`,
      'x-service-oauth-client-id': app.clientId,
      'content-type': 'application/json',
    },
    body: JSON.stringify({ model: 'demo-chat', messages: [{ role: 'user', content: 'Who pays?' }], max_tokens: 20 }),
    signal: AbortSignal.timeout(15_000),
  });
  expectEqual(call.status, 200, 'a call through the sponsored app');
  await call.json();

  // Once the call is settled, what the app paid of it is known.
  let paid = null;
  for (let tries = 0; tries < 100 && paid === null; tries += 1) {
    const activity = await api(baseUrl, '/api/v1/usage/me/activity?limit=5', { token: user.token });
    const item = activity.items?.[0];
    if (item && item.money.outcome === 'settled') paid = item.money.sponsored;
    else await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (!(paid > 0)) throw new Error(`expected the app to have paid for the call, got ${paid}`);
  const [consent] = await api(baseUrl, '/api/v1/oauth2/consents', { token: user.token });
  expectEqual(micros(consent.sponsor.left), micros(0.25) - micros(paid), 'what is left of the allowance');

  // Their Authorized apps page says what is left of it, and until when.
  await userPage.goto('/authorized-apps');
  await loaded(userPage, 'the authorized apps');
  const line = userPage.getByTestId('consent-sponsor');
  await expectText(
    line,
    `Sponsored app pays for your calls: ${money.format(consent.sponsor.left)} of $0.25 left until`,
  );
  await expectText(line, '2099');
  await line.scrollIntoViewIfNeeded();
  await screenshot(userPage, 'sponsor-authorized-apps-desktop.png', 'here');

  // Their Requests page: the call's money trace names the app that paid.
  await userPage.goto('/requests');
  await loaded(userPage, 'the requests');
  await userPage
    .getByRole('table')
    .locator('tbody tr')
    .first()
    .getByRole('button', { name: /details/ })
    .click();
  const detail = userPage.locator('.request-detail');
  await expectVisible(detail.getByRole('heading', { name: 'Call to demo-chat' }));
  await expectText(detail.getByTestId('sponsored-line'), 'Paid by Sponsored app');
  await expectText(
    detail.getByTestId('sponsored-line'),
    `${money.format(paid)} of it, from the app’s sponsored credits`,
  );

  // The maker takes back what is left.
  await card.getByRole('button', { name: 'Take back what is left' }).click();
  await expectText(card.getByTestId('sponsor-figures'), 'Withdrawn: no more draws');
  const after = await api(baseUrl, `/api/v1/oauth2/clients/${app.clientId}/sponsor`, { token: maker.token });
  expectEqual(micros(after.takenBack), micros(1) - micros(paid), 'what went back to the maker');

  // Withdrawn, the pool pays no more: the user's line is gone.
  await userPage.goto('/authorized-apps');
  await loaded(userPage, 'the authorized apps');
  await expectVisible(userPage.getByRole('heading', { name: 'Sponsored app' }));
  expectEqual(await userPage.getByTestId('consent-sponsor').count(), 0, 'sponsor lines after the withdrawal');
}
