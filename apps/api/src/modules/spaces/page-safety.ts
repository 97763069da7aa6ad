import { Script } from 'node:vm';
import { SPACE_SDK_PATH } from '@switchyard/shared-dto';

/** Script types that are JavaScript (a classic script); other types are data the page reads (JSON, templates). */
const JS_TYPES = new Set([
  '',
  'text/javascript',
  'application/javascript',
  'text/ecmascript',
  'application/ecmascript',
]);
/** Namespace names, not addresses: inline SVG and MathML carry them, and nothing fetches them. */
const NAMESPACE = /^https?:\/\/www\.w3\.org\//i;
const SCRIPT = /<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi;
const ATTRIBUTE = (name: string) => new RegExp(`(?:^|\\s)${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i');

const MAX_URL_SHOWN = 120;
const shown = (url: string) => (url.length > MAX_URL_SHOWN ? `${url.slice(0, MAX_URL_SHOWN - 1)}…` : url);

/**
 * Why a page may not be hosted as it is, or null (docs/spaces.md#the-page-check). The policy of its origin blocks
 * all of this at run time anyway; the check fails the job at once with a reason the owner can act on:
 * - every classic inline script parses (compiled, never run); module scripts are refused;
 * - the only script it loads is the kit, at SPACE_SDK_PATH on its own origin;
 * - it names no address to load or call elsewhere: no absolute or protocol-relative URL in a script, a style or a
 *   loading attribute (`<a href>` links, which are navigations, and XML namespace names are fine).
 */
export function pageProblem(html: string): string | null {
  const opened = (html.match(/<script\b/gi) ?? []).length;
  const scripts = [...html.matchAll(SCRIPT)];
  if (scripts.length !== opened) return 'A <script> element is not closed';
  for (const [, attributes, body] of scripts) {
    const srcMatch = ATTRIBUTE('src').exec(attributes);
    if (srcMatch) {
      const src = (srcMatch[1] ?? srcMatch[2] ?? srcMatch[3]).trim();
      if (src !== SPACE_SDK_PATH)
        return `It loads the script ${shown(src)}: a page may load only the Switchyard kit, ${SPACE_SDK_PATH}`;
      if (body.trim()) return `The <script src="${SPACE_SDK_PATH}"> element must be empty`;
      continue;
    }
    const typeMatch = ATTRIBUTE('type').exec(attributes);
    const type = (typeMatch ? (typeMatch[1] ?? typeMatch[2] ?? typeMatch[3]) : '').trim().toLowerCase();
    if (type === 'module') return 'It uses a module script: write classic inline scripts';
    if (!JS_TYPES.has(type)) continue;
    try {
      new Script(body, { filename: 'page-script.js' });
    } catch (error) {
      return `A script does not parse: ${(error as Error).message}`;
    }
  }
  // Links are navigations the visitor chooses, not requests the page makes.
  const withoutLinks = html.replace(/<a\b[^>]*>/gi, '<a>');
  for (const match of withoutLinks.matchAll(/https?:\/\/[^\s"'`)<>\\]+/gi))
    if (!NAMESPACE.test(match[0]))
      return `It reaches ${shown(match[0])}: a page may load nothing from elsewhere, and call models only through the kit (sy.fetch)`;
  const protocolRelative =
    /(?:\b(?:src|href|action|poster|data|srcset)\s*=\s*["']?|url\(\s*["']?|@import\s+["'])\/\//i.exec(withoutLinks);
  if (protocolRelative) return 'It loads an address on another site (a URL starting with //)';
  return null;
}
