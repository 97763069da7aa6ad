// The settings page (issue 21), at desktop and phone width: the name; the password (the current one asked, the
// new one twice; other sessions signed out, this one kept); sign out everywhere; deleting the account (password
// and a tick; afterwards no sign-in, and its key refused by the gateway). Screenshots as dashboard.mjs takes them.

import { expectEqual, expectPath, expectText } from '../expect.mjs';
import { DEVICES, noHorizontalScroll, screenshot } from '../devices.mjs';
import { goToSection, registerThroughForm, signInThrough } from '../flows.mjs';

export const name = 'settings';

const main = (page) => page.getByRole('main');
const section = (page, heading) =>
  page.locator('section').filter({ has: page.getByRole('heading', { name: heading, exact: true }) });

async function status(baseUrl, path, token) {
  const response = await fetch(`${baseUrl}${path}`, {
    headers: { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  return response.status;
}

export const tests = DEVICES.map((device) => ({
  name: `settings at ${device.label} width: name, password, sign out everywhere, delete the account`,
  async run({ newPage, baseUrl }) {
    const { label, ...options } = device;
    const unique = `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const user = {
      name: `Set ${unique}`,
      email: `settings-${unique}@example.com`,
      password: `correct horse ${unique}`,
    };
    const page = await newPage(options);
    await registerThroughForm(page, user);
    await goToSection(page, 'Settings');
    await expectPath(page, '/settings');

    // The name.
    await section(page, 'Your name').getByRole('textbox', { name: 'Name' }).fill('Ada Lovelace');
    await page.getByRole('button', { name: 'Save name' }).click();
    await expectText(main(page), 'Your name is saved.');

    // The password: the page checks what it can, the server the current password.
    const other = await fetch(`${baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: user.password }),
    }).then((res) => res.json());
    const otherSession = other.data.token;
    const password = section(page, 'Password');
    await password.getByLabel('Current password').fill('not my password');
    await password.getByLabel('New password', { exact: true }).fill('a brand new password');
    await password.getByLabel('New password again').fill('a different one');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expectText(password, 'The two new passwords are not the same.');
    await password.getByLabel('New password again').fill('a brand new password');
    await page.getByRole('button', { name: 'Change password' }).click();
    await expectText(password, 'That is not your current password');
    expectEqual(await status(baseUrl, '/api/v1/auth/me', otherSession), 200, 'the other session before');
    await password.getByLabel('Current password').fill(user.password);
    await page.getByRole('button', { name: 'Change password' }).click();
    await expectText(password, 'Your password is changed, and 1 other session was signed out.');
    expectEqual(await status(baseUrl, '/api/v1/auth/me', otherSession), 401, 'the other session after');
    user.password = 'a brand new password';

    await noHorizontalScroll(page, `the settings page at ${device.viewport.width} px`);
    await screenshot(page, `settings-${label}.png`);

    // Sign out everywhere: this tab too.
    await page.getByRole('button', { name: 'Sign out everywhere' }).click();
    await expectPath(page, '/signin');
    await signInThrough(page, user, '/settings');

    // A key, to see it refused once the account is gone.
    const key = await fetch(`${baseUrl}/api/v1/auth/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: user.email, password: user.password }),
    })
      .then((res) => res.json())
      .then(({ data }) =>
        fetch(`${baseUrl}/api/v1/keys`, {
          method: 'POST',
          headers: { authorization: `Bearer ${data.token}`, 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'doomed' }),
        }),
      )
      .then((res) => res.json())
      .then(({ data }) => data.key);
    expectEqual(await status(baseUrl, '/v1/models', key), 200, 'the key before the deletion');

    // Deleting: the tick and the password are asked for, the password checked.
    const remove = section(page, 'Delete the account');
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await expectText(remove, 'Tick the box to confirm');
    await remove.getByLabel('Your password').fill('wrong password');
    await remove.getByLabel('I understand that this cannot be undone').check();
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await expectText(remove, 'That is not your current password');
    await remove.getByLabel('Your password').fill(user.password);
    await page.getByRole('button', { name: 'Delete my account' }).click();
    await expectPath(page, '/signin');
    expectEqual(await status(baseUrl, '/v1/models', key), 403, 'the key after the deletion');
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expectText(main(page), 'Email or password is incorrect');
  },
}));
