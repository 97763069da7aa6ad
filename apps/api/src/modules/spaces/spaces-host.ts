import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { Logger } from '@nestjs/common';
import type { OpenAPIObject } from '@nestjs/swagger';
import {
  SPACE_HANDLE_PATTERN,
  SPACE_HOSTING_PREFIX,
  SPACE_PREVIEW_PAGE,
  SPACE_PREVIEW_PATH,
  SPACE_PREVIEW_READY,
  SPACE_APP_SANDBOX,
  SPACE_SANDBOX,
  SPACE_SDK_PATH,
  SPACE_SLUG_PATTERN,
  parseSpaceOriginLabel,
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

/** `/s/{handle}/{slug}` (a trailing slash allowed): an old address, which leads to the app's own origin. */
const APP_PATH = new RegExp(`^${SPACE_HOSTING_PREFIX}/([^/]+)/([^/]+)/?$`);
const MAX_SLUG = 100;

/**
 * The policy of an app on its own origin (docs/spaces.md#the-policy-of-an-apps-origin): its own inline and
 * same-origin scripts (the kit at SPACE_SDK_PATH), its own storage, requests to the gateway's origin only, no
 * frames in or out, no forms, no dialogs; popups only for the sign-in and budget windows, which leave the sandbox
 * (they are the dashboard's pages).
 */
export function appPageCsp(gatewayOrigin: string): string {
  return [
    "default-src 'none'",
    "script-src 'self' 'unsafe-inline'",
    "style-src 'unsafe-inline'",
    'img-src data: blob:',
    'media-src data: blob:',
    'font-src data:',
    `connect-src ${gatewayOrigin}`,
    "form-action 'none'",
    "base-uri 'none'",
    "frame-src 'none'",
    "worker-src 'none'",
    "manifest-src 'none'",
    "frame-ancestors 'none'",
    `sandbox ${SPACE_APP_SANDBOX}`,
  ].join('; ');
}

/**
 * The kit as an app's origin serves it: the script-tag build, then its defaults made fixed: the gateway, and the
 * app's own client (an app cannot sign visitors in to another app's client, whose redirect URI is elsewhere).
 */
export function appSdkScript(sdk: Buffer, gatewayUrl: string, clientId: string): string {
  const fixed = JSON.stringify({ baseUrl: gatewayUrl, clientId });
  return `${sdk.toString('utf8')}
;(function () {
  var S = window.Switchyard;
  if (!S) return;
  var fixed = ${fixed};
  var own = Object.assign({}, S);
  own.app = fixed;
  own.init = function (options) { return S.init(Object.assign({}, options, fixed)); };
  own.createSwitchyard = function (options) { return S.createSwitchyard(Object.assign({}, options, fixed)); };
  window.Switchyard = own;
})();
`;
}

export interface SpacesHostOptions {
  /** The dashboard's and gateway's origin: the only one an app may send requests to. */
  dashboardOrigin: string;
  /** PUBLIC_URL: the kit's baseUrl on an app's origin. */
  gatewayUrl: string;
  /** SPACES_ORIGIN: apps live at `{handle}--{slug}.` in front of its host. */
  spacesOrigin: string;
  /** The kit's script-tag build (null: not built, the kit's path answers 404). */
  sdkScript: Buffer | null;
  /** Write an access line per request (LOG_LEVEL log and below). */
  logRequests: boolean;
}

/**
 * The listener on SPACES_PORT, which serves hosted apps and nothing else. By the request's host: an app's origin
 * (`{handle}--{slug}.` SPACES_ORIGIN's host) answers its page at `/` and the kit at SPACE_SDK_PATH; SPACES_ORIGIN
 * itself answers the owner's preview page and leads old `/s/{handle}/{slug}` addresses to the app's origin; every
 * other host and path gets a small 404 page. No API, no dashboard, no gateway. It never reads the Cookie header
 * and never sets a cookie.
 */
export function spacesHost(spaces: SpacesService, options: SpacesHostOptions): RequestListener {
  const logger = new Logger('Spaces');
  const context = requestContext(new Logger('SpacesHTTP'), options.logRequests);
  const pageCsp = hostedPageCsp(options.dashboardOrigin);
  const appCsp = appPageCsp(options.dashboardOrigin);
  const plainCsp = plainPageCsp(options.dashboardOrigin);
  const spacesHostName = new URL(options.spacesOrigin).host.toLowerCase();

  const send = (res: ServerResponse, status: number, body: string, csp = plainCsp, type = 'text/html') => {
    res.statusCode = status;
    res.setHeader('Content-Security-Policy', csp);
    res.setHeader('Content-Type', `${type}; charset=utf-8`);
    res.setHeader('Content-Length', Buffer.byteLength(body));
    res.end(body);
  };
  const redirect = (res: ServerResponse, location: string) => {
    res.statusCode = 301;
    res.setHeader('Location', location);
    res.end();
  };

  /** SPACES_ORIGIN itself: the preview page, and old addresses. */
  const serveSpacesOrigin = async (path: string, res: ServerResponse): Promise<void> => {
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
    if (!SPACE_HANDLE_PATTERN.test(handle) || !SPACE_SLUG_PATTERN.test(slug) || slug.length > MAX_SLUG)
      return send(res, 404, NOT_FOUND_PAGE);
    const page = await spaces.hostedPage(handle, slug);
    if (page.kind === 'moved') return redirect(res, page.location);
    if (page.kind === 'none') return send(res, 404, NOT_FOUND_PAGE);
    redirect(res, `${spaces.appOrigin(handle, slug)}/`);
  };

  /** An app's own origin: its page at `/`, the kit with its client at SPACE_SDK_PATH. */
  const serveApp = async (handle: string, slug: string, path: string, res: ServerResponse): Promise<void> => {
    if (path !== '/' && path !== SPACE_SDK_PATH) return send(res, 404, NOT_FOUND_PAGE);
    const page = await spaces.hostedPage(handle, slug);
    if (page.kind === 'moved') return redirect(res, page.location);
    if (page.kind === 'none') return send(res, 404, NOT_FOUND_PAGE);
    if (path === '/') return send(res, 200, page.html, appCsp);
    if (!options.sdkScript || !page.clientId)
      return send(
        res,
        404,
        '/* This app has no sign-in here: it is not published with a client */',
        plainCsp,
        'text/javascript',
      );
    send(res, 200, appSdkScript(options.sdkScript, options.gatewayUrl, page.clientId), plainCsp, 'text/javascript');
  };

  const serve = async (path: string, req: IncomingMessage, res: ServerResponse): Promise<void> => {
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.setHeader('Cache-Control', 'no-cache');
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.setHeader('Allow', 'GET, HEAD');
      return send(res, 405, METHOD_PAGE);
    }
    // Every host that names no app is answered as SPACES_ORIGIN itself, which serves nothing but the preview page
    // and redirects: a request by address (a health check, a proxy that rewrote the host) gets those too.
    const host = (req.headers.host ?? '').toLowerCase();
    const suffix = `.${spacesHostName}`;
    const app = host.endsWith(suffix) ? parseSpaceOriginLabel(host.slice(0, -suffix.length)) : null;
    if (!app) return serveSpacesOrigin(path, res);
    return serveApp(app.handle, app.slug, path, res);
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

/** The hosted apps' addresses in the OpenAPI document (not Nest routes: the hosted-apps listener serves them). */
export function addSpacesHostingPaths(document: OpenAPIObject): void {
  const slugParams = [
    { name: 'handle', in: 'path' as const, required: true, schema: { type: 'string' } },
    { name: 'slug', in: 'path' as const, required: true, schema: { type: 'string' } },
  ];
  document.paths[`${SPACE_HOSTING_PREFIX}/{handle}/{slug}`] = {
    get: {
      operationId: 'spaces_hosted_app_old_address',
      summary:
        "An app's old address on SPACES_ORIGIN: 301 to the app's own origin; the dashboard host answers 307 to SPACES_ORIGIN first",
      description:
        'Served by the hosted-apps listener (SPACES_PORT, reached at SPACES_ORIGIN). A published app lives on its own origin, ' +
        "`{handle}--{slug}.` in front of SPACES_ORIGIN's host (docs/spaces.md#an-origin-per-app). No cookie is read or set.",
      tags: ['spaces'],
      parameters: slugParams,
      responses: {
        301: { description: "Location is the app's own origin (its current handle's, when the handle changed)" },
        307: { description: 'On the dashboard host: Location is the same path on SPACES_ORIGIN' },
        404: { description: 'No published app at this address (a small HTML page)' },
      },
    },
  };
  document.paths['/'] = {
    get: {
      operationId: 'spaces_app_page',
      summary:
        "A published app's page, on its own origin `{handle}--{slug}.` SPACES_ORIGIN's host (the Host header picks the app)",
      description:
        `Content-Security-Policy: ${appPageCsp("PUBLIC_URL's origin")}. No cookie is read or set. An old handle answers 301 ` +
        "to the app's current origin. The same origin serves the kit at " +
        `${SPACE_SDK_PATH}, with the gateway and the app's own OAuth client fixed (404 while the app has no active client).`,
      tags: ['spaces'],
      servers: [{ url: 'http://{handle}--{slug}.localhost:3001', description: 'An app of the default setup' }],
      responses: {
        200: { description: 'The page (text/html)' },
        301: { description: "The handle changed: Location is the app's current origin" },
        404: { description: 'No published app at this origin (a small HTML page)' },
      },
    },
  };
}
