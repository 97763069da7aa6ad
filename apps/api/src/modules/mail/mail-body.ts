/** A mail's text and HTML, written once from the same paragraphs and at most one link (a button in HTML). */
export interface MailBody {
  text: string;
  html: string;
}

export function escapeHtml(text: string): string {
  return text.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
}

/**
 * Plain paragraphs, an optional action link and a closing note, as text/plain and a minimal text/html (no images,
 * no tracking, no external resources), both in the same order so either reads the same.
 */
export function mailBody(parts: {
  paragraphs: string[];
  action?: { label: string; url: string };
  footer?: string;
}): MailBody {
  const { paragraphs, action, footer } = parts;
  const text = [
    ...paragraphs,
    ...(action ? [`${action.label}: ${action.url}`] : []),
    ...(footer ? ['--', footer] : []),
  ].join('\n\n');
  const html = [
    '<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1a1e24">',
    ...paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    ...(action
      ? [
          `<p><a href="${escapeHtml(action.url)}" style="display:inline-block;padding:0.5em 1em;background:#2855d8;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(action.label)}</a></p>`,
          `<p style="font-size:0.875em;color:#555">Or open this address: ${escapeHtml(action.url)}</p>`,
        ]
      : []),
    ...(footer ? [`<hr><p style="font-size:0.875em;color:#555">${escapeHtml(footer)}</p>`] : []),
    '</body></html>',
  ].join('\n');
  return { text: `${text}\n`, html };
}
