// The API's mail as the browser tests read it: without SMTP_URL every mail is an .eml file in DATA_DIR/mail
// (docs/mail.md). `mailTo` waits (bounded) for the newest one of a kind to an address and answers its link.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function decodeQuotedPrintable(text) {
  const bytes = text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/gi, (_, hex) => String.fromCharCode(parseInt(hex, 16)));
  return Buffer.from(bytes, 'latin1').toString('utf8');
}

/** The first mail of `kind` to `to` not in `seen` (file names), within 15 s: its file, subject and first link. */
export async function mailTo(dataDir, to, kind, seen = new Set()) {
  const folder = join(dataDir, 'mail');
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    const files = (await readdir(folder).catch(() => [])).filter(
      (file) => file.includes(`-${kind}-`) && !seen.has(file),
    );
    for (const file of files.sort()) {
      const raw = await readFile(join(folder, file), 'utf8');
      if (!new RegExp(`^To: ${to.replace(/[.+]/g, '\\$&')}$`, 'mi').test(raw)) continue;
      const text = decodeQuotedPrintable(raw);
      return {
        file,
        subject: /^Subject: (.*)$/m.exec(raw)?.[1] ?? '',
        link: /https?:\/\/[^\s"<>]+#token=[A-Za-z0-9_-]+/.exec(text)?.[0] ?? null,
      };
    }
    await sleep(100);
  }
  throw new Error(`no ${kind} mail to ${to} in ${folder} within 15 s`);
}
