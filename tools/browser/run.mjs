#!/usr/bin/env node
// Browser tests: start the built API (which serves the built dashboard) on a free port with a throw-away data
// directory, drive Debian's Chromium through playwright-core, and run every tools/browser/specs/*.mjs.
//
//   npm run build && node tools/browser/run.mjs [name filter]
//
// A spec module exports either `name` + `async run(ctx)`, or `tests = [{ name, run }]` (run in order, so later
// tests may rely on state kept by earlier ones in the same module). `ctx` is:
//   { browser, baseUrl, spacesUrl, exampleUrl, newPage(options?), admin: { email, password }, serverLog(), dataDir }
// `admin` is the account the API creates at start (ADMIN_EMAIL / ADMIN_PASSWORD), for specs that need the role.
// `dataDir` is the API's DATA_DIR: without SMTP_URL its mail lands in dataDir/mail as .eml files (docs/mail.md).
// `spacesUrl` is SPACES_ORIGIN (localhost, as the API derives it from a loopback PUBLIC_URL), the spaces host
// whose subdomains `{handle}--{slug}.localhost` are the published apps' own origins (Chromium resolves them). `exampleUrl` is the example chat app the API serves on EXAMPLE_PORT (docs/sdk.md), addressed as
// localhost so that its origin differs from the dashboard's in host as well as port. `serverLog()` is the API's output so far (one access line per request: what the API received).
// Use `ctx.newPage()`: it opens a new page in a context of its own (no cookies, no storage) with bounded default
// timeouts, and the runner screenshots it on failure and closes it afterwards. Every wait here is bounded.
// Contexts are pooled (one pool per set of options): a test's context is one an earlier test used, its cookies,
// storage and permissions reset, its pages closed but one blank page the runner keeps on the dashboard's site. A new
// context and its first page cost Chromium about 0.7 s of CPU, a pooled one a third of that, and a pass opens about
// a hundred (issue 27, docs/architecture.md "Tests"). Two newPage() calls of one test never share a context.
// The dashboard runs under its Content-Security-Policy: a test fails when a page of the dashboard's origin reports
// a violation of it (hosted apps' own violations, in their opaque origin, are theirs to report).
//
// Env: CHROMIUM_PATH (default /usr/bin/chromium), DATABASE_URL (passed through to the API),
//      BROWSER_TEST_VERBOSE=1 (stream the API's log).

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { chromium } from 'playwright-core';

const here = dirname(fileURLToPath(import.meta.url));
const repoRoot = join(here, '..', '..');
const specsDir = join(here, 'specs');
const artifactsDir = join(here, 'artifacts');
const apiEntry = join(repoRoot, 'apps', 'api', 'dist', 'main.js');
const dashboardIndex = join(repoRoot, 'apps', 'dashboard', 'dist', 'index.html');

const READY_TIMEOUT_MS = 60_000;
const TEST_TIMEOUT_MS = 60_000;
const ACTION_TIMEOUT_MS = 10_000;
const NAVIGATION_TIMEOUT_MS = 20_000;
const SHUTDOWN_TIMEOUT_MS = 5_000;
const verbose = process.env.BROWSER_TEST_VERBOSE === '1';
const filter = process.argv[2] ?? '';

