// OAuth apps through the dashboard (issue 5): an app maker registers a confidential app on /apps (secret shown
// once); a user signs in through /oauth2/authorize, decides on the consent page (/consent) with a spending cap,
// and the app gets a code at its callback, exchanges it and calls the gateway; /authorized-apps shows and
// revokes the grant, after which the token is refused. Deny sends error=access_denied back with the state.
import { createHash, randomBytes } from 'node:crypto';
import { createServer } from 'node:http';

import { expectEqual, expectPath, expectText, expectVisible } from '../expect.mjs';

export const name = 'oauth';

const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
const user = {
  name: `OAuth Tester ${unique}`,
  email: `oauth-${unique}@example.com`,
  password: `correct horse ${unique}`,
};
const APP_NAME = `Notes App ${unique}`;
const SCOPE_WORDS = 'Call AI models for you, paid from your budget';
const CLIENT_ID_HEADER = 'X-Service-OAuth-Client-Id';
const MONTHLY_CAP = '5';

/** What the earlier tests learned; later tests in this module rely on it (the runner keeps the order). */
const state = { clientId: null, clientSecret: null, accessToken: null };

// --- the app's callback: a tiny server that records every query it receives --------------------------------

let callback = null;

/** Starts once per run; unref'd so it never keeps the runner alive. */
async function callbackServer() {
  if (callback) return callback;
  const received = [];
  const waiters = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://127.0.0.1');
    if (url.pathname === '/callback') {
      received.push(Object.fromEntries(url.searchParams));
      for (const waiter of waiters.splice(0)) waiter();
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('done');
      return;
    }
    if (url.pathname === '/frame') {
      // Another origin trying to show the consent page in a frame (clickjacking).
      const target = url.searchParams.get('target') ?? '';
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        `<!doctype html><title>frame</title><iframe id="victim" src="${target.replace(/"/g, '&quot;')}"></iframe>`,
      );
      return;
    }
    res.writeHead(404).end();
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  server.unref();
  const { port } = server.address();
  callback = {
    port,
    host: `127.0.0.1:${port}`,
    redirectUri: `http://127.0.0.1:${port}/callback`,
    origin: `http://127.0.0.1:${port}`,
    /** The first query received from now on whose `state` is `expectedState`. */
    async next(expectedState, timeout = 10_000) {
      const deadline = Date.now() + timeout;
      for (;;) {
        const hit = received.find((query) => query.state === expectedState);
        if (hit) return hit;
        if (Date.now() > deadline) {
          throw new Error(`expected the callback to receive state ${expectedState}; got ${JSON.stringify(received)}`);
        }
        await new Promise((resolve) => {
          const timer = setTimeout(resolve, 250);
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
    },
  };
  return callback;
}

// --- helpers ---------------------------------------------------------------------------------------------

/** RFC 7636 S256: a random verifier and base64url(sha256(verifier)). */
function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

function authorizePath({ clientId, redirectUri, challenge, stateValue, scope = 'api:access' }) {
  const query = new URLSearchParams({
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    scope,
    state: stateValue,
    code_challenge: challenge,
    code_challenge_method: 'S256',
  });
  return `/oauth2/authorize?${query}`;
}

async function signIn(page) {
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(user.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

function appCard(page, appName) {
  return page.getByRole('article', { name: appName, exact: true });
}

async function readJson(response) {
  const text = await response.text();
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function gatewayStatus(baseUrl, path, token, clientId, init = {}) {
  const response = await fetch(`${baseUrl}${path}`, {
    ...init,
    headers: { authorization: `Bearer ${token}`, [CLIENT_ID_HEADER]: clientId, ...init.headers },
    signal: AbortSignal.timeout(15_000),
  });
  const body = await readJson(response);
  return { status: response.status, body };
}

/** Signed out → /oauth2/authorize → sign-in with ?next → back through authorize to the consent page. */
async function reachConsent(page, baseUrl, authorize) {
  await page.goto(authorize);
  await expectPath(
    page,
    (url) => url.pathname === '/signin' && (url.searchParams.get('next') ?? '').startsWith('/oauth2/authorize?'),
  );
  const asked = new URL(authorize, baseUrl).searchParams;
  const next = new URL(new URL(page.url()).searchParams.get('next'), baseUrl);
  for (const [key, value] of asked)
    expectEqual(next.searchParams.get(key), value, `the ${key} in the sign-in page’s next`);
  await signIn(page);
  await expectPath(page, (url) => url.pathname === '/consent');
  const consentUrl = new URL(page.url());
  for (const [key, value] of asked) expectEqual(consentUrl.searchParams.get(key), value, `the consent page’s ${key}`);
  return consentUrl;
}

export const tests = [
  {
    name: 'a confidential app registered on /apps shows its secret once',
    async run({ newPage }) {
      const cb = await callbackServer();
      const page = await newPage({ permissions: ['clipboard-read', 'clipboard-write'] });
      await page.goto('/register');
      await page.getByLabel('Name').fill(user.name);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(user.password);
      await page.getByRole('button', { name: 'Create account' }).click();
      await expectPath(page, '/');

      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'OAuth apps' }).click();
      await expectPath(page, '/apps');
      await expectVisible(page.getByRole('heading', { name: 'OAuth apps', level: 1 }));
      await expectText(page.getByRole('main'), 'No OAuth apps yet.');

      // The form checks redirect URIs with the API's own rules before sending.
      await page.getByLabel('App name').fill(APP_NAME);
      await page.getByLabel('Redirect URIs').fill('http://example.com/callback');
      await page.getByRole('button', { name: 'Register app' }).click();
      await expectText(page.getByRole('main'), 'may use http only on a loopback address');
      await expectText(page.getByRole('main'), 'No OAuth apps yet.');

      await page.getByLabel('Redirect URIs').fill(cb.redirectUri);
      const apiScope = page.getByLabel('api:access');
      if (!(await apiScope.isChecked())) await apiScope.check();
      await page.getByLabel('Confidential app').check();
      await page.getByRole('button', { name: 'Register app' }).click();
      await expectText(page.getByRole('main'), "Copy the client secret now. You won't see it again.");

      // The panel of the app just registered (its card in the list below has a Client ID of its own).
      const registered = page.getByRole('group', { name: / registered$/ });
      const clientId = await registered.getByLabel('Client ID', { exact: true }).inputValue();
      const clientSecret = await registered.getByLabel('Client secret', { exact: true }).inputValue();
      if (!clientId) throw new Error('expected a client ID after registering');
      if (!clientSecret || clientSecret.length < 22)
        throw new Error(`expected a client secret, got ${JSON.stringify(clientSecret)}`);
      state.clientId = clientId;
      state.clientSecret = clientSecret;

      await page.getByRole('button', { name: 'Copy Client secret' }).click();
      await expectText(page.getByRole('main'), 'Copied to the clipboard.');
      expectEqual(await page.evaluate(() => navigator.clipboard.readText()), clientSecret, 'the clipboard');

      const card = appCard(page, APP_NAME);
      await expectVisible(card, { what: `the card of ${APP_NAME}` });
      expectEqual(await card.getByLabel('Client ID').inputValue(), clientId, 'the client ID on the card');
      await expectText(card, 'Confidential');
      await expectText(card, cb.redirectUri);
      await expectText(card, 'api:access');
      await expectText(card, 'Active');

      await page.getByRole('button', { name: 'Done' }).click();
      await page.getByLabel('Client secret', { exact: true }).waitFor({ state: 'detached', timeout: 10_000 });
      if ((await page.content()).includes(clientSecret))
        throw new Error('expected the secret to be gone from the page after Done');
      await page.reload();
      await expectVisible(appCard(page, APP_NAME));
      expectEqual(await appCard(page, APP_NAME).getByLabel('Client ID').inputValue(), clientId, 'the client ID');
      if ((await page.content()).includes(clientSecret))
        throw new Error('expected the secret to stay hidden after a reload');
      expectEqual(
        await page.evaluate(() => localStorage.length + sessionStorage.length),
        0,
        'the number of web storage entries',
      );
    },
  },
  {
    name: 'sign-in, then the consent page (not frameable) with a cap; Allow gives the app a code that works',
    async run({ newPage, baseUrl }) {
      if (!state.clientId) throw new Error('needs the app from the previous test');
      const cb = await callbackServer();
      const { verifier, challenge } = pkce();
      const stateValue = randomBytes(16).toString('base64url');
      const authorize = authorizePath({ clientId: state.clientId, redirectUri: cb.redirectUri, challenge, stateValue });

      const page = await newPage();
      const consentUrl = await reachConsent(page, baseUrl, authorize);

      // Refuses to be framed: the answer says so, and a page on another origin cannot show it. (Asked with the
      // page's own cookies rather than by reloading it: a reload racing the sign-in's last navigation can find
      // the page detached.)
      await page.waitForLoadState('load');
      const consentAnswer = await page.request.get(consentUrl.href);
      const headers = consentAnswer.headers();
      const xfo = (headers['x-frame-options'] ?? '').toUpperCase();
      const csp = headers['content-security-policy'] ?? '';
      if (xfo !== 'DENY' && !/frame-ancestors\s+'none'/.test(csp)) {
        throw new Error(
          `expected X-Frame-Options: DENY or frame-ancestors 'none' on /consent, got ${JSON.stringify({ xfo, csp })}`,
        );
      }

      const main = page.getByRole('main');
      await expectVisible(page.getByRole('heading', { level: 1, name: APP_NAME }), {
        what: 'the app name in the heading',
      });
      await expectText(main, `will redirect to ${cb.host}`);
      await expectText(main, SCOPE_WORDS);
      await expectVisible(page.getByRole('button', { name: 'Allow', exact: true }));
      await expectVisible(page.getByRole('button', { name: 'Deny', exact: true }));

      // Same browser context, so the session cookie would go along (same site): only the refusal stops it.
      const framer = await page.context().newPage();
      await framer.goto(`${cb.origin}/frame?target=${encodeURIComponent(consentUrl.href)}`, { waitUntil: 'load' });
      const framed = framer.frames().find((frame) => frame !== framer.mainFrame());
      if (!framed) throw new Error('expected the framing page to have a child frame');
      // Chromium swaps a refused frame for its error page (chrome-error://chromewebdata/).
      if (framed.url().startsWith(baseUrl))
        throw new Error(`expected the framed consent page to be refused, but the frame shows ${framed.url()}`);
      const framedButtons = await framed
        .getByRole('button', { name: 'Allow' })
        .count()
        .catch(() => 0);
      expectEqual(framedButtons, 0, 'the number of Allow buttons inside a frame on another origin');

      // An impossible cap is caught on the page; nothing is sent.
      await page.getByLabel('Monthly spending cap').fill('five');
      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      await expectText(main, 'Enter an amount');
      expectEqual(new URL(page.url()).pathname, '/consent', 'the path after an invalid cap');

      await page.getByLabel('Monthly spending cap').fill(MONTHLY_CAP);
      await page.getByRole('button', { name: 'Allow', exact: true }).click();
      const answer = await cb.next(stateValue);
      if (!answer.code) throw new Error(`expected a code at the callback, got ${JSON.stringify(answer)}`);
      expectEqual(answer.state, stateValue, 'the state at the callback');
      expectEqual(answer.iss, baseUrl, 'the iss at the callback (RFC 9207)');
      await expectPath(page, (url) => url.origin === cb.origin && url.pathname === '/callback');
      await expectText(page.locator('body'), 'done');

      // The app exchanges the code with the standard form body (client_secret_post).
      const tokenResponse = await fetch(`${baseUrl}/oauth2/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: answer.code,
          code_verifier: verifier,
          redirect_uri: cb.redirectUri,
          client_id: state.clientId,
          client_secret: state.clientSecret,
        }),
        signal: AbortSignal.timeout(10_000),
      });
      const tokens = await readJson(tokenResponse);
      expectEqual(tokenResponse.status, 200, `the token endpoint's status (${JSON.stringify(tokens)})`);
      if (typeof tokens.access_token !== 'string')
        throw new Error(`expected an access_token, got ${JSON.stringify(tokens)}`);
      state.accessToken = tokens.access_token;

      const chat = await gatewayStatus(baseUrl, '/v1/chat/completions', state.accessToken, state.clientId, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'demo-chat',
          messages: [{ role: 'user', content: 'Hello from an OAuth app' }],
          max_tokens: 16,
        }),
      });
      expectEqual(
        chat.status,
        200,
        `POST /v1/chat/completions with the app's token (${JSON.stringify(chat.body).slice(0, 300)})`,
      );
    },
  },
  {
    name: 'the app maker sees one authorized user and the usage; the user sees the cap and revokes; the token dies',
    async run({ newPage, baseUrl }) {
      if (!state.accessToken) throw new Error('needs the token from the previous test');
      const page = await newPage();
      await page.goto('/apps');
      await expectPath(page, '/signin?next=%2Fapps');
      await signIn(page);
      await expectPath(page, '/apps');

      const card = appCard(page, APP_NAME);
      await expectVisible(card, { what: `the card of ${APP_NAME}` });
      await expectText(card.locator('dt:text-is("Authorized users") + dd'), '1');
      // Settlements are batched: give the chat call a moment to show up (a reload refetches the usage).
      const deadline = Date.now() + 8_000;
      let requests;
      for (;;) {
        const shown = appCard(page, APP_NAME);
        await shown.getByRole('button', { name: `Show usage of ${APP_NAME}` }).click();
        const value = shown.locator('dt:text-is("Requests") + dd');
        await expectVisible(value, { what: 'the usage of the app' });
        requests = ((await value.textContent()) ?? '').trim();
        if (requests !== '0' || Date.now() > deadline) break;
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        await page.reload();
      }
      expectEqual(requests, '1', 'the requests in the usage of the app');
      await expectText(appCard(page, APP_NAME).locator('dt:text-is("Users") + dd'), '1');

      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Authorized apps' }).click();
      await expectPath(page, '/authorized-apps');
      const grant = appCard(page, APP_NAME);
      await expectVisible(grant, { what: `the authorized app ${APP_NAME}` });
      await expectText(grant, SCOPE_WORDS);
      await expectText(grant.locator('dt:text-is("Monthly cap") + dd'), '5.00');
      await expectText(grant.locator('dt:text-is("Maximum per request") + dd'), 'None');

      // Caps can be changed later.
      await grant.getByRole('button', { name: `Edit caps for ${APP_NAME}` }).click();
      await grant.getByLabel('Maximum per request').fill('0.5');
      await grant.getByRole('button', { name: 'Save caps' }).click();
      await expectText(grant.locator('dt:text-is("Maximum per request") + dd'), '0.50');
      await expectText(grant.locator('dt:text-is("Monthly cap") + dd'), '5.00');

      // Cancel leaves the grant alone; Revoke removes it.
      await grant.getByRole('button', { name: `Revoke ${APP_NAME}` }).click();
      await expectText(grant, `Revoke access for ${APP_NAME}?`);
      await grant.getByRole('button', { name: 'Cancel' }).click();
      await grant.getByRole('button', { name: `Revoke ${APP_NAME}` }).click();
      await grant.getByRole('button', { name: 'Revoke', exact: true }).click();
      await grant.waitFor({ state: 'detached', timeout: 10_000 }).catch(() => {
        throw new Error('expected the revoked app to leave the list');
      });
      await expectText(page.getByRole('main'), 'You have not authorized any apps.');

      const models = await gatewayStatus(baseUrl, '/v1/models', state.accessToken, state.clientId);
      expectEqual(models.status, 401, 'GET /v1/models with the token of a revoked grant');
    },
  },
  {
    name: 'Deny sends error=access_denied with the state; sign-in ignores a next on another origin',
    async run({ newPage }) {
      if (!state.clientId) throw new Error('needs the app from the first test');
      const cb = await callbackServer();

      // Only same-origin paths are followed after signing in.
      const page = await newPage();
      await page.goto(`/signin?next=${encodeURIComponent('//evil.example/steal')}`);
      await signIn(page);
      await expectPath(page, '/');

      // Already signed in, a sign-in link whose next is the authorize request offers to continue there.
      const { challenge } = pkce();
      const stateValue = randomBytes(16).toString('base64url');
      const authorize = authorizePath({ clientId: state.clientId, redirectUri: cb.redirectUri, challenge, stateValue });
      await page.goto(`/signin?next=${encodeURIComponent(authorize)}`);
      await expectText(page.getByRole('main'), `You are signed in as ${user.email}`);
      await page.getByRole('link', { name: 'Continue' }).click();
      await expectPath(page, (url) => url.pathname === '/consent' && url.searchParams.get('state') === stateValue);
      await expectVisible(page.getByRole('heading', { level: 1, name: APP_NAME }), {
        what: 'the app name in the heading',
      });
      await page.getByRole('button', { name: 'Deny', exact: true }).click();

      const answer = await cb.next(stateValue);
      expectEqual(answer.error, 'access_denied', 'the error at the callback');
      expectEqual(answer.state, stateValue, 'the state at the callback');
      if (answer.code) throw new Error('expected no code after Deny');
      await expectPath(page, (url) => url.origin === cb.origin && url.pathname === '/callback');
    },
  },
];
