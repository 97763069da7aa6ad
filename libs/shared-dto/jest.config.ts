/** @jest-config-loader-options {"transpileOnly": true} */
// Jest reads this file through ts-node, which by default type-checks it first: about 3.5 s of CPU on every run
// (issue 27). Transpiling is enough: Jest checks the options it reads (the API's file is typechecked too).
export default {
  displayName: 'shared-dto',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
