// The operator's console (issue 33) at desktop and phone width, as an admin: find an account by part of its
// email, open it, credit its balance with a reason (the figure changes; a debit past the balance is refused in
// words), disable it (its key is refused by the gateway at once), enable it again; the audit log names each action
// and the admin; usage across accounts shows the account's model; the Gift cards page lists issued cards and who
// redeemed them. A user without the role sees neither page.
import { expectEqual, expectPath, expectText, expectVisible } from '../expect.mjs';
import { goToSection, signInThrough } from '../flows.mjs';
import { api, DEVICES, loaded, newAccount, noHorizontalScroll, screenshot } from '../devices.mjs';

export const name = 'console';

async function gateway(baseUrl, key) {
  const response = await fetch(`${baseUrl}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ model: 'demo-chat', messages: [{ role: 'user', content: 'Hello console' }] }),
    signal: AbortSignal.timeout(10_000),
  });
  await response.arrayBuffer();
  return response.status;
}

export const tests = DEVICES.map((device) => ({
  name: `the console at ${device.label} width: find, adjust, disable and enable an account; audit, usage, gift cards`,
  async run({ newPage, baseUrl, admin }) {
    const { label, ...options } = device;
    const account = await newAccount(baseUrl, `console-${label}`);
    const key = (await api(baseUrl, '/api/v1/keys', { token: account.token, body: { name: 'Console key' } })).key;
    expectEqual(await gateway(baseUrl, key), 200, 'a call before anything');

    // Not for users.
    const userPage = await newPage(options);
    await signInThrough(userPage, account, '/billing');
    await userPage.goto('/admin');
    await expectVisible(userPage.getByRole('heading', { name: 'Page not found' }));

    const page = await newPage(options);
    await signInThrough(page, admin, '/billing');
    await goToSection(page, 'Console');
    await expectPath(page, '/admin');
    await page.getByRole('searchbox', { name: 'Find' }).fill(account.email.slice(0, -12).toUpperCase());
    await page.getByRole('button', { name: 'Search' }).click();
    const row = page.getByRole('button', { name: account.email });
    await expectVisible(row);
    await loaded(page, 'the accounts');
    await noHorizontalScroll(page, `/admin at ${device.viewport.width} px`);
    await screenshot(page, `console-${label}.png`);
    await row.click();
    const detail = page.locator('.console-detail');
    await expectText(detail, 'Balance');

    // A credit with its reason.
    const adjustForm = page.getByRole('form', { name: `Adjust the balance of ${account.email}` });
    await adjustForm.getByLabel('Amount').fill('2.5');
    await adjustForm.getByLabel('Reason').fill('browser test credit');
    await adjustForm.getByRole('button', { name: 'Adjust' }).click();
    await expectText(adjustForm, 'Credited $2.50.');
    const summary = await api(baseUrl, '/api/v1/usage/me/summary', { token: account.token });
    expectEqual(summary.maxBudget, 7.5, 'the account’s credits after the adjustment');
    // A debit past the balance: refused, in words.
    await adjustForm.getByLabel('Amount').fill('-1000');
    await adjustForm.getByLabel('Reason').fill('too much');
    await adjustForm.getByRole('button', { name: 'Adjust' }).click();
    await expectText(adjustForm, 'cannot go below zero');
    await adjustForm.getByLabel('Amount').fill('0');
    await adjustForm.getByRole('button', { name: 'Adjust' }).click();
    await expectText(adjustForm, 'An adjustment of 0 changes nothing.');

    // Disable: the gateway refuses its key at once; enable again.
    const disableForm = page.getByRole('form', { name: `Disable ${account.email}` });
    await disableForm.getByLabel('Reason').fill('browser test abuse');
    await disableForm.getByRole('button', { name: 'Disable' }).click();
    await expectVisible(page.getByRole('form', { name: `Enable ${account.email}` }));
    await expectText(page.locator('.console-users tr[aria-selected="true"]'), 'Disabled');
    expectEqual(await gateway(baseUrl, key), 403, 'a call with the disabled account’s key');
    await userPage.reload();
    await expectPath(userPage, (url) => url.pathname === '/signin');
    const enableForm = page.getByRole('form', { name: `Enable ${account.email}` });
    await enableForm.getByLabel('Reason').fill('browser test appeal');
    await enableForm.getByRole('button', { name: 'Enable' }).click();
    await expectVisible(page.getByRole('form', { name: `Disable ${account.email}` }));
    expectEqual(await gateway(baseUrl, key), 200, 'a call once enabled again');

    // The account's own audit trail, newest first, names the admin.
    await expectText(detail, 'enabled the account: browser test appeal');
    await expectText(detail, 'disabled the account: browser test abuse');
    await expectText(detail, 'credited $2.50: browser test credit');
    await expectText(detail, admin.email);
    await noHorizontalScroll(page, `/admin with an account open at ${device.viewport.width} px`);
    await detail.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await screenshot(page, `console-account-${label}.png`, 'here');

    // The whole audit log, and usage across accounts.
    await page.getByRole('tab', { name: 'Audit log' }).click();
    await expectText(page.getByRole('tabpanel'), `credited $2.50: browser test credit`);
    await page.getByRole('tab', { name: 'Usage' }).click();
    await page.getByLabel('By').selectOption({ label: 'Model' });
    await expectText(page.getByRole('tabpanel'), 'demo-chat');
    await loaded(page, 'the usage');
    await noHorizontalScroll(page, `the console's usage at ${device.viewport.width} px`);
    // The operator's fees on markups and losses, per day.
    await page.getByRole('tab', { name: 'Fees and losses' }).click();
    await expectText(page.getByTestId('money-totals'), 'Fees earned');
    await noHorizontalScroll(page, `the console's fees and losses at ${device.viewport.width} px`);

    // Gift cards: issue one, the user redeems it, the list says by whom.
    const issued = await api(baseUrl, '/api/v1/admin/giftcards', {
      token: (await api(baseUrl, '/api/v1/auth/login', { body: { email: admin.email, password: admin.password } }))
        .token,
      body: { amount: 1, count: 1 },
    });
    // Disabling signed the account out everywhere: it signs in again to redeem.
    const again = await api(baseUrl, '/api/v1/auth/login', {
      body: { email: account.email, password: account.password },
    });
    await api(baseUrl, '/api/v1/giftcard/redeem', { token: again.token, body: { code: issued.cards[0].code } });
    await goToSection(page, 'Gift cards');
    await expectPath(page, '/admin/gift-cards');
    const cards = page.locator('section').filter({ has: page.getByRole('heading', { name: 'Issued cards' }) });
    await expectText(cards, account.email);
    await cards.getByLabel('Show').selectOption({ label: 'Redeemed' });
    await expectText(cards, issued.cards[0].id.slice(0, 8));
    await noHorizontalScroll(page, `/admin/gift-cards at ${device.viewport.width} px`);
  },
}));
