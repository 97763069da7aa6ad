/** @jest-config-loader-options {"transpileOnly": true} */
// Jest reads this file through ts-node, which by default type-checks it first: about 3.5 s of CPU on every run
// (issue 27). Transpiling is enough: Jest checks the options it reads (the API's file is typechecked too).
// Unit specs sit beside the code (*.spec.ts); a module's integration specs sit in its folder (*.integration-spec.ts:
// that module's rules on a real database); e2e specs boot the whole app and walk flows across modules
// (test/*.e2e-spec.ts). docs/architecture.md, "Tests".
//
// Two projects in one run: `api-unit` (no database, no app: `npm run test:unit` answers in seconds) and `api`
// (integration and e2e: each file copies a migrated database, test/support/test-database.ts). Jest schedules both
// on the same workers, the slowest files first.
const preset = '../../jest.preset.js';
// Each project's folder given whole: a project's own rootDir would be read from the working directory.
const rootDir = __dirname;

export default {
  // Jest's default is one worker on two cores; the suites wait on sockets and timers as much as they compute, so two
  // workers finish the whole run sooner (CI must stay well inside 30 minutes on 2 cores).
  maxWorkers: 2,
  // The default output, and each file's seconds when SY_TEST_TIMINGS names a file (.ci/run's timing report).
  reporters: ['default', '<rootDir>/../../tools/timing/jest-reporter.cjs'],
  // A global option (a project's own is ignored): every file, the booted apps' included.
  testTimeout: 60_000,
  rootDir: '.',
  projects: [
    {
      displayName: 'api-unit',
      preset,
      rootDir,
      testMatch: ['<rootDir>/src/**/*.spec.ts'],
    },
    {
      displayName: 'api',
      preset,
      rootDir,
      testMatch: ['<rootDir>/src/**/*.integration-spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
    },
  ],
};
