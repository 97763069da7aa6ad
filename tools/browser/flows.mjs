// Steps several specs take the same way. Each waits at most the expectations' bounded timeouts.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { expectEqual, expectPath, expectText } from './expect.mjs';

/** Creates an account through the registration form; the page lands on the overview, signed in. */
export async function registerThroughForm(page, user) {
  await page.goto('/register');
  await page.getByLabel('Name').fill(user.name);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await expectPath(page, '/');
}

/** Opens a signed-in page while signed out: the sign-in form comes first, then the page itself. */
export async function signInThrough(page, account, path) {
  await page.goto(path);
  await expectPath(page, `/signin?next=${encodeURIComponent(path)}`);
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expectPath(page, path);
}

/**
 * Records every length the Playground's last reply passes through (a stream grows in steps, a plain answer appears
 * at once); `replyLengths(page)` answers them. Call it before sending.
 */
export async function recordReplyLengths(page) {
  await page.evaluate(() => {
    window.__replyLengths = [];
    const log = document.querySelector('.chat-log');
    new MutationObserver(() => {
      const reply = log.querySelector('.chat-turn-assistant:last-child .chat-text');
      const length = reply?.textContent?.length ?? 0;
      if (length > 0 && window.__replyLengths.at(-1) !== length) window.__replyLengths.push(length);
    }).observe(log, { subtree: true, childList: true, characterData: true });
  });
}

export function replyLengths(page) {
  return page.evaluate(() => window.__replyLengths);
}

/**
 * Sends `text` in the Playground's chat and waits for the reply ("You said: …" and its cost line); answers the
 * lengths it rendered through (recordReplyLengths).
 */
export async function sendChat(page, text) {
  await page.getByRole('textbox', { name: 'Message' }).fill(text);
  await recordReplyLengths(page);
  await page.getByRole('button', { name: 'Send' }).click();
  const reply = page.locator('.chat-turn-assistant').last();
  await expectText(reply, `You said: "${text}"`);
  await expectText(reply, 'tokens · $0.000');
  return replyLengths(page);
}

/**
 * The demo streams a short reply in about 250 ms; on a loaded machine (CI runs two browsers and two servers at
 * once) the page may sleep through all of it, read the stream at once and render it once. While the last reply
 * rendered in one step, this sends `text` again (in a fresh conversation when `clear`), up to three chats in all,
 * and fails when none streamed in steps. Answers how many chats were sent, the first included.
 */
export async function expectStreamedInSteps(page, text, { clear = false } = {}) {
  let calls = 1;
  let lengths = await replyLengths(page);
  while (lengths.length < 2 && calls < 3) {
    calls += 1;
    if (clear) await page.getByRole('button', { name: 'Clear conversation' }).click();
    lengths = await sendChat(page, `${text} (again, ${calls})`);
  }
  if (lengths.length < 2)
    throw new Error(`expected the reply to stream in several steps, saw lengths ${JSON.stringify(lengths)}`);
  return calls;
}

/** Goes to a section through the nav, opening the Menu first on a phone (where the sections are behind it). */
export async function goToSection(page, label) {
  const menu = page.getByRole('button', { name: 'Menu', exact: true });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: label, exact: true }).click();
}

/** An OAuth app's callback on a free port: answers "done" and hands over the query it got (`query`, a promise). */
export async function appCallback() {
  let resolveQuery;
  const query = new Promise((resolve) => (resolveQuery = resolve));
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname === '/callback') resolveQuery(Object.fromEntries(url.searchParams));
    res.writeHead(200, { 'content-type': 'text/plain' }).end('done');
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  server.unref();
  return { redirectUri: `http://127.0.0.1:${server.address().port}/callback`, query, close: () => server.close() };
}

/**
 * An app's sign-in with PKCE, up to its consent page: opens the authorize URL signed out and signs `account` in.
 * Answers `allow()`, which clicks Allow, checks the state at `callback` and answers the token endpoint's JSON.
 */
export async function reachConsent(page, { baseUrl, clientId, callback, account }) {
  const verifier = randomBytes(32).toString('base64url');
  const state = randomBytes(8).toString('hex');
  await page.goto(
    `/oauth2/authorize?${new URLSearchParams({
      client_id: clientId,
      redirect_uri: callback.redirectUri,
      response_type: 'code',
      scope: 'api:access',
      state,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'),
      code_challenge_method: 'S256',
    })}`,
  );
  await expectPath(page, (url) => url.pathname === '/signin');
  await page.getByLabel('Email').fill(account.email);
  await page.getByLabel('Password').fill(account.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expectPath(page, (url) => url.pathname === '/consent');
  return {
    async allow() {
      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      const answer = await callback.query;
      callback.close();
      expectEqual(answer.state, state, 'the state at the callback');
      const response = await fetch(`${baseUrl}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: answer.code,
          code_verifier: verifier,
          redirect_uri: callback.redirectUri,
          client_id: clientId,
        }),
        signal: AbortSignal.timeout(10_000),
      });
      return response.json();
    },
  };
}
