import express from 'express';
import { mkdtempSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SDK_SCRIPT_PATH, sdkScript } from './sdk-script';

async function serve(file: string): Promise<{ url: string; close: () => void }> {
  const app = express();
  app.use(sdkScript(file));
  app.use((_req, res) => res.status(418).end());
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() };
}

describe('the SDK script at /sdk/v1/switchyard.js', () => {
  it('serves the built file as JavaScript any page may load (CORS, cross-origin), with a validator', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'sdk-script-')), 'switchyard.js');
    writeFileSync(file, 'var Switchyard={};');
    const { url, close } = await serve(file);
    try {
      const res = await fetch(url + SDK_SCRIPT_PATH, { headers: { origin: 'https://app.example' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
      expect(res.headers.get('access-control-allow-origin')).toBe('*');
      expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
      expect(await res.text()).toBe('var Switchyard={};');
      const again = await fetch(url + SDK_SCRIPT_PATH, { headers: { 'if-none-match': res.headers.get('etag')! } });
      expect(again.status).toBe(304);
      // Other paths and methods pass through.
      expect((await fetch(`${url}/sdk/v2/switchyard.js`)).status).toBe(418);
      expect((await fetch(url + SDK_SCRIPT_PATH, { method: 'POST' })).status).toBe(418);
    } finally {
      close();
    }
  });

  it('answers 404 (not the dashboard) when the SDK is not built', async () => {
    const { url, close } = await serve('/nonexistent/switchyard.js');
    try {
      const res = await fetch(url + SDK_SCRIPT_PATH);
      expect(res.status).toBe(404);
      expect(await res.text()).toContain('npm run build');
    } finally {
      close();
    }
  });
});
