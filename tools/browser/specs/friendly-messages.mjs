// Forms answer in sentences written for people, not the server's raw strings, at desktop and phone width: the
// sign-up form's email.
import { expectText } from '../expect.mjs';
import { DEVICES } from '../devices.mjs';

export const name = 'friendly-messages';

export const tests = DEVICES.map((device) => ({
  name: `the sign-up form explains a bad email in a plain sentence (${device.label}, ${device.viewport.width} px)`,
  async run({ newPage }) {
    const page = await newPage({ viewport: device.viewport, isMobile: device.isMobile, hasTouch: device.hasTouch });
    await page.goto('/register');
    await page.getByLabel('Name').fill('Friendly');
    await page.getByLabel('Email').fill('not-an-email');
    await page.getByLabel('Password').fill('longenough password');
    await page.getByRole('button', { name: 'Create account' }).click();
    await expectText(page.getByRole('main'), 'Enter an email address such as name@example.com.');
    const text = (await page.getByRole('main').textContent()) ?? '';
    if (text.includes('email must be a valid email address'))
      throw new Error(`expected no raw server string on the sign-up page, got ${text}`);
  },
}));
