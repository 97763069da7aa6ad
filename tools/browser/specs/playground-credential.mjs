// One playground credential (issue 21), at desktop and phone width: right after sign-up the Models page lists
// the catalog and the Playground streams a chat, with no key to create or paste; two tabs at once make one key
// named "Dashboard"; no secret reaches web storage; a pasted string is checked for the key's form at once, and a
// real key pasted works; after signing out and in again the page works at once. Screenshots as dashboard.mjs.

import { expectEqual, expectPath, expectText, expectVisible } from '../expect.mjs';
import { DEVICES, noHorizontalScroll, screenshot } from '../devices.mjs';
import { expectStreamedInSteps, registerThroughForm, sendChat, signInThrough } from '../flows.mjs';

export const name = 'playground-credential';
const SESSION_CREDENTIAL = 'Calls from this page use your Dashboard key';

const main = (page) => page.getByRole('main');
const dashboardCards = (page) =>
  page.locator('article').filter({ has: page.getByRole('heading', { name: 'Dashboard', exact: true }) });

/** Sends a chat and fails unless its reply streamed in steps (expectStreamedInSteps). */
async function chatInSteps(page, text) {
  await sendChat(page, text);
  await expectStreamedInSteps(page, text);
}

async function noSecretStored(page) {
  const stored = await page.evaluate(() => localStorage.length + sessionStorage.length);
  expectEqual(stored, 0, 'the number of web storage entries');
}

export const tests = DEVICES.map((device) => ({
  name: `playground credential at ${device.label} width: works after sign-up, one Dashboard key, pasted keys checked`,
  async run({ newPage }) {
    const { label, ...options } = device;
    const unique = `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const user = {
      name: `Play ${unique}`,
      email: `playground-${unique}@example.com`,
      password: `correct horse ${unique}`,
    };
    const page = await newPage(options);
    await registerThroughForm(page, user);

    // The Models page lists the catalog at once.
    await page.goto('/models');
    await expectText(main(page), SESSION_CREDENTIAL);
    await expectVisible(page.locator('.model-card', { has: page.getByRole('heading', { name: 'demo-chat' }) }), {
      what: 'the demo-chat model card',
    });

    // Two tabs of the Playground at once: both stream, and one key named Dashboard is made.
    await page.goto('/playground');
    await expectText(main(page), SESSION_CREDENTIAL);
    const second = await page.context().newPage();
    await second.goto('/playground');
    await expectText(main(second), SESSION_CREDENTIAL);
    await Promise.all([chatInSteps(page, `first tab ${unique}`), chatInSteps(second, `second tab ${unique}`)]);
    await second.close();
    await noSecretStored(page);
    await noHorizontalScroll(page, `the playground at ${device.viewport.width} px`);
    await screenshot(page, `playground-session-${label}.png`, 'here');

    await page.goto('/keys');
    await expectText(dashboardCards(page), 'Used by the dashboard only');
    expectEqual(await dashboardCards(page).count(), 1, 'the number of keys named Dashboard');
    const spent =
      (await dashboardCards(page)
        .locator('dt', { hasText: 'Spent this month' })
        .locator('xpath=following-sibling::dd')
        .textContent()) ?? '';
    // A few demo calls cost a fraction of a cent: shown with its significant digits, never $0.00 (lib/money.ts).
    if (!/^\$0\.0\d*[1-9]\d*$|^\$(?!0\.00$)[\d,]+\.\d{2,6}$/.test(spent))
      throw new Error(`expected the Dashboard key to have spent a little, got ${spent}`);

    // A key of the user's own, pasted: anything not of a key's form is refused at once, in words.
    await page.getByLabel('Key name').fill('Pasted');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.getByLabel('New API key').inputValue();
    await page.getByRole('button', { name: 'Done' }).click();
    await page.goto('/playground');
    await page.getByRole('button', { name: 'Use one of your keys' }).click();
    const pasteField = page.getByLabel('Paste an API key');
    await pasteField.fill('hello there');
    await page.getByRole('button', { name: 'Use this key' }).click();
    await expectText(main(page), 'An API key has no spaces or line breaks.');
    await pasteField.fill('sy-short');
    await page.getByRole('button', { name: 'Use this key' }).click();
    await expectText(main(page), 'That does not look like an API key');
    await pasteField.fill(key);
    await page.getByRole('button', { name: 'Use this key' }).click();
    await expectText(main(page), `Calls from this page use your key ${key.slice(0, 12)}…${key.slice(-4)}`);
    await sendChat(page, `pasted ${unique}`);
    await noSecretStored(page);
    if ((await page.content()).includes(key)) throw new Error('expected the pasted key nowhere in the page');
    await page.getByRole('button', { name: 'Use the Dashboard key' }).click();
    await expectText(main(page), SESSION_CREDENTIAL);

    // Signed out and in again: the Playground works at once, and still one Dashboard key.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expectPath(page, '/signin');
    await signInThrough(page, user, '/playground');
    await expectText(main(page), SESSION_CREDENTIAL);
    await sendChat(page, `again ${unique}`);
    await page.goto('/keys');
    await expectText(dashboardCards(page), 'Active');
    expectEqual(await dashboardCards(page).count(), 1, 'the number of keys named Dashboard after signing in again');
  },
}));
