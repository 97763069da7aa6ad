import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { Logger } from '@nestjs/common';

/** Paths the API owns (`/s/`: hosted space apps); everything else that asks for a page gets the dashboard. */
const API_PREFIXES = [
  '/api/',
  '/v1/',
  '/apikey/',
  '/oauth2/',
  '/.well-known/',
  '/openapi.json',
  '/healthz',
  '/readyz',
  '/s/',
  '/sdk/',
];

export function defaultDashboardDir(): string {
  // apps/api/src (tests) and apps/api/dist (the build) both sit two levels below apps/.
  return resolve(__dirname, '..', '..', '..', '..', 'dashboard', 'dist');
}

function isApiPath(path: string): boolean {
  const lower = path.toLowerCase();
  return API_PREFIXES.some((prefix) => lower === prefix.replace(/\/$/, '') || lower.startsWith(prefix));
}

/**
 * Serves the built dashboard from the same port as the API: its files, and index.html for any other page
 * path (client-side routes), each with `csp` as its Content-Security-Policy when given. API paths fall through
 * to Nest.
 */
export function dashboardStatic(dir = defaultDashboardDir(), csp?: string): RequestHandler[] {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) {
    new Logger('Dashboard').warn(`no built dashboard at ${dir}; run "npm run build" to serve it`);
    return [];
  }
  const files = express.static(dir, {
    index: false,
    setHeaders: (res, path) => {
      if (csp) res.setHeader('Content-Security-Policy', csp);
      // Vite puts a content hash in every file name under assets/.
      res.setHeader(
        'Cache-Control',
        path.includes(`${join(dir, 'assets')}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
      );
    },
  });
  const fallback = (req: Request, res: Response, next: NextFunction) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || isApiPath(req.path) || !req.accepts('html')) return next();
    res.setHeader('Cache-Control', 'no-cache');
    if (csp) res.setHeader('Content-Security-Policy', csp);
    res.sendFile(index);
  };
  const assets: RequestHandler = (req, res, next) => {
    if (isApiPath(req.path)) next();
    else files(req, res, next);
  };
  return [assets, fallback];
}

/**
 * The built dashboard's stylesheet links (Vite puts a content hash in their names), so that pages the API renders
 * itself look like the dashboard; none when the dashboard is not built.
 */
export function dashboardStylesheets(dir = defaultDashboardDir()): string[] {
  const index = join(dir, 'index.html');
  if (!existsSync(index)) return [];
  const html = readFileSync(index, 'utf8');
  return [...html.matchAll(/<link\b[^>]*\brel="stylesheet"[^>]*>/g)]
    .map((tag) => /\bhref="(\/assets\/[^"]+\.css)"/.exec(tag[0])?.[1])
    .filter((href): href is string => href !== undefined);
}
