// The two widths every new flow is checked at (desktop 1280×800, phone 390×844), and checks and helpers the
// browser specs share (where screenshots go: SCREENSHOT_DIR=docs/screenshots/dashboard refreshes the committed copies).
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const DEVICES = [
  { label: 'desktop', viewport: { width: 1280, height: 800 } },
  { label: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
];

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * The viewport to tools/browser/artifacts/screenshots/ (not committed), or to SCREENSHOT_DIR (docs/screenshots/dashboard),
 * from the top of the page unless `where` is 'here'.
 */
export async function screenshot(page, file, where = 'top') {
  const dir = process.env.SCREENSHOT_DIR
    ? join(repoRoot, process.env.SCREENSHOT_DIR)
    : join(repoRoot, 'tools', 'browser', 'artifacts', 'screenshots');
  await mkdir(dir, { recursive: true });
  if (where === 'top') await page.evaluate(() => window.scrollTo(0, 0));
  await page.screenshot({ path: join(dir, file) });
}

export async function noHorizontalScroll(page, what) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 1) throw new Error(`expected ${what} to fit the width, but it scrolls sideways by ${overflow}px`);
}

/** Waits until the main region shows no "Loading…" line. */
export async function loaded(page, what) {
  await page
    .waitForFunction(() => !document.querySelector('main')?.textContent?.includes('Loading'), undefined, {
      timeout: 10_000,
    })
    .catch(() => {
      throw new Error(`expected ${what} to finish loading`);
    });
}

/** The JSON API over fetch: `data` of the envelope, or an error naming the status and body. */
export async function api(baseUrl, path, { token, body, method } = {}) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: method ?? (body ? 'POST' : 'GET'),
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
    body: body ? JSON.stringify(body) : undefined,
    signal: AbortSignal.timeout(10_000),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json.data ?? json;
}

/** A new account made through the API: its credentials, session token and user id. */
export async function newAccount(baseUrl, prefix) {
  const unique = `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const account = {
    name: `${prefix} ${unique}`,
    email: `${prefix}-${unique}@example.com`,
    password: `horse ${unique}`,
  };
  const registered = await api(baseUrl, '/api/v1/auth/register', { body: account });
  return { ...account, token: registered.token, userId: registered.user.id };
}

/**
 * Whether the current section shows: its link inside the visible part of the nav, or, on a phone (where the sections
 * are behind the Menu button), its name in the bar above the page.
 */
export async function currentSectionInView(page) {
  return page.evaluate(() => {
    const list = document.querySelector('nav[aria-label="Sections"] ul');
    const current = list?.querySelector('[aria-current="page"]');
    if (!list || !current) return false;
    if (list.getClientRects().length === 0) {
      const bar = document.querySelector('.shell-current');
      return Boolean(bar?.getClientRects().length) && bar.textContent.trim() === current.textContent.trim();
    }
    const box = list.getBoundingClientRect();
    const link = current.getBoundingClientRect();
    return link.left >= box.left - 1 && link.right <= box.right + 1 && link.right <= window.innerWidth + 1;
  });
}

/** The tables on the page that scroll sideways inside their box (a phone's tables stack instead). */
export async function tablesInInnerScroll(page) {
  return page.evaluate(() =>
    [...document.querySelectorAll('main table')]
      .filter((table) => {
        const box = table.closest('.table-scroll') ?? table.parentElement;
        return table.getBoundingClientRect().width > box.clientWidth + 1 || box.scrollWidth > box.clientWidth + 1;
      })
      .map((table) => table.getAttribute('aria-labelledby') ?? table.querySelector('caption')?.textContent ?? 'table'),
  );
}
