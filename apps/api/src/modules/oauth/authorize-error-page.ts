import { dashboardStylesheets } from '../../common/http/dashboard-static';

const escape = (text: string) => text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);

/** Read once: the built dashboard's file names change only with a new build, which means a restart. */
let stylesheets: string[] | undefined;

/**
 * The page an authorization request gets when it must not be sent back to the app (docs/oauth.md): unknown
 * client, unregistered redirect URI, or an error of a dynamically registered app for a signed-out browser. It
 * uses the dashboard's stylesheet and markup (the consent page's card), with a small inline fallback when the
 * dashboard is not built. The message is fixed text of ours, escaped all the same.
 */
export function renderAuthorizeErrorPage(message: string): string {
  stylesheets ??= dashboardStylesheets();
  const links = stylesheets.map((href) => `<link rel="stylesheet" href="${escape(href)}">`).join('');
  const fallback = stylesheets.length
    ? ''
    : '<style>body{font-family:system-ui,sans-serif;margin:0;background:#f6f7f9;color:#1b1f24}.center-page{display:grid;place-items:center;min-height:100vh;padding:2rem 1rem}' +
      '.card{background:#fff;border:1px solid #dde1e6;border-radius:8px;padding:1.5rem;max-width:30rem;display:grid;gap:1rem}.alert{background:#fdecea;color:#b42318;border-radius:6px;padding:.75rem 1rem}' +
      '.muted{color:#5b6470}.logo{display:inline-flex;align-items:center;gap:.5rem;font-weight:700}.logo-mark{width:1.75rem;height:1.75rem}.logo-mark rect{fill:#2b59c3}.logo-mark path{fill:none;stroke:#fff;stroke-width:3;stroke-linecap:round}</style>';
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">` +
    `<meta name="color-scheme" content="light dark"><title>Authorization failed · Switchyard</title>${links}${fallback}</head>` +
    `<body><main class="center-page"><div class="card narrow consent-page">` +
    `<div class="auth-brand"><span class="logo"><svg class="logo-mark" viewBox="0 0 32 32" aria-hidden="true" focusable="false">` +
    `<rect width="32" height="32" rx="7"></rect><path d="M8 11h16M8 21h16M12 11l8 10"></path></svg><span class="logo-text">Switchyard</span></span></div>` +
    `<h1 class="auth-title">This sign-in link is not valid</h1><div role="alert" class="alert alert-error"><p>${escape(message)}</p></div>` +
    `<p class="muted">Nothing was sent to the app. Go back to the app that sent you here and try again, or tell its maker.</p>` +
    `<p><a href="/">Go to the Switchyard dashboard</a></p></div></main></body></html>`
  );
}
