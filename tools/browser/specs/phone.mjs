// Every section of the dashboard at phone (390×844) and desktop (1280×800) width: the current section shows (in
// the sidebar, or on a phone in the bar above the page, the sections behind a Menu button), no page scrolls sideways, and no table scrolls inside
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
  screenshot,
  tablesInInnerScroll,
} from '../devices.mjs';

export const name = 'phone';

// Path and a text its page shows once loaded.
const PAGES = [
  ['/', 'Recent activity'],
  ['/keys', 'Phone key'],
  ['/apps', 'OAuth apps'],
  ['/earnings', 'Moved to your budget'],
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

// On a phone the sections are a menu (issue 33): a Menu button opens all of them as a list, a link closes it,
// Escape closes it and gives the focus back; on a desktop the sidebar shows them all and there is no Menu button.
tests.push(
  ...DEVICES.map((device) => ({
    name: `the sections are ${device.label === 'phone' ? 'a menu behind a button' : 'a sidebar'} (${device.label}, ${device.viewport.width} px)`,
    async run({ newPage, baseUrl }) {
      const { label, ...options } = device;
      const account = await newAccount(baseUrl, `menu-${label}`);
      const page = await newPage(options);
      await signInThrough(page, account, '/usage');
      const nav = page.getByRole('navigation', { name: 'Sections' });
      const links = nav.getByRole('link');
      const menu = page.getByRole('button', { name: 'Menu', exact: true });
      const visibleLinks = () => links.evaluateAll((all) => all.filter((link) => link.getClientRects().length).length);
      if (label === 'desktop') {
        expectEqual(await menu.isVisible(), false, 'a Menu button on a desktop');
        expectEqual(await visibleLinks(), 13, 'the sections shown in the sidebar');
        return;
      }
      expectEqual(await menu.getAttribute('aria-expanded'), 'false', 'the menu closed at first');
      expectEqual(await visibleLinks(), 0, 'section links shown while the menu is closed');
      await expectText(page.locator('.shell-current'), 'Usage');
      await menu.click();
      expectEqual(await menu.getAttribute('aria-expanded'), 'true', 'the menu open');
      expectEqual(await visibleLinks(), 13, 'the sections shown in the open menu');
      // All of them within the screen: a list, not a strip that scrolls sideways.
      const within = await links.evaluateAll((all) =>
        all.every(
          (link) => link.getBoundingClientRect().left >= 0 && link.getBoundingClientRect().right <= innerWidth + 1,
        ),
      );
      expectEqual(within, true, 'every section link within the width');
      await noHorizontalScroll(page, 'the open menu at 390 px');
      await screenshot(page, 'phone-menu-open.png');
      await nav.getByRole('link', { name: 'Billing', exact: true }).click();
      await expectText(page.getByRole('heading', { level: 1 }), 'Billing');
      expectEqual(new URL(page.url()).pathname, '/billing', 'the section the menu went to');
      expectEqual(await menu.getAttribute('aria-expanded'), 'false', 'the menu closed by the link');
      await menu.click();
      await page.keyboard.press('Escape');
      expectEqual(await menu.getAttribute('aria-expanded'), 'false', 'the menu closed by Escape');
      expectEqual(
        await menu.evaluate((button) => button === document.activeElement),
        true,
        'the focus back on the Menu button',
      );
    },
  })),
);
