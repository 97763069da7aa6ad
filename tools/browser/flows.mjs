// Steps several specs take the same way. Each waits at most the expectations' bounded timeouts.
import { expectPath } from './expect.mjs';

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

/** Goes to a section through the nav, opening the Menu first on a phone (where the sections are behind it). */
export async function goToSection(page, label) {
  const menu = page.getByRole('button', { name: 'Menu', exact: true });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: label, exact: true }).click();
}
