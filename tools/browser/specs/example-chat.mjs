// The app maker's kit in a browser, across origins (docs/sdk.md): the example chat app (apps/example-chat, served
// by the API on EXAMPLE_PORT at http://localhost:…, another origin than the dashboard's http://127.0.0.1:…) signs
// a user in through the consent page in a popup, streams a chat on the user's budget, hits the cap the user set
// on the app, raises it in the dashboard's popup, and the same message goes through; signing out revokes the
// tokens. Then the ten-line quick start of docs/sdk.md, as an app maker pastes it into an empty page, and the
// SDK's topUp() through the dashboard's billing popup and the sandbox checkout.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { expectEqual, expectText, expectVisible } from '../expect.mjs';
import { registerThroughForm } from '../flows.mjs';

export const name = 'example-chat';

const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const user = { name: `Chat User ${unique}`, email: `chat-${unique}@example.com`, password: `chat password ${unique}` };
const CLIENT_ID_HEADER = 'X-Service-OAuth-Client-Id';
// Enough for a short message, not for the long one below (demo-chat: 0.5 per million input tokens).
const MONTHLY_CAP = '0.0002';
const LONG_MESSAGE = `Please summarise: ${'the quick brown fox jumps over the lazy dog '.repeat(120)}`;

/** What the flow learned along the way. */
const state = { page: null, clientId: null };

/** The page the next popup of `context` opens (window.open), once it has loaded. */
async function nextPopup(page, open) {
  const [popup] = await Promise.all([page.waitForEvent('popup', { timeout: 10_000 }), open()]);
  return popup;
}

/** Waits until `page` is closed (the popup closes itself once it has told the opener). */
async function closed(page, what) {
  if (page.isClosed()) return;
  await page.waitForEvent('close', { timeout: 10_000 }).catch(() => {
    throw new Error(`expected ${what} to close itself, it is still at ${page.url()}`);
  });
}

function assistantMessages(page) {
  return page.locator('li[data-role="assistant"]');
}

async function lastAssistantText(page) {
  const all = await assistantMessages(page).allTextContents();
  return all.at(-1) ?? '';
}

/** Waits until `count` answers are there and the last one has finished streaming (the model picker is enabled again). */
async function waitForAnswer(page, count) {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const idle = await page
      .getByLabel('Model')
      .isEnabled()
      .catch(() => false);
    const text = (await lastAssistantText(page)).trim();
    if (idle && (await assistantMessages(page).count()) >= count && text.length > 0 && text !== '…') return text;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`expected ${count} streamed answers, got ${await assistantMessages(page).count()}`);
}

