import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig, type ProxyOptions } from 'vite';

// The built API listens here by default (docs/decisions.md#configuration); override with SWITCHYARD_API_URL.
const apiTarget = process.env.SWITCHYARD_API_URL ?? 'http://127.0.0.1:3000';

// Everything the API serves itself; the rest of the URL space belongs to the SPA.
const apiPrefixes = ['/api', '/v1', '/dashboard/v1', '/oauth2', '/openapi.json', '/healthz', '/readyz'];

// The API refuses browser writes whose Origin is not its own (docs/accounts.md). Pages of this dev server are
// the API's own pages served from another port, so their Origin is passed on as the API's; any other stays.
const sameOriginAsApi: ProxyOptions['configure'] = (proxy) => {
  proxy.on('proxyReq', (proxyReq, req) => {
    const origin = req.headers.origin;
    if (origin && req.headers.host && origin.replace(/^https?:\/\//, '') === req.headers.host)
      proxyReq.setHeader('origin', new URL(apiTarget).origin);
  });
};

// Prefixes end at a path boundary, so '/api' never captures an SPA path such as '/apis'.
const proxy: Record<string, ProxyOptions> = Object.fromEntries(
  apiPrefixes.map((prefix) => [
    `^${prefix.replace(/\./g, '\\.')}(?:[/?]|$)`,
    { target: apiTarget, changeOrigin: false, configure: sameOriginAsApi },
  ]),
);

export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  resolve: {
    // Resolve @switchyard/shared-dto to its TypeScript source, so the lib needs no build first.
    conditions: ['development', ...defaultClientConditions],
  },
  server: { host: '127.0.0.1', port: 4200, proxy },
  preview: { host: '127.0.0.1', port: 4300, proxy },
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false },
});
