import react from '@vitejs/plugin-react';
import { defaultClientConditions, defineConfig, type ProxyOptions } from 'vite';

// The built API listens here by default (decisions.md section 2); override with SWITCHYARD_API_URL.
const apiTarget = process.env.SWITCHYARD_API_URL ?? 'http://127.0.0.1:3000';

// Everything the API serves itself; the rest of the URL space belongs to the SPA.
const apiPrefixes = ['/api', '/v1', '/oauth2', '/openapi.json', '/healthz', '/readyz'];

// Prefixes end at a path boundary, so '/api' never captures an SPA path such as '/apis'.
const proxy: Record<string, ProxyOptions> = Object.fromEntries(
  apiPrefixes.map((prefix) => [`^${prefix.replace(/\./g, '\\.')}(?:[/?]|$)`, { target: apiTarget, changeOrigin: false }]),
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