export const tests = [
  {
    // One flow (the runner closes a test's pages when it ends): each step relies on the one before.
    name: 'signs in through the consent popup, streams, hits the app’s cap, raises it in a popup, retries, signs out',
    async run({ newPage, exampleUrl, baseUrl }) {
      // --- sign-in: the consent page in a popup, across origins, with a cap ---

      const page = await newPage();
      state.page = page;
      // The user has a Switchyard account and is signed in to the dashboard (its origin: baseUrl).
      await registerThroughForm(page, user);

      await page.goto(exampleUrl);
      await expectVisible(page.getByRole('heading', { name: 'Example Chat' }));
      const clientText = await page.locator('code').nth(1).textContent();
      state.clientId = clientText?.trim() ?? null;
      if (!state.clientId) throw new Error('expected the example app to name its client id');

      const popup = await nextPopup(page, () => page.getByRole('button', { name: 'Sign in with Switchyard' }).click());
      await popup.waitForURL((url) => url.origin === baseUrl && url.pathname === '/consent', { timeout: 15_000 });
      expectEqual(new URL(popup.url()).searchParams.get('display'), 'popup', 'the consent page’s display');
      await expectText(popup.getByRole('main'), 'Example Chat');
      await popup.getByLabel('Monthly spending cap').fill(MONTHLY_CAP);
      await popup.getByRole('button', { name: 'Allow' }).click();
      await closed(popup, 'the consent popup');

      await expectVisible(page.getByRole('button', { name: 'Sign out' }), { what: 'the sign-out button' });
      await expectText(page.locator('.who'), user.name);
      await expectVisible(page.getByLabel('Message'));

      // --- a chat streamed on the user's budget ---
      {
        await page.getByLabel('Message').fill('Hello from the example app');
        await page.getByRole('button', { name: 'Send' }).click();
        const answer = await waitForAnswer(page, 1);
        if (answer.length < 5) throw new Error(`expected a streamed answer, got ${JSON.stringify(answer)}`);
        // The balance: the least of the budget and what the cap leaves, a fraction of a cent here.
        await expectText(page.getByLabel('What you can spend here'), '(app cap)');
      }
      // --- the app's cap reached, raised in the dashboard's popup, the same message through ---
      {
        await page.getByLabel('Message').fill(LONG_MESSAGE);
        await page.getByRole('button', { name: 'Send' }).click();
        const refusal = page.getByRole('alert').filter({ hasText: 'reached the spending cap' });
        await expectVisible(refusal, { what: 'the cap refusal' });
        expectEqual(await assistantMessages(page).count(), 1, 'the answers after the refusal');

        const popup = await nextPopup(page, () =>
          refusal.getByRole('button', { name: 'Raise this app’s cap' }).click(),
        );
        await popup.waitForURL(
          (url) => url.origin === baseUrl && url.pathname === `/authorized-apps/${state.clientId}`,
          {
            timeout: 15_000,
          },
        );
        const caps = popup.getByRole('form', { name: 'Spending caps for Example Chat' });
        await expectVisible(caps, { what: 'the caps form in the popup' });
        await caps.getByLabel('Monthly spending cap').fill('');
        await caps.getByRole('button', { name: 'Save caps' }).click();
        await closed(popup, 'the caps popup');

        // The same message, sent again by the app once the popup told it the cap was raised.
        await waitForAnswer(page, 2);
        const users = await page.locator('li[data-role="user"]').allTextContents();
        expectEqual(users.length, 2, 'the user messages (the long one sent once more, not twice)');
        expectEqual(users[1], LONG_MESSAGE.trim(), 'the message that went through');
        expectEqual(await refusal.count(), 0, 'the refusals left');
      }
      // --- signing out revokes the tokens at the server ---
      {
        const { clientId } = state;
        const stored = await page.evaluate((key) => sessionStorage.getItem(key), `switchyard:${clientId}:tokens`);
        if (!stored) throw new Error('expected the tokens in the tab’s sessionStorage');
        const tokens = JSON.parse(stored);
        const before = await fetch(`${baseUrl}/v1/models`, {
          headers: { authorization: `Bearer ${tokens.accessToken}`, [CLIENT_ID_HEADER]: clientId },
        });
        expectEqual(before.status, 200, 'a call with the token before signing out');

        await page.getByRole('button', { name: 'Sign out' }).click();
        await expectVisible(page.getByRole('button', { name: 'Sign in with Switchyard' }));
        expectEqual(
          await page.evaluate((key) => sessionStorage.getItem(key), `switchyard:${clientId}:tokens`),
          null,
          'the stored tokens',
        );
        const deadline = Date.now() + 10_000;
        let status = 0;
        while (Date.now() < deadline && status !== 401) {
          status = (
            await fetch(`${baseUrl}/v1/models`, {
              headers: { authorization: `Bearer ${tokens.accessToken}`, [CLIENT_ID_HEADER]: clientId },
            })
          ).status;
          if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expectEqual(status, 401, 'a call with the revoked access token');
        const refreshed = await fetch(`${baseUrl}/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ grantType: 'refresh_token', refreshToken: tokens.refreshToken, clientId }),
        });
        expectEqual((await refreshed.json()).error, 'invalid_grant', 'a refresh with the revoked refresh token');
      }
    },
  },
  {
    name: 'the ten-line quick start of docs/sdk.md, pasted into an empty page, streams a chat; topUp() in a popup',
    async run({ newPage, baseUrl }) {
      const page = await newPage();
      const maker = { ...user, name: `App Maker ${unique}`, email: `maker-${unique}@example.com` };
      await registerThroughForm(page, maker);
      const doc = readFileSync(
        join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'docs', 'sdk.md'),
        'utf8',
      );
      const quickStart = /```html\n(<script src="http:\/\/localhost:3000\/sdk\/v1\/switchyard\.js">[\s\S]*?)```/.exec(
        doc,
      )?.[1];
      if (!quickStart) throw new Error('docs/sdk.md has no quick start');
      // The script the server serves is the one whose integrity hash the docs give.
      const script = await fetch(`${baseUrl}/sdk/v1/switchyard.js`);
      expectEqual(script.headers.get('access-control-allow-origin'), '*', 'the script’s CORS');
      const integrity = `sha384-${createHash('sha384')
        .update(Buffer.from(await script.arrayBuffer()))
        .digest('base64')}`;
      if (!doc.includes(`integrity="${integrity}"`))
        throw new Error(`docs/sdk.md does not give the served script's integrity ${integrity}`);
      // /llms.txt carries the same quick start.
      const llms = await fetch(`${baseUrl}/llms.txt`);
      expectEqual(llms.status, 200, 'GET /llms.txt');
      if (!(await llms.text()).includes(quickStart)) throw new Error('/llms.txt lacks the quick start of docs/sdk.md');
      // The app maker's page, on an origin of its own.
      let served = '';
      const server = createServer((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        // Beside the quick start, a button of the app's own: add funds in the dashboard's billing popup.
        res.end(
          `<!doctype html><title>My app</title>${served}<button id="top-up" onclick="sy.topUp().then((b) => (document.title = 'funds ' + b.remainingBudget))">Top up</button>`,
        );
      });
      await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
      server.unref();
      const pageUrl = `http://127.0.0.1:${server.address().port}/`;
      try {
        // Registered on the OAuth apps page with the page's address as its redirect URI.
        const login = await fetch(`${baseUrl}/api/v1/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: maker.email, password: maker.password }),
        });
        const session = (await login.json()).data.token;
        const created = await fetch(`${baseUrl}/api/v1/oauth2/clients`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${session}` },
          body: JSON.stringify({
            clientName: 'My Quick App',
            redirectUris: [pageUrl],
            requestedScopes: ['api:access'],
          }),
        });
        const { clientId } = (await created.json()).data;
        served = quickStart.replaceAll('http://localhost:3000', baseUrl).replace('YOUR_CLIENT_ID', clientId);

        // The OAuth apps page shows the app's SDK snippet: this server's script and this app's id.
        await page.goto('/apps');
        const card = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'My Quick App' }) });
        await card.getByRole('button', { name: 'Sign-in code' }).click();
        const snippet = card.locator('pre').filter({ hasText: 'switchyard.js' });
        await expectText(snippet, `<script src="${baseUrl}/sdk/v1/switchyard.js"></script>`);
        await expectText(snippet, `Switchyard.init({ clientId: "${clientId}", redirectUri: "${pageUrl}" })`);

        await page.goto(pageUrl);
        const signIn = page.getByRole('button', { name: 'Sign in with Switchyard' });
        await expectVisible(signIn, { what: 'the self-wired sign-in button' });
        const popup = await nextPopup(page, () => signIn.click());
        await popup.waitForURL((url) => url.pathname === '/consent', { timeout: 15_000 });
        await popup.getByRole('button', { name: 'Allow' }).click();
        await closed(popup, 'the consent popup');
        await expectText(page.locator('[data-switchyard-button]'), 'Sign out');
        await expectText(page.locator('[data-switchyard-balance]'), '$');

        await page.getByRole('button', { name: 'Ask' }).click();
        const deadline = Date.now() + 15_000;
        let out = '';
        while (Date.now() < deadline && out.length < 10) {
          out = (await page.locator('#out').textContent()) ?? '';
          if (out.length < 10) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        if (out.length < 10) throw new Error(`expected a streamed answer in #out, got ${JSON.stringify(out)}`);

        // topUp(): the billing page in a popup, a card payment in the sandbox checkout, and back with more room.
        const billing = await nextPopup(page, () => page.getByRole('button', { name: 'Top up' }).click());
        await billing.waitForURL((url) => url.pathname === '/billing' && url.searchParams.get('popup') === '1', {
          timeout: 15_000,
        });
        await expectText(billing.getByRole('main'), 'Add funds for My Quick App');
        await billing.getByLabel('Amount (USD)').fill('2');
        await billing.getByRole('button', { name: 'Add funds' }).click();
        await billing.getByRole('button', { name: 'Pay $2.00' }).click();
        await closed(billing, 'the billing popup');
        await page.waitForFunction(() => document.title.startsWith('funds '), null, { timeout: 10_000 });
        const funds = Number((await page.title()).slice('funds '.length));
        if (!(funds > 6.9 && funds <= 7)) throw new Error(`expected about 7 left after adding 2 to 5, got ${funds}`);
      } finally {
        server.close();
      }
    },
  },
];
