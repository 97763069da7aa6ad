// A Jest reporter that, when SY_TEST_TIMINGS names a file, appends one JSON line per test file: its path, seconds,
// tests, and the database it ran on. `.ci/run` collects them for its timing report (tools/timing/report.mjs);
// without SY_TEST_TIMINGS it does nothing. (CommonJS: Jest loads reporters with require.)
const { appendFileSync } = require('node:fs');
const { relative } = require('node:path');

class TimingReporter {
  onTestResult(_test, result) {
    const file = process.env.SY_TEST_TIMINGS;
    if (!file) return;
    const { start, end } = result.perfStats;
    const line = {
      file: relative(process.cwd(), result.testFilePath),
      seconds: Math.round((end - start) / 100) / 10,
      tests: result.numPassingTests + result.numFailingTests + result.numPendingTests + result.numTodoTests,
      database: process.env.DATABASE_URL ? 'postgres' : 'embedded',
    };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
  }
}

module.exports = TimingReporter;
