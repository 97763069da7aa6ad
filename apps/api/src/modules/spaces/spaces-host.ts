import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import {
  SPACE_HANDLE_PATTERN,
  SPACE_HOSTING_PREFIX,
  SPACE_PREVIEW_PAGE,
  SPACE_PREVIEW_PATH,
  SPACE_PREVIEW_READY,
  SPACE_SANDBOX,
} from '@switchyard/shared-dto';
import type { NextFunction, Request, Response } from 'express';
import { requestContext, type ContextRequest } from '../../common/http/request-context';
import type { SpacesService } from './spaces.service';

/**
 * What a hosted page may do (docs/spaces.md, "The hosted page's policy"): run its own inline scripts and styles,
 * show data: and blob: images and media, and nothing else. No request leaves the page (connect-src, form-action,
 * default-src 'none'), so what a visitor types cannot be sent anywhere in the background; the sandbox gives it an
 * opaque origin (no cookies, no storage) without popups, top navigation, forms or modals; only the dashboard may
 * frame it (its profile page and previews).
 */
export function hostedPageCsp(dashboardOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'unsafe-inline'",
    "style-src 'unsafe-inline'",
    'img-src data: blob:',
    'media-src data: blob:',
    'font-src data:',
    "connect-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
    `frame-ancestors ${dashboardOrigin}`,
    `sandbox ${SPACE_SANDBOX}`,
  ].join('; ');
}

/** The policy of this listener's own small pages (not found, method not allowed): no script at all. */
function plainPageCsp(dashboardOrigin: string): string {
  return `default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors ${dashboardOrigin}; sandbox`;
}

const smallPage = (title: string, text: string) =>
  `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>${title}</title></head>` +
  `<body style="font-family: system-ui, sans-serif; max-width: 36rem; margin: 4rem auto; padding: 0 1rem"><h1>${title}</h1><p>${text}</p></body></html>`;

const NOT_FOUND_PAGE = smallPage('No published app here', 'It may be unpublished, deleted, or still being written.');
const METHOD_PAGE = smallPage('Method not allowed', 'Hosted apps are pages: only GET and HEAD are answered here.');
const UNAVAILABLE_PAGE = smallPage('Unavailable', 'This app cannot be shown right now; try again in a moment.');

/**
 * The owner's preview: framed by the dashboard, it shows the page the dashboard posts to it, once, by writing it
 * over itself, so the page runs under exactly the headers of a hosted app (a srcdoc or blob: frame would inherit
 * the dashboard's own policy instead, where inline scripts do not run). Only its parent may send the page.
 */
