// Prints the configuration table of README.md from apps/api/src/config/config.schema.ts (run after a build):
//   node tools/config-table.mjs
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const { CONFIG_VARIABLES } = require('../apps/api/dist/config/config.schema.js');
console.log('| variable | meaning | default |');
console.log('|---|---|---|');
for (const v of CONFIG_VARIABLES) {
  const fallback = v.defaultValue !== undefined ? `\`${v.defaultValue}\`` : 'unset';
  console.log(`| \`${v.env}\` | ${v.description}${v.secret ? ' (secret)' : ''} | ${fallback} |`);
}
