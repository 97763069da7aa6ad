// Shared Jest preset. Nest 12 ships ES modules only, so @swc/jest also transforms @nestjs/* (and the ESM-only
// packages they pull in) to CommonJS; tools/jest/resolver.cjs maps `./x.js` imports to `./x.ts`.
const swcOptions = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2022',
  },
  module: { type: 'commonjs' },
  sourceMaps: 'inline',
};

module.exports = {
  testEnvironment: 'node',
  // The default output, and each file's seconds when SY_TEST_TIMINGS names a file (.ci/run's timing report).
  reporters: ['default', '<rootDir>/../../tools/timing/jest-reporter.cjs'],
  resolver: '<rootDir>/../../tools/jest/resolver.cjs',
  // Jest's runtime with a V8 code cache and WebAssembly without its optimising tier (tools/jest/runtime.cjs).
  runtime: '<rootDir>/../../tools/jest/runtime.cjs',
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
  transform: { '^.+\\.(t|j|mj|cj)s$': ['@swc/jest', swcOptions] },
  transformIgnorePatterns: [
    '/node_modules/(?!(@nestjs|oauth4webapi|openid-client|jose|file-type|load-esm|uid|strtok3|token-types|@tokenizer|uint8array-extras|@borewit)/)',
  ],
  moduleNameMapper: {
    '^@switchyard/shared-dto$': '<rootDir>/../../libs/shared-dto/src/index.ts',
    '^@switchyard/shared-dto/validation$': '<rootDir>/../../libs/shared-dto/src/validation/index.ts',
    '^@switchyard/sdk$': '<rootDir>/../../libs/sdk/src/index.ts',
    '^@switchyard/react$': '<rootDir>/../../libs/react/src/index.tsx',
  },
};
