// The kit's bundles, made one way for the build (tools/kit/build.mjs) and the size and integrity report
// (tools/kit/report.mjs), with rolldown (Vite's bundler, already installed).
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { rolldown } from 'rolldown';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

const BUNDLES = {
  // The SDK as an ES module, what `import '@switchyard/sdk'` gets.
  sdk: { input: 'libs/sdk/src/index.ts', format: 'esm', target: 'es2022', external: [] },
  // The script-tag build, served at /sdk/v1/switchyard.js: one file, a global `Switchyard`.
  script: { input: 'libs/sdk/src/script-tag.ts', format: 'iife', target: 'es2020', external: [] },
  // The React package: react and the SDK stay imports (peers), so its size is what it adds beyond them.
  react: {
    input: 'libs/react/src/index.tsx',
    format: 'esm',
    target: 'es2022',
    external: [/^react($|\/)/, /^@switchyard\/sdk$/],
  },
};

/** One bundle's code: `name` of BUNDLES, minified or not. */
export async function bundle(name, { minify = false } = {}) {
  const spec = BUNDLES[name];
  const build = await rolldown({
    input: join(root, spec.input),
    // Module markers in the output are paths relative to this: the package's own sources, not the workspace's.
    cwd: dirname(join(root, spec.input)),
    platform: 'browser',
    external: spec.external,
    transform: { target: spec.target, jsx: { runtime: 'automatic' } },
  });
  try {
    const { output } = await build.generate({ format: spec.format, name: 'Switchyard', minify });
    return output[0].code;
  } finally {
    await build.close();
  }
}
