// The API keys page (issue 21), at desktop and phone width: limits and an expiry set at creation, checked in the
// page before anything is sent; each key's spend after a call; rename and new limits; revoked keys hidden until
// asked for; the page fits the screen and answers fast. Screenshots as dashboard.mjs takes them
// (SCREENSHOT_DIR=docs/screenshots/dashboard refreshes the committed copies).

import { expectEqual, expectPath, expectText, expectVisible } from '../expect.mjs';
import { DEVICES, noHorizontalScroll, screenshot } from '../devices.mjs';
import { registerThroughForm } from '../flows.mjs';

export const name = 'keys-page';

const card = (page, keyName) =>
  page.locator('article').filter({ has: page.getByRole('heading', { name: keyName, exact: true }) });
const detail = (locator, label) =>
  locator.locator('dt', { hasText: label }).locator('xpath=following-sibling::dd').first();

/** The error shown under a labelled field. */
async function fieldError(page, label) {
  const describedBy = (await page.getByLabel(label, { exact: true }).getAttribute('aria-describedby')) ?? '';
  const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'));
  if (!errorId) throw new Error(`expected an error under ${label}`);
  return page.locator(`[id="${errorId}"]`);
}

const isoDay = (offsetDays) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

export const tests = DEVICES.map((device) => ({
  name: `keys page at ${device.label} width: limits and expiry at creation, spend, rename, hide revoked`,
  async run({ newPage, baseUrl }) {
    const { label, ...options } = device;
    const unique = `${label}${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
    const page = await newPage(options);
    await registerThroughForm(page, {
      name: `Keys ${unique}`,
      email: `keys-page-${unique}@example.com`,
      password: `correct horse ${unique}`,
    });
    await page.goto('/keys');
    await expectPath(page, '/keys');
    await expectText(page.getByRole('main'), 'No API keys yet.');
    const timing = await page.evaluate(() => {
      const [nav] = performance.getEntriesByType('navigation');
      const list = performance.getEntriesByType('resource').find((entry) => entry.name.endsWith('/api/v1/keys'));
      return { domReady: Math.round(nav.domContentLoadedEventEnd), list: Math.round(list?.duration ?? -1) };
    });
    console.log(`    keys page (${label}): DOM ready ${timing.domReady} ms, GET /api/v1/keys ${timing.list} ms`);
    if (timing.list < 0 || timing.list > 1000) throw new Error(`expected the key list within 1 s, got ${timing.list}`);

    // Wrong limits and a day that is over are explained under their fields, and nothing is sent.
    await page.getByLabel('Key name').fill('CI runner');
    await page.getByText('Limits and expiry (optional)').click();
    await page.getByLabel('Per day', { exact: true }).fill('-1');
    await page.getByLabel('Requests per minute').fill('2.5');
    await page.getByLabel('Expires after').fill(isoDay(-2));
    await page.getByRole('button', { name: 'Create key' }).click();
    await expectText(
      await fieldError(page, 'Per day'),
      'Enter an amount such as 5 or 0.25, or leave it blank for no limit.',
    );
    await expectText(await fieldError(page, 'Requests per minute'), 'whole number');
    await expectText(await fieldError(page, 'Expires after'), 'that day is over');
    await expectText(page.getByRole('main'), 'No API keys yet.');

    // Right ones make the key, shown once, with its limits and expiry listed.
    await page.getByLabel('Per day', { exact: true }).fill('1.5');
    await page.getByLabel('Requests per minute').fill('30');
    const expiryDay = isoDay(30);
    await page.getByLabel('Expires after').fill(expiryDay);
    await page.getByRole('button', { name: 'Create key' }).click();
    const keyInput = page.getByLabel('New API key');
    await expectVisible(keyInput, { what: 'the new key' });
    const key = await keyInput.inputValue();
    await page.getByRole('button', { name: 'Done' }).click();
    const created = card(page, 'CI runner');
    await expectText(detail(created, 'Limits'), '$1.50 per day, 30 requests per minute');
    await expectText(detail(created, 'Spent this month'), '$0.00');
    const expires = await detail(created, 'Expires').locator('time').getAttribute('datetime');
    expectEqual(
      new Date(expires).toISOString(),
      new Date(Date.parse(expiryDay) + 86_400_000).toISOString(),
      'the expiry',
    );

    // A call with the key shows as its spend.
    const call = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'demo-chat', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }),
      signal: AbortSignal.timeout(10_000),
    });
    expectEqual(call.status, 200, 'the status of a call with the key');
    await page.reload();
    const spent = (await detail(card(page, 'CI runner'), 'Spent this month').textContent()) ?? '';
    // A few demo calls cost a fraction of a cent: shown with its significant digits, never $0.00 (lib/money.ts).
    if (!/^\$0\.0\d*[1-9]\d*$|^\$(?!0\.00$)[\d,]+\.\d{2,6}$/.test(spent))
      throw new Error(`expected a small spend this month, got ${spent}`);
    await expectText(detail(card(page, 'CI runner'), 'Spent in all'), spent);

    // Rename and clear the limits.
    await card(page, 'CI runner').getByRole('button', { name: 'Rename or set limits' }).click();
    const form = page.getByRole('form', { name: 'Edit CI runner' });
    await form.getByLabel('Name', { exact: true }).fill('Build server');
    await form.getByLabel('Per day', { exact: true }).fill('');
    await form.getByLabel('Requests per minute').fill('');
    await form.getByLabel('In total').fill('25');
    await form.getByRole('button', { name: 'Save' }).click();
    const renamed = card(page, 'Build server');
    await expectText(detail(renamed, 'Limits'), '$25.00 in total');
    await expectText(detail(renamed, 'Spent this month'), spent);

    await noHorizontalScroll(page, `the keys page at ${device.viewport.width} px`);
    await screenshot(page, `keys-limits-${label}.png`, 'here');

    // Revoked keys are hidden until asked for.
    await renamed.getByRole('button', { name: 'Revoke' }).click();
    await renamed.getByRole('button', { name: 'Revoke', exact: true }).click();
    await renamed.waitFor({ state: 'detached', timeout: 10_000 });
    await expectText(page.getByRole('main'), 'Every key you made is revoked.');
    await page.getByLabel('Show revoked keys (1)').check();
    await expectText(card(page, 'Build server'), 'Revoked');
    await noHorizontalScroll(page, `the keys page with revoked keys at ${device.viewport.width} px`);
  },
}));
