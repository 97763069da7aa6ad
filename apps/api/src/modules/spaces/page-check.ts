import { SPACE_PAGE_MAX_BYTES, SPACE_RESERVED_HANDLES } from '@switchyard/shared-dto';
import { pageProblem } from './page-safety';

export type PageCheck = { ok: true; html: string; title: string | null } | { ok: false; reason: string };

const FENCE = /```[ \t]*([A-Za-z0-9_-]*)[^\n]*\n([\s\S]*?)(?:```|$)/g;

/**
 * A model's answer as a page Switchyard will host, or why not (docs/spaces.md): the HTML inside a markdown
 * code fence when the model wrapped it, trimmed to `<!doctype html>` (added when missing) … `</html>`, and it
 * must be a whole document (an <html> element with a <body>, closed) of at most SPACE_PAGE_MAX_BYTES, whose
 * scripts parse and which loads nothing but the kit and reaches nothing elsewhere (page-safety.ts).
 */
export function checkPage(answer: string): PageCheck {
  let text = answer;
  const fenced = [...answer.matchAll(FENCE)].map((match) => ({ lang: match[1].toLowerCase(), body: match[2] }));
  if (fenced.length) {
    const page =
      fenced.find((block) => /<html[\s>]/i.test(block.body)) ?? fenced.find((block) => block.lang === 'html');
    if (page) text = page.body;
  }
  const start = text.search(/<!doctype\s+html|<html[\s>]/i);
  if (start < 0 || !/<body[\s>]/i.test(text))
    return { ok: false, reason: 'The model did not write an HTML page (no <html> with a <body>)' };
  const end = text.toLowerCase().lastIndexOf('</html>');
  if (end < start)
    return {
      ok: false,
      reason: 'The page was cut off before </html>: the model stopped early (output limit or budget)',
    };
  let html = text.slice(start, end + '</html>'.length);
  if (!/^<!doctype/i.test(html)) html = `<!DOCTYPE html>\n${html}`;
  const bytes = Buffer.byteLength(html);
  if (bytes > SPACE_PAGE_MAX_BYTES)
    return {
      ok: false,
      reason: `The page is ${Math.ceil(bytes / 1024)} KB; pages are limited to ${SPACE_PAGE_MAX_BYTES / 1024} KB`,
    };
  const problem = pageProblem(html);
  if (problem) return { ok: false, reason: problem };
  return { ok: true, html, title: titleOf(html) };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

/** The page's <title>, decoded and tidied; null when it has none. */
export function titleOf(html: string): string | null {
  const match = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(html);
  if (!match) return null;
  const text = match[1]
    .replace(/&(#39|amp|lt|gt|quot|apos|nbsp);/g, (_, name: string) => ENTITIES[name])
    .replace(/\s+/g, ' ')
    .trim();
  return text ? text.slice(0, 100) : null;
}

/** A title for an app whose page is not written yet: the prompt's first sentence, shortened. */
export function titleFromPrompt(prompt: string): string {
  const first = prompt
    .trim()
    .split(/(?<=[.!?])\s|\n/)[0]
    .trim();
  const title = first.length > 60 ? `${first.slice(0, 59).trimEnd()}…` : first;
  return title.charAt(0).toUpperCase() + title.slice(1);
}

/** Slugs never take the words that name routes beside them (`/api/v1/spaces/generate`, `…/me/apps`). */
const RESERVED_SLUGS = new Set(SPACE_RESERVED_HANDLES);
const STOP_WORDS = new Set([
  'a',
  'an',
  'the',
  'me',
  'my',
  'make',
  'build',
  'create',
  'write',
  'please',
  'that',
  'which',
  'with',
  'for',
  'of',
  'to',
  'and',
  'app',
  'page',
  'simple',
  'small',
  'little',
]);

/** A readable slug from the prompt: up to five meaningful words, lowercase, joined by '-', at most 40 characters. */
export function slugFromPrompt(prompt: string): string {
  const words = prompt
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  const meaningful = words.filter((word) => !STOP_WORDS.has(word));
  let slug = '';
  for (const word of (meaningful.length ? meaningful : words).slice(0, 5)) {
    const next = slug ? `${slug}-${word}` : word;
    if (next.length > 40) break;
    slug = next;
  }
  if (!slug) return 'untitled';
  return slug.length < 3 || RESERVED_SLUGS.has(slug) ? `${slug}-app` : slug;
}

/** The n-th candidate when the slug is taken among the owner's apps: `todo-list`, `todo-list-2`, … */
export function slugCandidate(base: string, n: number): string {
  if (n <= 1) return base;
  const suffix = `-${n}`;
  return base.slice(0, 40 - suffix.length).replace(/-+$/, '') + suffix;
}
