// Money in through the dashboard (/billing): a new account tops up by card in the sandbox checkout and sees its
// balance rise, once; redeems a gift card issued through the admin API, once; and only an admin sees the page
// that issues gift cards.
import { expectEqual, expectPath, expectText, expectVisible } from '../expect.mjs';
import { registerThroughForm, signInThrough } from '../flows.mjs';

export const name = 'billing';

const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const user = { name: `Payer ${unique}`, email: `billing-${unique}@example.com`, password: `correct horse ${unique}` };
const CODE = /^SYGC(-[0-9A-HJKMNP-TV-Z]{4}){4}$/;

/** The figure under "Available balance". */
const balance = (page) => page.locator('dt', { hasText: 'Available balance' }).locator('xpath=following-sibling::dd');

async function api(baseUrl, path, { token, body } = {}) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: body ? 'POST' : 'GET',
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json.data;
}

export const tests = [
  {
    name: 'a new account tops up by card in the sandbox checkout and sees its balance rise, once',
    async run({ newPage }) {
      const page = await newPage();
      await registerThroughForm(page, user);

      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Billing' }).click();
      await expectPath(page, '/billing');
      await expectVisible(page.getByRole('heading', { name: 'Billing', level: 1 }));
      // The demo catalog's sign-up credit.
      await expectText(balance(page), '$5.00');
      await expectText(page.getByRole('table'), 'Sign-up credit');

      await page.getByLabel('Amount (USD)').fill('12.50');
      await page.getByRole('button', { name: 'Add funds' }).click();
      await expectPath(page, (url) => /^\/api\/v1\/payment\/sandbox\/cs_sandbox_[0-9a-f]{32}$/.test(url.pathname));
      await expectText(page.locator('body'), 'Sandbox — no real card is charged');
      await page.getByRole('button', { name: 'Pay $12.50' }).click();

      await expectPath(
        page,
        (url) => url.pathname === '/billing' && /^cs_sandbox_/.test(url.searchParams.get('session_id') ?? ''),
      );
      await expectText(page.getByRole('main'), 'Payment received: $12.50 was added. Your balance is now $17.50.');
      await expectText(balance(page), '$17.50');
      await expectText(page.getByRole('table'), '+$12.50');

      // Coming back to the same return address (a reload) confirms again and credits nothing more.
      await page.reload();
      await expectText(page.getByRole('main'), 'Your balance is now $17.50.');
      await expectText(balance(page), '$17.50');
      const payments = await page.getByRole('rowheader', { name: 'Card payment' }).count();
      expectEqual(payments, 1, 'the number of card payments in the history');

      await page.getByRole('button', { name: 'Dismiss' }).click();
      await expectPath(page, '/billing');
    },
  },
  {
    name: 'redeems a gift card issued through the admin API, once, and explains refused codes',
    async run({ newPage, baseUrl, admin }) {
      const { token } = await api(baseUrl, '/api/v1/auth/login', { body: admin });
      const issued = await api(baseUrl, '/api/v1/admin/giftcards', { token, body: { amount: 5, count: 1 } });
      const code = issued.cards[0].code;
      if (!CODE.test(code)) throw new Error(`expected a gift card code, got ${JSON.stringify(code)}`);

      const page = await newPage();
      await signInThrough(page, user, '/billing');
      await expectText(balance(page), '$17.50');
      const field = page.getByLabel('Gift card code');
      // Typed the way people do: lower case, spaces instead of dashes.
      await field.fill(code.toLowerCase().replace(/-/g, ' '));
      await page.getByRole('button', { name: 'Redeem' }).click();
      await expectText(page.getByRole('main'), 'Gift card redeemed: $5.00 added. Your balance is now $22.50.');
      await expectText(balance(page), '$22.50');
      await expectText(page.getByRole('table'), 'Gift card');

      await field.fill(code);
      await page.getByRole('button', { name: 'Redeem' }).click();
      await expectText(page.getByRole('alert'), 'This gift card has already been redeemed');
      await field.fill('SYGC-0000-0000-0000-0000');
      await page.getByRole('button', { name: 'Redeem' }).click();
      await expectText(page.getByRole('alert'), 'No gift card has this code');
      await expectText(balance(page), '$22.50');
    },
  },
  {
    name: 'only an admin sees the gift card page, which shows new codes once',
    async run({ newPage, admin }) {
      const page = await newPage();
      await signInThrough(page, user, '/billing');
      const nav = page.getByRole('navigation', { name: 'Sections' });
      expectEqual(
        await nav.getByRole('link', { name: 'Gift cards' }).count(),
        0,
        'the number of Gift cards links for a user',
      );
      await page.goto('/admin/gift-cards');
      await expectVisible(page.getByRole('heading', { name: 'Page not found' }));

      const adminPage = await newPage();
      await signInThrough(adminPage, admin, '/billing');
      await adminPage.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Gift cards' }).click();
      await expectPath(adminPage, '/admin/gift-cards');
      await adminPage.getByLabel('Amount per card (USD)').fill('3');
      await adminPage.getByLabel('Number of cards').fill('2');
      await adminPage.getByRole('button', { name: 'Issue gift cards' }).click();
      await expectText(adminPage.getByRole('main'), "Copy the codes now. You won't see them again.");
      const codes = (await adminPage.getByLabel('New gift card codes').inputValue()).split('\n');
      expectEqual(codes.length, 2, 'the number of issued codes');
      for (const issued of codes)
        if (!CODE.test(issued)) throw new Error(`expected a gift card code, got ${JSON.stringify(issued)}`);
      await adminPage.getByRole('button', { name: 'Done' }).click();
      await adminPage.getByLabel('New gift card codes').waitFor({ state: 'detached', timeout: 10_000 });
      if ((await adminPage.content()).includes(codes[0])) throw new Error('expected the codes to be gone after Done');
    },
  },
];
