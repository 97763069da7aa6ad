import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The example app is an app maker's app: its own origin (port 3002), talking to Switchyard across origins.
// `npm start` serves the build (apps/api/src/example-app.ts); `npx nx run example-chat:serve` runs it from source.
export default defineConfig({
  root: import.meta.dirname,
  plugins: [react()],
  resolve: {
    // The kit from its TypeScript source, as the workspace builds it (an app maker installs the packages).
    alias: {
      '@switchyard/sdk': fileURLToPath(new URL('../../libs/sdk/src/index.ts', import.meta.url)),
      '@switchyard/react': fileURLToPath(new URL('../../libs/react/src/index.tsx', import.meta.url)),
    },
  },
  server: { host: '127.0.0.1', port: 3002 },
  preview: { host: '127.0.0.1', port: 3002 },
  // The official openai SDK is most of it; an example, not a budget.
  build: { outDir: 'dist', emptyOutDir: true, sourcemap: false, chunkSizeWarningLimit: 1024 },
});
