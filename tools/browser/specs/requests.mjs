// The Requests page (/requests) at desktop and phone width: a user's calls newest first with their latency and
// time to first byte, filtered by status, model and key, a call's details with the money trace and the request
// id to quote; the Overview links to it. Screenshots: requests-desktop.png, requests-phone.png.
import { expectEqual, expectPath, expectText, expectVisible } from '../expect.mjs';
import { goToSection, signInThrough } from '../flows.mjs';
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

export const name = 'requests';

const CHAT = { model: 'demo-chat', messages: [{ role: 'user', content: 'Hello requests page' }] };

/** Two good calls (a chat and an embedding) and one refused (an unknown model) with a new key; their request ids. */
async function makeCalls(baseUrl, account) {
  const key = await api(baseUrl, '/api/v1/keys', { token: account.token, body: { name: 'Requests key' } });
  const call = async (path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    return response.headers.get('x-request-id');
  };
  const chat = await call('/v1/chat/completions', CHAT);
  const embedding = await call('/v1/embeddings', { model: 'demo-embedding', input: 'hello' });
  const refused = await call('/v1/chat/completions', { ...CHAT, model: 'no-such-model' });
  // Usage records are written in batches (every half second).
  const deadline = Date.now() + 10_000;
  while ((await api(baseUrl, '/api/v1/usage/me/activity', { token: account.token })).items.length < 3) {
    if (Date.now() > deadline) throw new Error('expected the three calls in the activity');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return { key, chat, embedding, refused };
}

const rows = (page) => page.getByRole('table').locator('tbody tr');

export const tests = DEVICES.map((device) => ({
  name: `the Requests page lists, filters and explains calls (${device.label}, ${device.viewport.width} px)`,
  async run({ newPage, baseUrl }) {
    const { label, ...options } = device;
    const account = await newAccount(baseUrl, `requests-${label}`);
    const calls = await makeCalls(baseUrl, account);
    const page = await newPage(options);

    // The Overview's recent activity links to the page.
    await signInThrough(page, account, '/usage');
    await goToSection(page, 'Overview');
    await expectText(page.getByRole('main'), 'Recent activity');
    await page.getByRole('link', { name: 'All requests' }).click();
    await expectPath(page, '/requests');
    await expectVisible(page.getByRole('heading', { name: 'Requests', level: 1 }));
    await loaded(page, 'the requests');
    expectEqual(await currentSectionInView(page), true, 'the Requests link in view in the nav');

    // Newest first: the refused call, the embedding, the chat.
    await expectText(rows(page).nth(0), 'no-such-model');
    await expectText(rows(page).nth(0), 'Refused');
    await expectText(rows(page).nth(1), 'demo-embedding');
    await expectText(rows(page).nth(2), 'demo-chat');
    await expectText(rows(page).nth(2), 'Succeeded');
    await expectText(rows(page).nth(2), 'Requests key');
    expectEqual(await rows(page).count(), 3, 'the rows');
    await noHorizontalScroll(page, `/requests at ${device.viewport.width} px`);
    expectEqual((await tablesInInnerScroll(page)).length, 0, 'tables scrolling sideways inside the page');
    if (label === 'phone') {
      const header = await page.getByRole('table').locator('thead').boundingBox();
      expectEqual((header?.height ?? 0) <= 1, true, 'the column headings hidden on a phone (each cell is labelled)');
    }
    await screenshot(page, `requests-${label}.png`);

    // Filters: status, model, key; then cleared.
    await page.getByLabel('Status').selectOption({ label: 'Any failure' });
    await expectText(rows(page).first(), 'no-such-model');
    await page.waitForFunction(() => document.querySelectorAll('main tbody tr').length === 1, undefined, {
      timeout: 10_000,
    });
    await page.getByLabel('Status').selectOption({ label: 'Any status' });
    await page.getByLabel('Model').fill('demo-embedding');
    await page.getByLabel('Model').press('Enter');
    await page.waitForFunction(() => document.querySelectorAll('main tbody tr').length === 1, undefined, {
      timeout: 10_000,
    });
    await expectText(rows(page).first(), 'demo-embedding');
    await page.getByLabel('Model').fill('nothing-like-this');
    await page.getByLabel('Model').press('Enter');
    await expectText(page.getByRole('main'), 'No calls match these filters.');
    await page.getByRole('button', { name: 'Clear filters' }).click();
    await page.waitForFunction(() => document.querySelectorAll('main tbody tr').length === 3, undefined, {
      timeout: 10_000,
    });
    await page.getByLabel('Key').selectOption({ label: 'Requests key' });
    await page.waitForFunction(() => document.querySelectorAll('main tbody tr').length === 3, undefined, {
      timeout: 10_000,
    });
    // A range that ends before today holds none of them.
    await page.getByLabel('To').fill('2020-01-01');
    await expectText(page.getByRole('main'), 'No calls match these filters.');
    await page.getByRole('button', { name: 'Clear filters' }).click();

    // The chat's details: the request id to quote and the money trace.
    await rows(page)
      .nth(2)
      .getByRole('button', { name: /details/ })
      .click();
    const detail = page.locator('.request-detail');
    await expectVisible(detail.getByRole('heading', { name: 'Call to demo-chat' }));
    expectEqual(await detail.getByLabel('Request id').inputValue(), calls.chat, 'the request id shown');
    expectEqual(
      await detail.evaluate((element) => element.closest('tr')?.previousElementSibling?.getAttribute('aria-selected')),
      'true',
      'the details open right below the call’s own row',
    );
    await expectText(detail, 'Reserved');
    await expectText(detail, 'Charged');
    await expectText(detail, 'Released');
    await expectText(detail, 'rest of the hold was released');
    await expectText(detail, 'First byte after');
    await detail.getByRole('button', { name: 'Copy Request id' }).click();
    await page.waitForFunction(
      () =>
        /Copied to the clipboard|Selected: press/.test(document.querySelector('.request-detail')?.textContent ?? ''),
      undefined,
      { timeout: 10_000 },
    );
    await noHorizontalScroll(page, `/requests with a call's details at ${device.viewport.width} px`);
    await detail.evaluate((element) => element.scrollIntoView({ block: 'start' }));
    await screenshot(page, `requests-detail-${label}.png`, 'here');
    await detail.getByRole('button', { name: 'Close' }).click();
    expectEqual(await detail.count(), 0, 'the details closed');

    // The refused call held nothing.
    await rows(page)
      .nth(0)
      .getByRole('button', { name: /details/ })
      .click();
    await expectText(page.locator('.request-detail'), 'Nothing was held');
  },
}));
