// Small bounded assertions for playwright-core (which has no `expect`). Each waits at most `timeout` ms.

const DEFAULT_TIMEOUT = 10_000;

/** Waits until the page's path + query equals `expected` (a string) or satisfies it (a function of URL). */
export async function expectPath(page, expected, { timeout = DEFAULT_TIMEOUT } = {}) {
  const matches = (url) => (typeof expected === 'function' ? expected(url) : url.pathname + url.search === expected);
  try {
    await page.waitForURL(matches, { timeout, waitUntil: 'commit' });
  } catch {
    const url = new URL(page.url());
    throw new Error(`expected the page at ${expected}, but it is at ${url.pathname}${url.search}`);
  }
}

/** Waits until the locator is visible. */
export async function expectVisible(locator, { timeout = DEFAULT_TIMEOUT, what } = {}) {
  try {
    await locator.first().waitFor({ state: 'visible', timeout });
  } catch {
    throw new Error(`expected ${what ?? String(locator)} to be visible within ${timeout} ms`);
  }
}

/** Waits until the locator's text contains `text`. */
export async function expectText(locator, text, { timeout = DEFAULT_TIMEOUT } = {}) {
  const deadline = Date.now() + timeout;
  let actual = '';
  while (Date.now() < deadline) {
    actual =
      (await locator
        .first()
        .textContent({ timeout: Math.max(1, deadline - Date.now()) })
        .catch(() => '')) ?? '';
    if (actual.includes(text)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`expected ${String(locator)} to contain "${text}", got "${actual.trim()}"`);
}

export function expectEqual(actual, expected, what) {
  if (actual !== expected) {
    throw new Error(`expected ${what} to be ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }
}
