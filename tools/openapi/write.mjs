// Writes apps/api/openapi.json from the code: boots the built API on an in-memory database, reads
// /openapi.json and writes it. CI regenerates it and fails when the committed file differs.
//   node tools/openapi/write.mjs          write the file
//   node tools/openapi/write.mjs --check  exit 1 when the committed file is out of date
import { readFileSync, writeFileSync, existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { createApp } = require(join(root, 'apps/api/dist/app.js'));
const { loadConfig } = require(join(root, 'apps/api/dist/config/config.js'));

// Fixed values, so the document does not depend on the machine's environment.
const config = { ...loadConfig({}), port: 0, spacesPort: 0, dataDir: 'memory://', publicUrl: 'http://localhost:3000' };
const running = await createApp(config, { dashboard: false, logger: false });
try {
  const document = await (await fetch(`${running.url}/openapi.json`)).json();
  const text = `${JSON.stringify(document, null, 2)}\n`;
  const target = join(root, 'apps/api/openapi.json');
  if (process.argv.includes('--check')) {
    const current = existsSync(target) ? readFileSync(target, 'utf8') : '';
    if (current !== text) {
      console.error('apps/api/openapi.json is out of date: run "npm run openapi" and commit the result');
      process.exitCode = 1;
    } else console.log('apps/api/openapi.json is up to date');
  } else {
    writeFileSync(target, text);
    console.log(`wrote ${target}`);
  }
} finally {
  await running.close();
}
