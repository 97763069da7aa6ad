// The kit's size budget and the script tag's integrity hash (docs/sdk.md#size-and-integrity):
//   node tools/kit/report.mjs           prints the report
//   node tools/kit/report.mjs --write   writes it into docs/sdk.md, between its report markers
//   node tools/kit/report.mjs --check   fails when a bundle is over its budget or docs/sdk.md is out of date (CI)
// Sizes are minified and gzipped (level 9). The React package is measured with react and the SDK left out: what
// it adds beyond the core.
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { bundle, root } from './bundles.mjs';

const BUDGETS = { sdk: 8 * 1024, react: 4 * 1024 };
const DOC = join(root, 'docs', 'sdk.md');
const START = '<!-- kit-report:start (node tools/kit/report.mjs --write) -->';
const END = '<!-- kit-report:end -->';

const gz = (code) => gzipSync(code, { level: 9 }).length;
const kb = (bytes) => `${(bytes / 1024).toFixed(2)} kB`;

const sdk = gz(await bundle('sdk', { minify: true }));
const react = gz(await bundle('react', { minify: true }));
const script = await bundle('script', { minify: true });
const integrity = `sha384-${createHash('sha384').update(script).digest('base64')}`;

const report = [
  START,
  '| bundle | minified + gzipped | budget |',
  '|---|---|---|',
  `| \`@switchyard/sdk\` (ESM, everything it exports) | ${kb(sdk)} | ${kb(BUDGETS.sdk)} |`,
  `| \`@switchyard/react\` (beyond react and the SDK) | ${kb(react)} | ${kb(BUDGETS.react)} |`,
  `| \`/sdk/v1/switchyard.js\` (the script tag, the SDK included) | ${kb(gz(script))} | |`,
  '',
  'The script tag of this version, with its integrity hash:',
  '',
  '```html',
  `<script src="https://YOUR-SWITCHYARD/sdk/v1/switchyard.js" integrity="${integrity}" crossorigin="anonymous"></script>`,
  '```',
  END,
].join('\n');

const doc = readFileSync(DOC, 'utf8');
const [before, rest] = doc.split(START);
const after = rest?.split(END)[1];
if (after === undefined) throw new Error(`docs/sdk.md lacks the report markers ${START} … ${END}`);
const updated = `${before}${report}${after}`;

const over = Object.entries({ sdk, react }).filter(([name, size]) => size > BUDGETS[name]);
// /llms.txt (apps/dashboard/public) carries the same ten-line quick start as docs/sdk.md.
const quickStart = /```html\n(<script src="http:\/\/localhost:3000\/sdk\/v1\/switchyard\.js">[\s\S]*?)```/.exec(
  doc,
)?.[1];
const llms = readFileSync(join(root, 'apps', 'dashboard', 'public', 'llms.txt'), 'utf8');
const quickStartLines = quickStart?.trimEnd().split('\n').length ?? 0;
const quickStartProblem = !quickStart
  ? 'docs/sdk.md has no quick start'
  : !llms.includes(quickStart)
    ? "apps/dashboard/public/llms.txt's quick start differs from docs/sdk.md's"
    : quickStartLines > 10
      ? `the quick start is ${quickStartLines} lines, more than ten`
      : null;
if (process.argv.includes('--write')) writeFileSync(DOC, updated);
console.log(report);
if (process.argv.includes('--check')) {
  for (const [name, size] of over) console.error(`${name} is ${kb(size)}, over its budget of ${kb(BUDGETS[name])}`);
  if (updated !== doc) console.error('docs/sdk.md is out of date: run node tools/kit/report.mjs --write');
  if (quickStartProblem) console.error(quickStartProblem);
  if (over.length || updated !== doc || quickStartProblem) process.exit(1);
}
