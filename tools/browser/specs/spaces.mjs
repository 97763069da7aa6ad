// Spaces through the dashboard (issue 7), on the demo provider: a new user claims a handle (checked as they
// type), describes an app, watches it being written, sees it run in the sandboxed preview, publishes it, and a
// second browser (never signed in) opens the public profile and the app, on the apps' own origin. Then the
// isolation proof (docs/spaces.md): the demo's sandbox inspector, published and given the dashboard's origin as
// #target=, tries to read the dashboard's cookies and storage, fetch its API with credentials, open its
// authorization endpoint in a popup, move the top window and post a form there, and writes what happened into its
// own DOM. Every probe fails: opened on its own in the owner's signed-in browser (whose cookies for this host do
// travel to the apps' port), framed inside a dashboard page by a frame with no sandbox attribute (the headers alone
// must hold), and in the preview; and neither the browser nor the API saw any of those requests. Another site
// cannot frame it.
import { createServer } from 'node:http';

import { expectEqual, expectPath, expectText, expectVisible } from '../expect.mjs';
import { registerThroughForm, signInThrough } from '../flows.mjs';

export const name = 'spaces';

const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
const user = {
  name: `Space Maker ${unique}`,
  email: `spaces-${unique}@example.com`,
  password: `correct horse ${unique}`,
};
const HANDLE = `maker-${unique}`;
const COUNTER_PROMPT = 'A counter for the birds I spot in the garden';
// Named in the form (a title of its own, issue 33); the probe is named by its page's <title>.
const COUNTER_TITLE = 'Garden bird counter';
const PROBE_PROMPT = 'Show what this page can read: cookies and storage';
const PROBE_TITLE = 'Show what this page';
const SANDBOX = 'allow-scripts';

/** What earlier tests made; later tests in this module rely on it (the runner keeps the order). */
const state = { counterUrl: null, probeUrl: null };

function appCard(page, title) {
  return page
    .locator('article.app-card')
    .filter({ has: page.getByRole('heading', { level: 3, name: title, exact: true }) });
}

/** Generates an app from the Spaces page and waits (bounded) until it is ready. */
async function generate(page, prompt, title, { named = false } = {}) {
  await page.getByLabel('Describe your app').fill(prompt);
  if (named) await page.getByLabel('Title (optional)').fill(title);
  await page.getByRole('button', { name: 'Generate app' }).click();
  await expectText(page.getByRole('main'), 'A model is writing');
  const card = appCard(page, title);
  await expectVisible(card, { what: `the card of ${title}` });
  await expectText(card.locator('.badge').first(), 'Ready', { timeout: 20_000 });
  return card;
}

const READ_PROBES = ['probe-cookie', 'probe-local', 'probe-session', 'probe-parent', 'probe-account'];
const ACT_PROBES = ['probe-popup', 'probe-top', 'probe-form', 'probe-site'];