const PREVIEW_PAGE = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Preview</title></head>
<body><p>This address shows previews inside the Switchyard dashboard.</p>
<script>
(function () {
  if (window.parent === window) return;
  function show(event) {
    var data = event.data;
    if (event.source !== window.parent || !data || data.type !== ${JSON.stringify(SPACE_PREVIEW_PAGE)} || typeof data.html !== 'string') return;
    window.removeEventListener('message', show);
    document.open();
    document.write(data.html);
    document.close();
  }
  window.addEventListener('message', show);
  window.parent.postMessage({ type: ${JSON.stringify(SPACE_PREVIEW_READY)} }, '*');
})();
</script>
</body></html>
`;

/** `/s/{handle}/{slug}` (a trailing slash allowed); anything else under /s/ is not an app. */
const APP_PATH = new RegExp(`^${SPACE_HOSTING_PREFIX}/([^/]+)/([^/]+)/?$`);
const MAX_SLUG = 100;

export interface SpacesHostOptions {
  /** The dashboard's origin, the only one that may frame hosted pages. */
  dashboardOrigin: string;
  /** Write an access line per request (LOG_LEVEL log and below). */
  logRequests: boolean;
}

/**
 * The listener on SPACES_PORT, which serves hosted apps and nothing else: `GET /s/{handle}/{slug}` (a published
 * app, or a 301 from an old handle), the owner's preview page, and a small 404 page for every other path. No
 * API, no dashboard, no gateway. It never reads the Cookie header and never sets a cookie: browsers send the
 * dashboard's cookies to every port of its host, so on the default setup (another port of the same host) they
 * arrive here, and nothing here may act on them.
 */
export function spacesHost(spaces: SpacesService, options: SpacesHostOptions): RequestListener {
  const logger = new Logger('Spaces');
  const context = requestContext(new Logger('SpacesHTTP'), options.logRequests);
  const pageCsp = hostedPageCsp(options.dashboardOrigin);
  const plainCsp = plainPageCsp(options.dashboardOrigin);

  const send = (res: ServerResponse, status: number, html: string, csp = plainCsp) => {
    res.statusCode = status;
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('Content-Type', 'text/html; charset=utf-8');
    res.setHeader('Content-Length', Buffer.byteLength(html));
    res.end(html);
  };

  const serve = async (path: string, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-cache');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return send(res, 405, METHOD_PAGE);
    }
    if (path === SPACE_PREVIEW_PATH) return send(res, 200, PREVIEW_PAGE, pageCsp);
    const match = APP_PATH.exec(path);
    let handle = '';
    let slug = '';
    try {
      handle = match ? decodeURIComponent(match[1]) : '';
      slug = match ? decodeURIComponent(match[2]) : '';
    } catch {
      // A malformed escape is no app's address.
    }
    if (!SPACE_HANDLE_PATTERN.test(handle) || !slug || slug.length > MAX_SLUG) return send(res, 404, NOT_FOUND_PAGE);
    const page = await spaces.hostedPage(handle, slug);
    if (page.kind === 'moved') {
      res.statusCode = 301;
      res.setHeader('Location', page.location);
      res.end();
      return;
    }
    if (page.kind === 'none') return send(res, 404, NOT_FOUND_PAGE);
    send(res, 200, page.html, pageCsp);
  };

  return (req, res) => {
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const request = req as ContextRequest;
    request.path = path;
    context(request, res, () => {
      serve(path, req, res).catch((error: unknown) => {
        logger.error(
          {
            msg: `hosting ${path} failed: ${(error as Error)?.message ?? String(error)}`,
            requestId: request.requestId,
          },
          (error as Error)?.stack,
        );
        if (!res.headersSent) send(res, 503, UNAVAILABLE_PAGE);
        else res.destroy();
      });
    });
  };
}

/**
 * On the dashboard's host, `/s` and everything under it answers a 307 to the same address on SPACES_ORIGIN:
 * hosted apps are never served from the dashboard's origin.
 */
export function spacesRedirect(spacesOrigin: string) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.path !== SPACE_HOSTING_PREFIX && !req.path.startsWith(`${SPACE_HOSTING_PREFIX}/`)) return next();
    res.setHeader('Cache-Control', 'no-cache');
    // originalUrl starts with "/s", so the target stays on SPACES_ORIGIN whatever follows.
    res.redirect(307, `${spacesOrigin}${req.originalUrl}`);
  };
}

/** The hosted apps' address in the OpenAPI document (it is not a Nest route). */
export function addSpacesHostingPaths(document: OpenAPIObject): void {
  document.paths[`${SPACE_HOSTING_PREFIX}/{handle}/{slug}`] = {
    get: {
      operationId: 'spaces_hosted_app',
      summary: 'A published app, on SPACES_ORIGIN only; the dashboard host answers 307 to the same path there',
      description:
        'Served by the hosted-apps listener (SPACES_PORT, reached at SPACES_ORIGIN) with a restrictive Content-Security-Policy: ' +
        "`sandbox allow-scripts` (an opaque origin), `connect-src 'none'`, `form-action 'none'`, framed by the dashboard only. " +
        'No cookie is read or set. An old handle of the account answers 301 to the current one.',
      tags: ['spaces'],
      parameters: [
        { name: 'handle', in: 'path', required: true, schema: { type: 'string' } },
        { name: 'slug', in: 'path', required: true, schema: { type: 'string' } },
      ],
      responses: {
        200: { description: 'The page (text/html)' },
        301: { description: 'The handle changed: Location is the app at its current handle' },
        307: { description: 'On the dashboard host: Location is the same path on SPACES_ORIGIN' },
        404: { description: 'No published app at this address (a small HTML page)' },
      },
    },
  };
}
