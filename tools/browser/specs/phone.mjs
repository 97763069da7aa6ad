// Every section of the dashboard at phone (390×844) and desktop (1280×800) width: the nav shows the current
// section (a phone's nav is one row that scrolls sideways), no page scrolls sideways, and no table scrolls inside
// its box (tables of records stack into cards below 48rem).
import { expectEqual, expectText } from '../expect.mjs';
import { signInThrough } from '../flows.mjs';
import {
  api,
  currentSectionInView,
  DEVICES,
  loaded,
  newAccount,
  noHorizontalScroll,
  tablesInInnerScroll,
} from '../devices.mjs';

export const name = 'phone';

// Path and a text its page shows once loaded.
const PAGES = [
  ['/', 'Recent activity'],
  ['/keys', 'Phone key'],
  ['/apps', 'OAuth apps'],
  ['/authorized-apps', 'Authorized apps'],
  ['/usage', 'By day'],
  ['/requests', 'demo-chat'],
  ['/models', 'Models'],
  ['/playground', 'Playground'],
  ['/billing', 'Usage by day'],
  ['/spaces', 'Spaces'],
  ['/docs', 'endpoints'],
];

export const tests = DEVICES.map((device) => ({
  name: `every section shows itself in the nav and fits the width (${device.label}, ${device.viewport.width} px)`,
  async run({ newPage, baseUrl }) {
    const { label, ...options } = device;
    const account = await newAccount(baseUrl, `phone-${label}`);
    const key = await api(baseUrl, '/api/v1/keys', { token: account.token, body: { name: 'Phone key' } });
    const response = await fetch(`${baseUrl}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${key.key}` },
      body: JSON.stringify({ model: 'demo-chat', messages: [{ role: 'user', content: 'Hello phone' }] }),
      signal: AbortSignal.timeout(10_000),
    });
    await response.arrayBuffer();
    const deadline = Date.now() + 10_000;
    while ((await api(baseUrl, '/api/v1/usage/me/activity', { token: account.token })).items.length < 1) {
      if (Date.now() > deadline) throw new Error('expected the call in the activity');
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    const page = await newPage(options);
    await signInThrough(page, account, '/requests');
    for (const [path, ready] of PAGES) {
      await page.goto(path);
      await expectText(page.getByRole('main'), ready);
      await loaded(page, path);
      expectEqual(await currentSectionInView(page), true, `the current section in view in the nav on ${path}`);
      await noHorizontalScroll(page, `${path} at ${device.viewport.width} px`);
      if (label === 'phone')
        expectEqual((await tablesInInnerScroll(page)).join(', '), '', `tables scrolling sideways inside ${path}`);
    }
  },
}));
