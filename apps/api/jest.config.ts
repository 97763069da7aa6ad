// Unit specs sit beside the code (*.spec.ts); a module's integration specs sit in its folder (*.integration-spec.ts:
// that module's rules on a real database); e2e specs boot the whole app and walk flows across modules
// (test/*.e2e-spec.ts). docs/architecture.md, "Tests".
export default {
  displayName: 'api',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testMatch: [
    '<rootDir>/src/**/*.spec.ts',
    '<rootDir>/src/**/*.integration-spec.ts',
    '<rootDir>/test/**/*.e2e-spec.ts',
  ],
  testTimeout: 60_000,
  // Jest's default is one worker on two cores; the suites wait on sockets and timers as much as they compute, so two
  // workers finish the whole run sooner (CI must stay well inside 30 minutes on 2 cores).
  maxWorkers: 2,
};
