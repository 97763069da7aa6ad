// Steps several specs take the same way. Each waits at most the expectations' bounded timeouts.
import { expectPath, expectText } from './expect.mjs';

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
