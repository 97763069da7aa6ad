import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { Logger } from '@nestjs/common';
import type { NextFunction, Request, Response } from 'express';

/** Where the script-tag build of the SDK is served (docs/sdk.md#the-script-tag): versioned by its major. */
export const SDK_SCRIPT_PATH = '/sdk/v1/switchyard.js';

export function defaultSdkScript(): string {
  // apps/api/src/common/http (tests) and apps/api/dist/common/http (the build) both sit five levels below the root.
  return resolve(__dirname, '..', '..', '..', '..', '..', 'libs', 'sdk', 'dist', 'switchyard.js');
}

/** The script-tag build's bytes, or null when it is not built (also when a build removes it as it is read). */
export function readSdkScript(file = defaultSdkScript()): Buffer | null {
  try {
    return readFileSync(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Serves the SDK's script-tag build (libs/sdk/dist/switchyard.js, made by `npm run build`) to any page: CORS open
 * and cross-origin embeddable, so that `<script integrity=… crossorigin>` works from an app's own origin. The
 * file is read once at start; without a build the path answers 404 and start-up says why.
 */
export function sdkScript(file = defaultSdkScript()) {
  const script = readSdkScript(file);
  if (!script) new Logger('Sdk').warn(`no SDK build at ${file}; run "npm run build" to serve ${SDK_SCRIPT_PATH}`);
  const etag = script ? `"${createHash('sha256').update(script).digest('base64url').slice(0, 27)}"` : '';
  return (req: Request, res: Response, next: NextFunction): void => {
    if (req.path !== SDK_SCRIPT_PATH || (req.method !== 'GET' && req.method !== 'HEAD')) return next();
    res.setHeader('Access-Control-Allow-Origin', '*');
    res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
    if (!script) {
      res.status(404).type('text/plain').send('The SDK is not built here: run npm run build');
      return;
    }
    res.setHeader('Cache-Control', 'public, max-age=300');
    res.setHeader('ETag', etag);
    if (req.headers['if-none-match'] === etag) {
      res.status(304).end();
      return;
    }
    res.type('text/javascript; charset=utf-8').send(script);
  };
}
