// Spaces through the dashboard (issue 7, issue 31), on the demo provider: a new user claims a handle (checked as
// they type), describes an app, watches it being written, sees it run in the sandboxed preview, publishes it, and a
// second browser (never signed in) opens the public profile and the app on its own origin ({handle}--{slug}. the
// spaces host). Then the isolation proof (docs/spaces.md): the demo's sandbox inspector, published and given a third
// origin as #target=, tries to read cookies and storage, fetch its own origin's API and the target with
// credentials, open a popup, and post a form, and writes what happened into its own DOM. On its own origin it finds
// none of the dashboard's cookies or storage, every request off the gateway and every form is blocked, and the
// target received no request from it but the popup's navigation (which no policy can stop: docs/spaces.md). In the
// preview every probe is blocked. Nobody can frame an app: not the dashboard, not another site.
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
const APP_SANDBOX = 'allow-scripts allow-same-origin allow-popups allow-popups-to-escape-sandbox';

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

/** A server on a third origin that records every request it gets. */
async function recordingServer() {
  const hits = [];
  const server = createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    res.writeHead(200, { 'access-control-allow-origin': '*', 'content-type': 'text/plain' });
    res.end('reached');
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  server.unref();
  return { origin: `http://127.0.0.1:${server.address().port}`, hits, close: () => server.close() };
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
      const link = card.getByRole('link', { name: new RegExp(`^http://${HANDLE}--`) });
      await expectVisible(link, { what: 'the public address of the app' });
      state.counterUrl = await link.getAttribute('href');
      expectEqual(await link.getAttribute('rel'), 'noopener noreferrer', 'the rel of the public address link');
    },
  },
  {
    name: 'another browser, never signed in, opens the public profile and the app on its own origin',
    async run({ newPage, baseUrl, spacesUrl }) {
      if (!state.counterUrl) throw new Error('the previous test did not publish an app');
      const appHost = new URL(state.counterUrl).host;
      if (!appHost.startsWith(`${HANDLE}--`) || !appHost.endsWith(`.${new URL(spacesUrl).host}`))
        throw new Error(`expected the app on its own origin under ${spacesUrl}, got ${state.counterUrl}`);
      const page = await newPage();
      await page.goto(`/u/${HANDLE}`);
      await expectVisible(page.getByRole('heading', { level: 1, name: `${user.name} (@${HANDLE})` }));
      await expectVisible(page.getByRole('heading', { level: 2, name: COUNTER_TITLE }));
      expectEqual(
        await page.getByRole('link', { name: 'Manage your apps' }).count(),
        0,
        'the owner link for a visitor',
      );
      // Apps are framed by nobody: the profile links to each one's origin.
      expectEqual(
        await page.getByRole('link', { name: `Open ${COUNTER_TITLE}` }).getAttribute('href'),
        state.counterUrl,
        'the profile’s link to the app',
      );

      // Its old address on the dashboard's host leads, through SPACES_ORIGIN, to the app's own origin.
      const slug = appHost.slice(HANDLE.length + 2).split('.')[0];
      const response = await page.goto(`${baseUrl}/s/${HANDLE}/${slug}`);
      expectEqual(page.url(), state.counterUrl, 'where the dashboard host’s /s/ address leads');
      expectEqual(response.status(), 200, 'the status of the hosted app');
      const csp = response.headers()['content-security-policy'] ?? '';
      if (
        !csp.endsWith(`; sandbox ${APP_SANDBOX}`) ||
        !csp.includes(`connect-src ${baseUrl};`) ||
        !csp.includes("form-action 'none'") ||
        !csp.includes("frame-ancestors 'none'")
      )
        throw new Error(`expected the app's origin policy, got CSP ${JSON.stringify(csp)}`);
      await expectText(page.locator('#status'), 'JavaScript is running.');
      await page.getByRole('button', { name: 'Add one' }).click();
      await expectText(page.locator('#count'), '1');
      expectEqual(await page.evaluate(() => window.origin), new URL(state.counterUrl).origin, 'the app’s origin');
    },
  },
  {
    name: 'a hosted page sees nothing of the dashboard’s and reaches no origin but the gateway’s',
    async run({ newPage, spacesUrl, serverLog }) {
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

      // In the preview (the owner's page, shown sandboxed on SPACES_ORIGIN): nothing to read, nothing to aim at.
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
      const link = card.getByRole('link', { name: new RegExp(`^http://${HANDLE}--`) });
      await expectVisible(link, { what: 'the public address of the probe' });
      state.probeUrl = await link.getAttribute('href');
      if (!new URL(state.probeUrl).host.endsWith(`.${new URL(spacesUrl).host}`))
        throw new Error(`expected the app on its own origin under ${spacesUrl}, got ${state.probeUrl}`);

      // A third origin that records what reaches it: the probe aims everything there.
      const target = await recordingServer();
      const logMark = serverLog().length;
      try {
        const alone = await page.context().newPage();
        const popups = [];
        alone.on('popup', (popup) => popups.push(popup));
        const attackUrl = `${state.probeUrl}#target=${encodeURIComponent(target.origin)}`;
        await alone.goto(attackUrl);
        const found = await probeFindings(alone);
        expectEqual(found['probe-parent'], 'none (not in a frame)', 'what the probe says about a parent page');
        expectEqual(found['probe-top'], 'not tried (this page is the top window)', 'the top-window probe');
        // Its own storage is its own: nothing of the dashboard's (host-only cookies, another origin's storage).
        for (const id of ['probe-cookie', 'probe-local', 'probe-session'])
          expectEqual(found[id], 'empty', `${id} on the app's own origin`);
        for (const id of ['probe-account', 'probe-form', 'probe-site']) {
          if (!found[id].startsWith('blocked'))
            throw new Error(`expected ${id} to be blocked on the app's origin, got ${JSON.stringify(found[id])}`);
        }
        // Popups are allowed (the kit's sign-in): a window is a visible navigation, not a request of the page.
        expectEqual(found['probe-popup'], 'opened a window', 'the popup probe');
        expectEqual(alone.url(), attackUrl, 'the app’s address after the form post');
        await alone.waitForTimeout(300);
        // The popup's own navigation (and its favicon) aside, nothing the page sent arrived.
        const fromPage = target.hits.filter((hit) => /\/api\/v1\//.test(hit));
        expectEqual(fromPage.length, 0, `requests of the page that reached another origin (${fromPage.join(', ')})`);
        const received = serverLog().slice(logMark);
        if (received.includes('/api/v1/spaces/sandbox-inspector-form'))
          throw new Error(`the API received the probe's form:\n${received}`);
        const everything = await alone.content();
        for (const secret of [user.email, 'dashboard storage', visible.cookie.split('sy_csrf=')[1].split(';')[0]]) {
          if (everything.includes(secret)) throw new Error(`a hosted page got hold of ${JSON.stringify(secret)}`);
        }
        for (const popup of popups) await popup.close().catch(() => undefined);
      } finally {
        target.close();
      }
    },
  },
  {
    name: 'nobody can frame a hosted app',
    async run({ newPage }) {
      if (!state.probeUrl) throw new Error('the previous test did not publish the probe');
      const framer = await framingServer();
      try {
        const outsider = await newPage();
        for (const url of [`${framer.origin}/?target=${encodeURIComponent(state.probeUrl)}`]) {
          await outsider.goto(url, { waitUntil: 'load' });
          const frame = outsider.frames().find((candidate) => candidate !== outsider.mainFrame());
          if (!frame) throw new Error('expected the framing page to have a child frame');
          // Chromium swaps a refused frame for its error page (chrome-error://chromewebdata/).
          if (frame.url().startsWith('http'))
            throw new Error(`expected the frame of the app to be refused, but it shows ${frame.url()}`);
        }
        // The dashboard's own policy frames SPACES_ORIGIN (the preview) only, and the app refuses every framer.
      } finally {
        framer.close();
      }
    },
  },
];
