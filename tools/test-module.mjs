// One API module's tests, to answer "did I break it?": its unit specs and its integration specs, everything in
// apps/api/src/modules/<module>/ (docs/architecture.md, "Tests").
//   npm run test:module -- clients                 the clients module, on the embedded database
//   npm run test:module -- consents -t revoke      options after the name go to jest
//   DATABASE_URL=… REDIS_URL=… npm run test:module -- spaces   on a PostgreSQL server and Redis
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const modulesDir = join(root, 'apps/api/src/modules');
const modules = readdirSync(modulesDir, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();
const [name, ...jestArgs] = process.argv.slice(2);

if (!name || !modules.includes(name)) {
  console.error(`usage: npm run test:module -- <module> [jest options]\nmodules: ${modules.join(', ')}`);
  process.exit(2);
}

const jest = join(root, 'node_modules/.bin/jest');
if (!existsSync(jest)) {
  console.error('jest is not installed: run npm install first');
  process.exit(2);
}
const result = spawnSync(
  jest,
  ['--config', 'apps/api/jest.config.ts', '--testPathPatterns', `apps/api/src/modules/${name}/`, ...jestArgs],
  {
    cwd: root,
    stdio: 'inherit',
    env: {
      ...process.env,
      NODE_OPTIONS:
        `${process.env.NODE_OPTIONS ?? ''} --experimental-vm-modules --no-warnings=ExperimentalWarning`.trim(),
    },
  },
);
process.exit(result.status ?? 1);
