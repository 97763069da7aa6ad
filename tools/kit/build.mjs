// Builds the app maker's kit (docs/sdk.md): `node tools/kit/build.mjs sdk` or `react`.
//   sdk:   libs/sdk/dist/index.js (ESM), its .d.ts files, and switchyard.js (the script-tag build, minified,
//          served by the API at /sdk/v1/switchyard.js);
//   react: libs/react/dist/index.js (ESM; react and @switchyard/sdk stay imports) and its .d.ts files.
// `node tools/kit/build.mjs sdk --bundle-to FILE` writes only the SDK's ESM bundle to FILE (tests load it in a
// plain Node process).
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundle, root } from './bundles.mjs';

const which = process.argv[2];
if (which !== 'sdk' && which !== 'react') {
  console.error('usage: node tools/kit/build.mjs sdk|react [--bundle-to FILE]');
  process.exit(2);
}
const bundleTo = process.argv.indexOf('--bundle-to');
if (bundleTo > 0) {
  writeFileSync(process.argv[bundleTo + 1], await bundle(which));
  process.exit(0);
}
const lib = join(root, 'libs', which);
const dist = join(lib, 'dist');
rmSync(dist, { recursive: true, force: true });
mkdirSync(dist, { recursive: true });
writeFileSync(join(dist, 'index.js'), await bundle(which));
if (which === 'sdk') writeFileSync(join(dist, 'switchyard.js'), await bundle('script', { minify: true }));
execFileSync(
  process.execPath,
  [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(lib, 'tsconfig.lib.json')],
  { stdio: 'inherit' },
);
console.log(`built ${which} into ${dist}`);