const ADMIN = { email: 'browser-admin@example.com', password: `browser admin ${process.pid} password` };

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-quic',
  '--no-first-run',
  '--disable-component-update',
  '--disable-sync',
  // Pages of one site share a renderer process (the pooled contexts' kept pages hold the dashboard's open).
  '--process-per-site',
];

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves with `promise`, or rejects after `ms` with a message naming what took too long. */
function withTimeout(promise, ms, what) {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Keeps the API's output: the last lines for failure reports, all of it for artifacts/server.log. */
function createLog() {
  const chunks = [];
  return {
    push(chunk) {
      chunks.push(chunk);
      if (verbose) process.stderr.write(chunk);
    },
    text: () => Buffer.concat(chunks).toString('utf8'),
    tail(lines = 40) {
      return this.text().trimEnd().split('\n').slice(-lines).join('\n');
    },
  };
}

function startApi({ port, spacesPort, examplePort, dataDir, log }) {
  const env = {
    ...process.env, // includes DATABASE_URL when set
    PORT: String(port),
    SPACES_PORT: String(spacesPort),
    EXAMPLE_PORT: String(examplePort),
    HOST: '127.0.0.1',
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    // Every spec signs in from 127.0.0.1: the per-address sign-in limit (tested in the API's own suites) would
    // stop a long run. And counters of earlier runs in a shared Redis must not count against this one.
    AUTH_RATE_LIMIT_PER_IP: '100000',
    REDIS_PREFIX: `sy-browser-${process.pid}-${Date.now().toString(36)}:`,
    // No hold on makers' earnings, so the earnings walk can move what its calls earned (docs/earnings.md).
    EARNINGS_HOLD_DAYS: '0',
  };
  const child = spawn(process.execPath, [apiEntry], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout.on('data', (chunk) => log.push(chunk));
  child.stderr.on('data', (chunk) => log.push(chunk));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
  return { child, exited };
}

async function waitForReady(baseUrl, api) {
  const deadline = Date.now() + READY_TIMEOUT_MS;
  let exit = null;
  void api.exited.then((result) => {
    exit = result;
  });
  let last = 'no answer yet';
  while (Date.now() < deadline) {
    if (exit) throw new Error(`the API exited before it was ready (code ${exit.code}, signal ${exit.signal})`);
    try {
      const response = await fetch(`${baseUrl}/readyz`, { signal: AbortSignal.timeout(2_000) });
      if (response.status === 200) return;
      last = `GET /readyz answered ${response.status}`;
    } catch (error) {
      last = error.cause?.code ?? error.message;
    }
    await sleep(250);
  }
  throw new Error(`the API was not ready within ${READY_TIMEOUT_MS / 1000} s (${last})`);
}

async function stopApi(api) {
  if (api.child.exitCode !== null || api.child.signalCode !== null) return;
  api.child.kill('SIGTERM');
  const stopped = await Promise.race([api.exited.then(() => true), sleep(SHUTDOWN_TIMEOUT_MS).then(() => false)]);
  if (!stopped) {
    api.child.kill('SIGKILL');
    await Promise.race([api.exited, sleep(SHUTDOWN_TIMEOUT_MS)]);
  }
}

async function loadTests() {
  const files = (await readdir(specsDir)).filter((file) => file.endsWith('.mjs')).sort();
  const tests = [];
  for (const file of files) {
    const mod = await import(pathToFileURL(join(specsDir, file)).href);
    const moduleName = mod.name ?? file.replace(/\.mjs$/, '');
    if (Array.isArray(mod.tests)) {
      for (const test of mod.tests) tests.push({ name: `${moduleName} › ${test.name}`, run: test.run });
    } else if (typeof mod.run === 'function') {
      tests.push({ name: moduleName, run: mod.run });
    } else {
      throw new Error(`${relative(repoRoot, join(specsDir, file))} exports neither run() nor tests[]`);
    }
  }
  return filter ? tests.filter((test) => test.name.includes(filter)) : tests;
}

function slug(text) {
  return text
    .replace(/[^a-z0-9]+/gi, '-')
    .replace(/^-|-$/g, '')
    .toLowerCase()
    .slice(0, 80);
}

function firstLine(error) {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n').filter(Boolean).slice(0, 6).join('\n      ');
}

const CSP_MARK = 'switchyard-browser-test: CSP violation';

/** Reports every CSP violation of any frame to the console, with the origin of the document that made it. */
function reportCspViolations(mark) {
  addEventListener('securitypolicyviolation', (event) =>
    console.error(
      `${mark} ${JSON.stringify({ origin: location.origin, directive: event.effectiveDirective, blocked: event.blockedURI })}`,
    ),
  );
}

/**
 * Contexts kept from test to test, one pool per set of newPage() options. Each keeps a page of its own open on the
 * dashboard's site (GET /healthz), so that the renderer process for that site outlives the test's pages and the next
 * test's pages join it (--process-per-site) rather than start one. Between tests a context is reset: every page but
 * that one closed, its cookies and permissions cleared (the options' permissions granted again), and every origin its
 * pages reached cleared of its storage (local storage, IndexedDB, cache storage, service workers); sessionStorage
 * belongs to a page, and each test's pages are new. A context whose reset fails is closed and not kept.
 */
function createContextPool(browser, baseUrl) {
  const idle = new Map(); // options key -> [{ key, context, options, keeper, cdp, origins }]

  async function create(key, options) {
    const context = await browser.newContext({ baseURL: baseUrl, ...options });
    context.setDefaultTimeout(ACTION_TIMEOUT_MS);
    context.setDefaultNavigationTimeout(NAVIGATION_TIMEOUT_MS);
    await context.addInitScript(reportCspViolations, CSP_MARK);
    const entry = { key, context, options, origins: new Set(), keeper: null, cdp: null };
    context.on('request', (request) => {
      const url = request.url();
      if (url.startsWith('http')) entry.origins.add(new URL(url).origin);
    });
    entry.keeper = await context.newPage();
    await entry.keeper.goto(`${baseUrl}/healthz`);
    entry.cdp = await context.newCDPSession(entry.keeper);
    return entry;
  }

  async function reset(entry) {
    const { context, keeper, cdp, options } = entry;
    await Promise.all(
      context
        .pages()
        .filter((page) => page !== keeper)
        .map((page) => page.close()),
    );
    await context.clearCookies();
    await context.clearPermissions();
    if (options.permissions) await context.grantPermissions(options.permissions);
    for (const origin of entry.origins) {
      await cdp.send('Storage.clearDataForOrigin', {
        origin,
        storageTypes: 'local_storage,indexeddb,cache_storage,service_workers,file_systems,websql',
      });
    }
    entry.origins.clear();
  }

  return {
    /** A context for one test's newPage(options): an idle pooled one, or a new one. */
    async lease(options) {
      const key = JSON.stringify(options);
      return idle.get(key)?.pop() ?? (await create(key, options));
    },
    /**
     * Resets a context the test is done with and keeps it for the next. A failed test's contexts are closed instead
     * (what it left running must not reach the next test), as is one whose reset fails.
     */
    async release(entry, { keep }) {
      const kept =
        keep &&
        (await withTimeout(reset(entry), 5_000, 'resetting a context').then(
          () => true,
          () => false,
        ));
      if (kept) {
        if (!idle.has(entry.key)) idle.set(entry.key, []);
        idle.get(entry.key).push(entry);
      } else {
        await withTimeout(entry.context.close(), 5_000, 'closing a context').catch(() => {});
      }
    },
  };
}

async function runTest(test, { browser, pool, baseUrl, spacesUrl, exampleUrl, log, dataDir }) {
  const leased = [];
  const pageErrors = [];
  const dashboardViolations = [];
  const watch = (page) => {
    page.on('pageerror', (error) => pageErrors.push(`page error: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() !== 'error') return;
      const text = message.text();
      pageErrors.push(`console error: ${text}`);
      if (text.startsWith(CSP_MARK) && JSON.parse(text.slice(CSP_MARK.length)).origin === new URL(baseUrl).origin)
        dashboardViolations.push(text);
    });
  };
  const ctx = {
    browser,
    baseUrl,
    spacesUrl,
    exampleUrl,
    admin: ADMIN,
    dataDir,
    serverLog: () => log.text(),
    async newPage(options = {}) {
      const entry = await pool.lease(options);
      entry.context.on('page', watch);
      leased.push(entry);
      return entry.context.newPage();
    },
  };

  const started = Date.now();
  let failure = null;
  try {
    await withTimeout(
      Promise.resolve().then(() => test.run(ctx)),
      TEST_TIMEOUT_MS,
      'the test',
    );
    if (dashboardViolations.length)
      throw new Error(
        `the dashboard violated its Content-Security-Policy:\n${dashboardViolations.slice(0, 5).join('\n')}`,
      );
  } catch (error) {
    failure = error;
  }

  const screenshots = [];
  if (failure) {
    await mkdir(artifactsDir, { recursive: true });
    let index = 0;
    for (const { context, keeper } of leased) {
      for (const page of context.pages().filter((open) => open !== keeper)) {
        const file = join(artifactsDir, `${slug(test.name)}${index ? `-${index}` : ''}.png`);
        index += 1;
        try {
          await withTimeout(page.screenshot({ path: file, fullPage: true, timeout: 5_000 }), 7_000, 'screenshot');
          screenshots.push(`${relative(repoRoot, file)} (${page.url()})`);
        } catch {
          // The page may already be gone; the error itself is what matters.
        }
      }
    }
  }
  for (const entry of leased) entry.context.off('page', watch);
  await Promise.all(leased.map((entry) => pool.release(entry, { keep: !failure })));
  return { failure, ms: Date.now() - started, screenshots, pageErrors };
}

async function main() {
  for (const [file, fix] of [
    [apiEntry, 'run `npm run build` first'],
    [dashboardIndex, 'run `npm run build` first'],
  ]) {
    if (!existsSync(file)) {
      console.error(`Missing ${relative(repoRoot, file)}: ${fix}.`);
      return 1;
    }
  }
  const executablePath = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
  if (!existsSync(executablePath)) {
    console.error(
      `No Chromium at ${executablePath}: apt-get install -y --no-install-recommends chromium, or set CHROMIUM_PATH.`,
    );
    return 1;
  }

  const tests = await loadTests();
  if (tests.length === 0) {
    console.error(filter ? `No test matches "${filter}".` : `No specs in ${relative(repoRoot, specsDir)}.`);
    return 1;
  }

  const port = await freePort();
  let spacesPort = await freePort();
  while (spacesPort === port) spacesPort = await freePort();
  let examplePort = await freePort();
  while (examplePort === port || examplePort === spacesPort) examplePort = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const spacesUrl = `http://localhost:${spacesPort}`;
  const exampleUrl = `http://localhost:${examplePort}`;
  const dataDir = await mkdtemp(join(tmpdir(), 'switchyard-browser-'));
  const log = createLog();
  let api = null;
  let browser = null;
  let passed = 0;
  let failed = 0;

  const cleanup = async () => {
    if (browser) await withTimeout(browser.close(), SHUTDOWN_TIMEOUT_MS, 'closing Chromium').catch(() => {});
    if (api) await stopApi(api);
    await rm(dataDir, { recursive: true, force: true, maxRetries: 3 }).catch(() => {});
  };
  const onSignal = (signal) => {
    console.error(`\n${signal}: stopping`);
    void cleanup().finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);

  try {
    api = startApi({ port, spacesPort, examplePort, dataDir, log });
    const startedAt = Date.now();
    await waitForReady(baseUrl, api);
    console.log(
      `API ready at ${baseUrl} (space apps at ${spacesUrl}) in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    );

    browser = await withTimeout(
      chromium.launch({ executablePath, args: CHROMIUM_ARGS, timeout: 30_000 }),
      35_000,
      'launching Chromium',
    );

    const pool = createContextPool(browser, baseUrl);
    for (const test of tests) {
      const result = await runTest(test, { browser, pool, baseUrl, spacesUrl, exampleUrl, log, dataDir });
      if (!result.failure) {
        passed += 1;
        console.log(`✓ ${test.name} (${result.ms} ms)`);
        continue;
      }
      failed += 1;
      console.log(`✗ ${test.name} (${result.ms} ms)\n      ${firstLine(result.failure)}`);
      for (const shot of result.screenshots) console.log(`      screenshot: ${shot}`);
      for (const line of result.pageErrors.slice(0, 5)) console.log(`      ${line}`);
    }
  } catch (error) {
    failed += 1;
    console.log(`✗ setup: ${firstLine(error)}`);
    console.log(`--- last lines of the API's output ---\n${log.tail()}\n---`);
  } finally {
    await cleanup();
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }

  if (failed > 0) {
    await mkdir(artifactsDir, { recursive: true });
    await writeFile(join(artifactsDir, 'server.log'), log.text());
    console.log(`API log: ${relative(repoRoot, join(artifactsDir, 'server.log'))}`);
  }
  console.log(`${passed} passed, ${failed} failed`);
  return failed > 0 ? 1 : 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
