/* Unit specs sit beside the code (*.spec.ts); integration specs boot the real app (*.integration-spec.ts). */
export default {
  displayName: 'api',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/src/**/*.integration-spec.ts', '<rootDir>/test/**/*.integration-spec.ts'],
  testTimeout: 60_000,
};
