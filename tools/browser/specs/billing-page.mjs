// The Billing page's history at desktop and phone width: each credit (sign-up, gift card) on its own row with its
// currency, the calls' charges as one row per UTC day, and the All / Credits / Usage filter; balances with two
// decimals. Screenshots: billing-history-desktop.png, billing-history-phone.png.
import { expectEqual, expectText, expectVisible } from '../expect.mjs';
import { signInThrough } from '../flows.mjs';
import {
  api,
  currentSectionInView,
  DEVICES,
  loaded,
  newAccount,
  noHorizontalScroll,
  screenshot,
  tablesInInnerScroll,
} from '../devices.mjs';

export const name = 'billing-page';

const CHAT = { model: 'demo-chat', messages: [{ role: 'user', content: 'Hello billing page' }] };

export const tests = DEVICES.map((device) => ({
  name: `the Billing history shows credits as rows and usage per day, with a filter (${device.label}, ${device.viewport.width} px)`,
  async run({ newPage, baseUrl, admin }) {
    const { label, ...options } = device;
    const account = await newAccount(baseUrl, `billing-${label}`);
    const { token: adminToken } = await api(baseUrl, '/api/v1/auth/login', { body: admin });
    const issued = await api(baseUrl, '/api/v1/admin/giftcards', { token: adminToken, body: { amount: 7, count: 1 } });
    await api(baseUrl, '/api/v1/giftcard/redeem', { token: account.token, body: { code: issued.cards[0].code } });
    const key = await api(baseUrl, '/api/v1/keys', { token: account.token, body: { name: 'Billing key' } });
    for (let i = 0; i < 2; i += 1) {
      const response = await fetch(`${baseUrl}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` },
        body: JSON.stringify(CHAT),
        signal: AbortSignal.timeout(10_000),
      });
      expectEqual(response.status, 200, 'a chat call');
      await response.arrayBuffer();
    }

    // Settlement follows the answer by a batch: wait until the ledger has both calls.
    const deadline = Date.now() + 10_000;
    while ((await api(baseUrl, '/api/v1/usage/me/daily-spend', { token: account.token })).items[0]?.calls !== 2) {
      if (Date.now() > deadline) throw new Error('expected both calls charged');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const page = await newPage(options);
    await signInThrough(page, account, '/billing');
    await loaded(page, 'the billing page');
    expectEqual(await currentSectionInView(page), true, 'the Billing link in view in the nav');
    const history = page.locator('section', { has: page.getByRole('heading', { name: 'History', level: 2 }) });
    const credits = history.getByRole('table', { name: 'Credits' });
    const usage = history.getByRole('table', { name: 'Usage by day' });
    await expectText(credits, 'Gift card');
    await expectText(credits, '+$7.00');
    await expectText(credits, 'Sign-up credit');
    expectEqual(await credits.locator('tbody tr').count(), 2, 'the credit rows');
    const today = new Date().toISOString().slice(0, 10);
    await expectVisible(usage.locator(`time[datetime="${today}"]`), { what: "today's usage row" });
    await expectText(usage.locator('tbody tr').first().locator('td').first(), '2');
    // Two demo calls cost a fraction of a cent: shown with its significant digits, never $0.00 (lib/money.ts).
    const dayCost = (await usage.locator('tbody tr').first().textContent()) ?? '';
    expectEqual(/\$0\.0\d*[1-9]/.test(dayCost), true, `a sub-cent day's spend in "${dayCost}"`);
    expectEqual(await usage.locator('tbody tr').count(), 1, 'one usage row for the day');

    // Money as it is: nothing spent reads as $0.00, and the balance card's Spent is the history's sum.
    const text = (await page.getByRole('main').textContent()) ?? '';
    expectEqual(/Spent\s*\$0\.00(?!\d)/.test(text), false, `"Spent $0.00" after calls in ${text}`);
    await noHorizontalScroll(page, `/billing at ${device.viewport.width} px`);
    expectEqual((await tablesInInnerScroll(page)).length, 0, 'tables scrolling sideways inside the page');
    await history.scrollIntoViewIfNeeded();
    await screenshot(page, `billing-history-${label}.png`, 'here');

    await history.getByRole('radio', { name: 'Credits' }).check();
    await expectVisible(credits);
    expectEqual(await usage.count(), 0, 'the usage table with Credits chosen');
    await history.getByRole('radio', { name: 'Usage' }).check();
    await expectVisible(usage);
    expectEqual(await credits.count(), 0, 'the credits table with Usage chosen');
    await history.getByRole('radio', { name: 'All' }).check();
    await expectVisible(credits);
    await expectVisible(usage);
  },
}));
