// API keys through the dashboard (/keys): created and shown once, listed masked, accepted by the gateway, and
// refused by it once revoked.
import { expectEqual, expectPath, expectText, expectVisible } from '../expect.mjs';
import { registerThroughForm, signInThrough } from '../flows.mjs';

export const name = 'keys';

const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const user = {
  name: `Key Tester ${unique}`,
  email: `keys-${unique}@example.com`,
  password: `correct horse ${unique}`,
};
const KEY_NAME = 'CI key';
const KEY_FORMAT = /^sy-[0-9A-Za-z]{48}$/;

async function waitUntil(page, predicate, arg, what) {
  await page.waitForFunction(predicate, arg, { timeout: 10_000 }).catch(() => {
    throw new Error(`expected ${what}`);
  });
}

/** The card of the key with this name. */
function keyRow(page, keyName) {
  return page.locator('article').filter({ has: page.getByRole('heading', { name: keyName, exact: true }) });
}

async function gatewayStatus(baseUrl, key) {
  const response = await fetch(`${baseUrl}/v1/models`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(10_000),
  });
  await response.body?.cancel();
  return response.status;
}

export const tests = [
  {
    name: 'a new account has no keys, and an empty name shows the error under Key name',
    async run({ newPage }) {
      const page = await newPage();
      await registerThroughForm(page, user);

      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'API keys' }).click();
      await expectPath(page, '/keys');
      await expectVisible(page.getByRole('heading', { name: 'API keys', level: 1 }));
      await expectText(page.getByRole('main'), 'No API keys yet.');

      await page.getByRole('button', { name: 'Create key' }).click();
      const field = page.getByLabel('Key name');
      await waitUntil(
        page,
        () => document.querySelector('input[name="name"]')?.getAttribute('aria-invalid') === 'true',
        undefined,
        'the Key name field to be marked invalid',
      );
      const describedBy = (await field.getAttribute('aria-describedby')) ?? '';
      const errorId = describedBy.split(' ').find((id) => id.endsWith('-error'));
      if (!errorId) throw new Error('expected the Key name field to point at its error messages');
      await expectText(page.locator(`[id="${errorId}"]`), 'Enter the name.');
      // Nothing was created.
      await expectText(page.getByRole('main'), 'No API keys yet.');
    },
  },
  {
    name: 'a created key is shown once, works at the gateway, and is refused there once revoked',
    async run({ newPage, baseUrl }) {
      const page = await newPage({ permissions: ['clipboard-read', 'clipboard-write'] });
      await signInThrough(page, user, '/keys');
      await expectText(page.getByRole('main'), 'No API keys yet.');

      await page.getByLabel('Key name').fill(KEY_NAME);
      await page.getByRole('button', { name: 'Create key' }).click();
      await expectText(page.getByRole('main'), "Copy your new key now. You won't see it again.");
      const keyInput = page.getByLabel('New API key');
      await expectVisible(keyInput, { what: 'the New API key input' });
      const key = await keyInput.inputValue();
      if (!KEY_FORMAT.test(key))
        throw new Error(`expected the new key to match ${KEY_FORMAT}, got ${JSON.stringify(key)}`);
      expectEqual(await keyInput.getAttribute('readonly'), '', 'the readonly attribute of the New API key input');

      await page.getByRole('button', { name: 'Copy', exact: true }).click();
      await expectText(page.getByRole('main'), 'Copied to the clipboard.');
      expectEqual(await page.evaluate(() => navigator.clipboard.readText()), key, 'the clipboard');

      const masked = `${key.slice(0, 12)}…${key.slice(-4)}`;
      const row = keyRow(page, KEY_NAME);
      await expectVisible(row, { what: `the row of ${KEY_NAME}` });
      await expectText(row, masked);
      await expectText(row, 'Active');
      await expectText(row, 'Never');

      await page.getByRole('button', { name: 'Done' }).click();
      await keyInput.waitFor({ state: 'detached', timeout: 10_000 });
      // Shown once: the full key is nowhere on the page, nor in web storage, and a reload does not bring it back.
      const html = await page.content();
      if (html.includes(key)) throw new Error('expected the full key to be gone from the page after Done');
      const stored = await page.evaluate(() => localStorage.length + sessionStorage.length);
      expectEqual(stored, 0, 'the number of web storage entries');
      await page.reload();
      await expectText(keyRow(page, KEY_NAME), masked);
      if ((await page.content()).includes(key)) throw new Error('expected the full key to stay hidden after a reload');

      expectEqual(await gatewayStatus(baseUrl, key), 200, 'the status of GET /v1/models with the new key');

      // Cancel leaves the key alone.
      await row.getByRole('button', { name: 'Revoke' }).click();
      await expectText(row, `Revoke ${KEY_NAME}?`);
      await row.getByRole('button', { name: 'Cancel' }).click();
      await expectText(row, 'Active');
      await expectVisible(row.getByRole('button', { name: 'Revoke' }), { what: 'the Revoke button again' });

      await row.getByRole('button', { name: 'Revoke' }).click();
      await expectText(row, `Revoke ${KEY_NAME}?`);
      await row.getByRole('button', { name: 'Revoke', exact: true }).click();
      // Revoked keys are hidden until asked for.
      await row.waitFor({ state: 'detached', timeout: 10_000 });
      await page.getByLabel('Show revoked keys (1)').check();
      await expectText(row, 'Revoked');
      await row
        .getByRole('button')
        .first()
        .waitFor({ state: 'detached', timeout: 10_000 })
        .catch(() => {
          throw new Error('expected no buttons left on the card of a revoked key');
        });

      expectEqual(await gatewayStatus(baseUrl, key), 403, 'the status of GET /v1/models with the revoked key');
    },
  },
];
