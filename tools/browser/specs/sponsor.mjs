// Sponsored credits (docs/earnings.md): the maker funds a pool for their app on the OAuth apps page and sets an
// allowance per new user; a user who signs in through the app reads on the consent page what the app pays of
// their calls; the maker takes back what is left. Screenshot: sponsor-desktop.png.
import { createHash, randomBytes } from 'node:crypto';
import { expectEqual, expectPath, expectText } from '../expect.mjs';
import { signInThrough } from '../flows.mjs';
import { api, loaded, newAccount, screenshot } from '../devices.mjs';

export const name = 'sponsor';

export async function run({ newPage, baseUrl }) {
  const redirectUri = 'http://127.0.0.1:9/callback';
  const maker = await newAccount(baseUrl, 'sponsor');
  const app = await api(baseUrl, '/api/v1/oauth2/clients', {
    token: maker.token,
    body: { clientName: 'Sponsored app', redirectUris: [redirectUri], requestedScopes: ['api:access'] },
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
  await form.getByRole('button', { name: 'Save sponsor pool' }).click();
  await expectText(card.getByTestId('sponsor-figures'), 'Open: new users get the allowance');
  await expectText(card.getByTestId('sponsor-figures'), '$1.00');
  const pool = await api(baseUrl, `/api/v1/oauth2/clients/${app.clientId}/sponsor`, { token: maker.token });
  expectEqual(pool.left, 1, 'what the pool has left');
  await screenshot(makerPage, 'sponsor-desktop.png', 'here');

  // A new user reads what the app pays of their calls before Allow.
  const user = await newAccount(baseUrl, 'sponsored');
  const authorize = `/oauth2/authorize?${new URLSearchParams({
    client_id: app.clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope: 'api:access',
    state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(randomBytes(32).toString('base64url')).digest('base64url'),
    code_challenge_method: 'S256',
  })}`;
  const userPage = await newPage();
  await userPage.goto(authorize);
  await expectPath(userPage, (url) => url.pathname === '/signin');
  await userPage.getByLabel('Email').fill(user.email);
  await userPage.getByLabel('Password').fill(user.password);
  await userPage.getByRole('button', { name: 'Sign in' }).click();
  await expectPath(userPage, (url) => url.pathname === '/consent');
  await expectText(userPage.getByTestId('consent-sponsored'), 'Sponsored app pays up to $0.25 of your calls');

  // The maker takes back what is left.
  await card.getByRole('button', { name: 'Take back what is left' }).click();
  await expectText(card.getByTestId('sponsor-figures'), 'Withdrawn: no more draws');
  const after = await api(baseUrl, `/api/v1/oauth2/clients/${app.clientId}/sponsor`, { token: maker.token });
  expectEqual(after.takenBack, 1, 'what went back to the maker');
}