/** The probe's findings, from the frame or page it runs in. */
async function probeFindings(frame) {
  const ids = [...READ_PROBES, ...ACT_PROBES];
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = {};
    for (const id of ids) found[id] = ((await frame.locator(`#${id}`).textContent()) ?? '').trim();
    if (Object.values(found).every((text) => text && text !== '…')) return found;
    if (Date.now() > deadline) throw new Error(`the probe did not finish: ${JSON.stringify(found)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A page on another origin that tries to frame `target`. */
async function framingServer() {
  const server = createServer((req, res) => {
    const target = new URL(req.url, 'http://127.0.0.1').searchParams.get('target') ?? '';
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end(
      `<!doctype html><title>framer</title><iframe id="victim" src="${target.replace(/"/g, '&quot;')}"></iframe>`,
    );
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  server.unref();
  return { origin: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

export const tests = [
  {
    name: 'a new user claims a handle, generates an app, sees it run in the sandboxed preview and publishes it',
    async run({ newPage }) {
      const page = await newPage();
      await registerThroughForm(page, user);
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Spaces' }).click();
      await expectPath(page, '/spaces');
      await expectVisible(page.getByRole('heading', { name: 'Spaces', level: 1 }));
      await expectVisible(page.getByRole('heading', { name: 'Claim a handle', level: 2 }));
      // No handle yet: nothing to generate under.
      expectEqual(
        await page.getByLabel('Describe your app').count(),
        0,
        'the number of prompt fields before a handle is claimed',
      );

      const handleField = page.getByLabel('Handle', { exact: true });
      const status = page
        .locator('section', { has: page.getByRole('heading', { name: 'Claim a handle' }) })
        .getByRole('status');
      await handleField.fill('ab');
      await expectText(status, 'A handle must be 3-40 characters.');
      await handleField.fill('admin');
      await expectText(status, 'admin is a reserved word.');
      await handleField.fill(HANDLE);
      await expectText(status, `${HANDLE} is available.`);
      await page.getByRole('button', { name: 'Claim handle' }).click();
      await expectText(page.getByRole('main'), `Saved. Your handle is ${HANDLE}.`);
      await expectVisible(page.getByRole('link', { name: `/u/${HANDLE}` }), { what: 'the link to the public profile' });

      const first = await generate(page, COUNTER_PROMPT, 'Birds', { named: true });
      // Renamed in its card: the address stays.
      const address = await first.locator('dd').first().textContent();
      await first.getByRole('button', { name: 'Rename Birds' }).click();
      await first.getByLabel('Title', { exact: true }).fill(COUNTER_TITLE);
      await first.getByRole('button', { name: 'Save title' }).click();
      const card = appCard(page, COUNTER_TITLE);
      await expectVisible(card, { what: 'the renamed card' });
      expectEqual(await card.locator('dd').first().textContent(), address, 'the address after renaming');
      await expectText(card, '(not published)');
      await card.getByRole('button', { name: `Preview ${COUNTER_TITLE}` }).click();
      const frameElement = page.locator(`iframe[title="Preview of ${COUNTER_TITLE}"]`);
      await expectVisible(frameElement, { what: 'the preview frame' });
      expectEqual(await frameElement.getAttribute('sandbox'), SANDBOX, 'the preview frame’s sandbox');
      const preview = page.frameLocator(`iframe[title="Preview of ${COUNTER_TITLE}"]`);
      await expectText(preview.locator('#status'), 'JavaScript is running.');
      await preview.getByRole('button', { name: 'Add one' }).click();
      await preview.getByRole('button', { name: 'Add one' }).click();
      await expectText(preview.locator('#count'), '2');

      // An edit, then its undo.
      await card.getByLabel('Change', { exact: true }).fill('Make it green');
      await card.getByRole('button', { name: `Apply change to ${COUNTER_TITLE}` }).click();
      await expectText(card.locator('dd').nth(2), '2', { timeout: 20_000 });
      await expectText(preview.locator('#revisions'), 'Make it green');
      await card.getByRole('button', { name: `Undo last edit of ${COUNTER_TITLE}` }).click();
      await expectText(card.locator('dd').nth(2), '1');
      await expectText(preview.locator('#status'), 'JavaScript is running.');
      expectEqual(await preview.locator('#revisions li').count(), 0, 'the revisions listed after the undo');

      await card.getByRole('button', { name: `Publish ${COUNTER_TITLE}` }).click();
      await expectText(card, 'Published');
      const link = card.getByRole('link', { name: new RegExp(`/s/${HANDLE}/`) });
      await expectVisible(link, { what: 'the public address of the app' });
      state.counterUrl = await link.getAttribute('href');
      expectEqual(await link.getAttribute('rel'), 'noopener noreferrer', 'the rel of the public address link');
    },
  },
  {
    name: 'another browser, never signed in, opens the public profile and the app runs there and on its own origin',
    async run({ newPage, baseUrl, spacesUrl }) {
      if (!state.counterUrl) throw new Error('the previous test did not publish an app');
      if (!state.counterUrl.startsWith(`${spacesUrl}/s/`))
        throw new Error(`expected the app on the apps' origin ${spacesUrl}, got ${state.counterUrl}`);
      const page = await newPage();
      await page.goto(`/u/${HANDLE}`);
      await expectVisible(page.getByRole('heading', { level: 1, name: `${user.name} (@${HANDLE})` }));
      await expectVisible(page.getByRole('heading', { level: 2, name: COUNTER_TITLE }));
      expectEqual(
        await page.getByRole('link', { name: 'Manage your apps' }).count(),
        0,
        'the owner link for a visitor',
      );
      // The live frame loads the hosted page itself: the dashboard is allowed to frame it.
      const framed = page.frameLocator(`iframe[title="${COUNTER_TITLE}"]`);
      await expectText(framed.locator('#status'), 'JavaScript is running.');

      // Its old address on the dashboard's host leads to the apps' origin.
      const response = await page.goto(baseUrl + new URL(state.counterUrl).pathname);
      expectEqual(page.url(), state.counterUrl, 'where the dashboard host’s /s/ address leads');
      expectEqual(response.status(), 200, 'the status of the hosted app');
      const csp = response.headers()['content-security-policy'] ?? '';
      if (
        !csp.endsWith(`; sandbox ${SANDBOX}`) ||
        !csp.includes("connect-src 'none'") ||
        !csp.includes("form-action 'none'")
      )
        throw new Error(
          `expected the hosted app to be sandboxed with no requests allowed, got CSP ${JSON.stringify(csp)}`,
        );
      await expectText(page.locator('#status'), 'JavaScript is running.');
      await page.getByRole('button', { name: 'Add one' }).click();
      await expectText(page.locator('#count'), '1');
      expectEqual(await page.evaluate(() => window.origin), 'null', 'the origin the hosted app runs in');
    },
  },
  {
    name: 'a hosted page cannot read the dashboard’s cookies or storage, call its API, open a popup, move the top window or post a form',
    async run({ newPage, baseUrl, spacesUrl, serverLog }) {
      const page = await newPage();
      await signInThrough(page, user, '/spaces');
      // What there is to steal, seen from the dashboard itself: a readable cookie, storage, the account.
      await page.evaluate(() => {
        localStorage.setItem('sy-secret', 'dashboard storage');
        sessionStorage.setItem('sy-secret', 'dashboard session storage');
      });
      const visible = await page.evaluate(async () => ({
        cookie: document.cookie,
        me: await fetch('/api/v1/auth/me', { credentials: 'include' }).then((r) => r.text()),
      }));
      if (!visible.cookie.includes('sy_csrf=') || !visible.me.includes(user.email))
        throw new Error(`expected the dashboard itself to see its cookie and account, got ${JSON.stringify(visible)}`);

      // In the preview (the owner's page, shown on the apps' origin): nothing to read, nothing to aim at.
      const card = await generate(page, PROBE_PROMPT, PROBE_TITLE);
      await card.getByRole('button', { name: `Preview ${PROBE_TITLE}` }).click();
      const inPreview = await probeFindings(page.frameLocator(`iframe[title="Preview of ${PROBE_TITLE}"]`));
      for (const id of READ_PROBES) {
        if (!inPreview[id].startsWith('blocked'))
          throw new Error(`expected ${id} to be blocked in the preview, got ${JSON.stringify(inPreview[id])}`);
      }
      for (const id of ACT_PROBES)
        expectEqual(inPreview[id], 'not tried (no #target= in the address)', `${id} in the preview`);

      await card.getByRole('button', { name: `Publish ${PROBE_TITLE}` }).click();
      const link = card.getByRole('link', { name: new RegExp(`/s/${HANDLE}/`) });
      await expectVisible(link, { what: 'the public address of the probe' });
      state.probeUrl = await link.getAttribute('href');
      if (!state.probeUrl.startsWith(`${spacesUrl}/s/`))
        throw new Error(`expected the app on the apps' origin ${spacesUrl}, got ${state.probeUrl}`);
      const attackUrl = `${state.probeUrl}#target=${encodeURIComponent(baseUrl)}`;

      // From here on: what hosted pages sent to the dashboard's origin, the popups they opened, what the API got.
      const logMark = serverLog().length;
      const leaked = [];
      page.context().on('request', (request) => {
        let from;
        try {
          from = request.frame().url();
        } catch {
          from = '(no frame)';
        }
        // A request to the dashboard's origin made by a document on the apps' origin (a moved top window shows in
        // the dashboard page's address, a popup in `popups`).
        if (request.url().startsWith(baseUrl) && from.startsWith(spacesUrl))
          leaked.push(`${request.method()} ${request.url()} from ${from}`);
      });
      const popups = [];

      // 1. Opened on its own in the owner's signed-in browser: the cookies of this host travel to the apps' port.
      const alone = await page.context().newPage();
      alone.on('popup', (popup) => popups.push(popup.url()));
      await alone.goto(attackUrl);
      const aloneFound = await probeFindings(alone);
      expectEqual(
        aloneFound['probe-parent'],
        'none (not in a frame)',
        'what the hosted probe says about a parent page',
      );
      expectEqual(
        aloneFound['probe-top'],
        'not tried (this page is the top window)',
        'the top-window probe of the page on its own',
      );
      for (const id of [
        'probe-cookie',
        'probe-local',
        'probe-session',
        'probe-account',
        'probe-popup',
        'probe-form',
        'probe-site',
      ]) {
        if (!aloneFound[id].startsWith('blocked'))
          throw new Error(`expected ${id} to be blocked on the hosted page, got ${JSON.stringify(aloneFound[id])}`);
      }
      expectEqual(await alone.evaluate(() => window.origin), 'null', 'the origin the hosted probe runs in');
      expectEqual(alone.url(), attackUrl, 'the hosted page’s address after the form post');

      // 2. Framed inside a dashboard page by a frame with no sandbox attribute: the page's headers alone hold.
      const dashboard = await page.context().newPage();
      dashboard.on('popup', (popup) => popups.push(popup.url()));
      await dashboard.goto(`/u/${HANDLE}`);
      await expectVisible(dashboard.getByRole('heading', { level: 2, name: PROBE_TITLE }));
      await dashboard.evaluate((src) => {
        const frame = document.createElement('iframe');
        frame.id = 'attack';
        frame.src = src;
        document.body.append(frame);
      }, attackUrl);
      const framedFound = await probeFindings(dashboard.frameLocator('#attack'));
      for (const id of [...READ_PROBES, ...ACT_PROBES]) {
        if (!framedFound[id].startsWith('blocked'))
          throw new Error(
            `expected ${id} to be blocked in a frame on the dashboard, got ${JSON.stringify(framedFound[id])}`,
          );
      }
      expectEqual(
        dashboard.url(),
        `${baseUrl}/u/${HANDLE}`,
        'the dashboard page’s address after the framed probe tried to move it',
      );

      expectEqual(popups.length, 0, 'the popups a hosted page opened');
      if (leaked.length)
        throw new Error(`a hosted page sent requests to the dashboard's origin:\n${leaked.join('\n')}`);
      const received = serverLog().slice(logMark);
      for (const path of ['/oauth2/authorize', '/api/v1/spaces/sandbox-inspector-form']) {
        if (received.includes(path))
          throw new Error(`the API received ${path} while the hosted probes ran:\n${received}`);
      }
      const everything = (await alone.content()) + JSON.stringify([inPreview, framedFound]);
      for (const secret of [user.email, 'dashboard storage', visible.cookie.split('sy_csrf=')[1].split(';')[0]]) {
        if (everything.includes(secret)) throw new Error(`a sandboxed page got hold of ${JSON.stringify(secret)}`);
      }
    },
  },
  {
    name: 'another site cannot frame a hosted app',
    async run({ newPage, baseUrl, spacesUrl }) {
      if (!state.probeUrl) throw new Error('the previous test did not publish the probe');
      // frame-ancestors names the dashboard only.
      const framer = await framingServer();
      try {
        const outsider = await newPage();
        await outsider.goto(`${framer.origin}/?target=${encodeURIComponent(state.probeUrl)}`, { waitUntil: 'load' });
        const frame = outsider.frames().find((candidate) => candidate !== outsider.mainFrame());
        if (!frame) throw new Error('expected the framing page to have a child frame');
        // Chromium swaps a refused frame for its error page (chrome-error://chromewebdata/).
        if (frame.url().startsWith(spacesUrl) || frame.url().startsWith(baseUrl))
          throw new Error(`expected another site's frame of the app to be refused, but it shows ${frame.url()}`);
        expectEqual(
          await frame
            .locator('#probe-cookie')
            .count()
            .catch(() => 0),
          0,
          'the probe elements inside a frame on another site',
        );
      } finally {
        framer.close();
      }
    },
  },
];
