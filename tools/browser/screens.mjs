// What the issue-21 specs (keys-page, playground-credential, settings) share: the two widths every new flow is
// walked at, where screenshots go (SCREENSHOT_DIR=docs/screenshots/dashboard refreshes the committed copies, as
// for dashboard.mjs), and the check that a page does not scroll sideways.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

export const screenshotDir = process.env.SCREENSHOT_DIR
  ? join(repoRoot, process.env.SCREENSHOT_DIR)
  : join(repoRoot, 'tools', 'browser', 'artifacts', 'screenshots');

export const DEVICES = [
  { label: 'desktop', viewport: { width: 1280, height: 800 } },
  { label: 'phone', viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true },
];

export async function noHorizontalScroll(page, what) {
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 1) throw new Error(`expected ${what} to fit the width, but it scrolls sideways by ${overflow}px`);
}
