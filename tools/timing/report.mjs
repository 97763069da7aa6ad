// The timing report `.ci/run` prints at its end: each step's seconds (and whether it passed), then the ten slowest
// test files across every Jest run (tools/timing/jest-reporter.cjs), and the count of test files and tests.
//   node tools/timing/report.mjs <steps.tsv> <tests.jsonl>
// steps.tsv: one "<seconds>\t<exit code>\t<name>" line per step.
import { existsSync, readFileSync } from 'node:fs';

const [stepsFile, testsFile] = process.argv.slice(2);
const lines = (file) => (file && existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : []);

console.log('\n=== timing report');
console.log('steps (seconds; steps side by side overlap):');
for (const line of lines(stepsFile)) {
  const [seconds, code, name] = line.split('\t');
  console.log(`${seconds.padStart(6)}  ${code === '0' ? 'ok    ' : `FAILED (${code})`}  ${name}`);
}
const files = lines(testsFile).map((line) => JSON.parse(line));
const slowest = [...files].sort((a, b) => b.seconds - a.seconds).slice(0, 10);
console.log('\nthe ten slowest test files:');
for (const f of slowest) console.log(`${f.seconds.toFixed(1).padStart(7)}  ${f.database.padEnd(8)}  ${f.file}`);
const tests = files.reduce((sum, f) => sum + f.tests, 0);
const byDatabase = (db) => files.filter((f) => f.database === db);
console.log(
  `\n${files.length} test files run, ${tests} tests (embedded ${byDatabase('embedded').length} files, ` +
    `PostgreSQL ${byDatabase('postgres').length} files)`,
);
