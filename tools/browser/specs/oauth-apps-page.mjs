// The OAuth apps page at desktop and phone width: the client id with Copy, editing an app, its authorize URL and
// PKCE snippet, replacing its secret (shown once; the old one refused by the token endpoint at once), and
// deactivating then reactivating it. Screenshots: oauth-apps-manage-desktop.png, oauth-apps-manage-phone.png.
import { expectEqual, expectText, expectVisible } from '../expect.mjs';
import { signInThrough } from '../flows.mjs';
import { api, DEVICES, loaded, newAccount, noHorizontalScroll, screenshot } from '../devices.mjs';

export const name = 'oauth-apps-page';

/** The token endpoint's verdict on a secret, with a made-up refresh token: invalid_client when it is wrong. */
async function secretVerdict(baseUrl, clientId, secret) {
  const response = await fetch(`${baseUrl}/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'refresh_token',
      refresh_token: 'not-a-token',
      client_id: clientId,
      client_secret: secret,
    }),
    signal: AbortSignal.timeout(10_000),
  });
  return (await response.json()).error;
}

export const tests = DEVICES.map((device) => ({
  name: `an owner copies, edits, re-keys, deactivates and reactivates an OAuth app (${device.label}, ${device.viewport.width} px)`,
  async run({ newPage, baseUrl }) {
    const { label, ...options } = device;
    const account = await newAccount(baseUrl, `apps-${label}`);
    const created = await api(baseUrl, '/api/v1/oauth2/clients', {
      token: account.token,
      body: {
        clientName: `Manage ${label}`,
        redirectUris: ['http://127.0.0.1:9/callback'],
        requestedScopes: ['api:access'],
        generateSecret: true,
      },
    });
    expectEqual(
      await secretVerdict(baseUrl, created.clientId, created.clientSecret),
      'invalid_grant',
      'the first secret',
    );

    const page = await newPage(options);
    await signInThrough(page, account, '/apps');
    await loaded(page, 'the apps');
    const card = page.locator('article', { has: page.getByRole('heading', { name: `Manage ${label}` }) });
    await expectVisible(card);
    expectEqual(await card.getByLabel('Client ID').inputValue(), created.clientId, 'the client id shown');
    await card.getByRole('button', { name: 'Copy Client ID' }).click();
    await expectVisible(card.getByText(/Copied to the clipboard|Selected: press/));

    // Edit the name and the access token lifetime.
    await card.getByRole('button', { name: /^Edit/ }).click();
    await card.getByLabel('App name').fill(`Renamed ${label}`);
    await card.getByLabel('Access token lifetime (seconds)').fill('600');
    await card.getByRole('button', { name: 'Save changes' }).click();
    const renamed = page.locator('article', { has: page.getByRole('heading', { name: `Renamed ${label}` }) });
    await expectVisible(renamed);
    const apps = await api(baseUrl, '/api/v1/oauth2/clients', { token: account.token });
    expectEqual(apps[0].accessTokenTtlSeconds, 600, 'the saved access token lifetime');

    // The sign-in code: the authorize URL and the PKCE snippet.
    await renamed.getByRole('button', { name: /^Sign-in code/ }).click();
    const url = new URL(await renamed.getByLabel('Authorize URL').inputValue());
    expectEqual(url.searchParams.get('client_id'), created.clientId, 'the authorize URL client_id');
    expectEqual(url.searchParams.get('code_challenge_method'), 'S256', 'the challenge method');
    await expectText(renamed.locator('pre'), "crypto.subtle.digest('SHA-256'");
    await noHorizontalScroll(page, `/apps with the sign-in code at ${device.viewport.width} px`);
    await renamed.scrollIntoViewIfNeeded();
    await screenshot(page, `oauth-apps-manage-${label}.png`, 'here');
    await renamed.getByRole('button', { name: /^Hide sign-in code/ }).click();

    // Replace the secret: the new one is shown once; the old one is refused at once.
    await renamed.getByRole('button', { name: /^Replace secret/ }).click();
    await renamed.getByRole('group').getByRole('button', { name: 'Replace secret' }).click();
    const secretField = renamed.getByLabel('New client secret');
    await expectVisible(secretField);
    const newSecret = await secretField.inputValue();
    expectEqual(
      await secretVerdict(baseUrl, created.clientId, created.clientSecret),
      'invalid_client',
      'the old secret',
    );
    expectEqual(await secretVerdict(baseUrl, created.clientId, newSecret), 'invalid_grant', 'the new secret');

    // Deactivate, then reactivate.
    await renamed.getByRole('button', { name: /^Deactivate/ }).click();
    await renamed.getByRole('group').getByRole('button', { name: 'Deactivate' }).click();
    await expectText(renamed, 'Deactivated');
    await renamed.getByRole('button', { name: /^Reactivate/ }).click();
    await expectVisible(renamed.getByRole('button', { name: /^Deactivate/ }));
    await expectText(renamed.locator('.badge'), 'Active');
    await noHorizontalScroll(page, `/apps at ${device.viewport.width} px`);
  },
}));
