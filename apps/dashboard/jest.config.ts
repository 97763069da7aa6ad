/** @jest-config-loader-options {"transpileOnly": true} */
// Jest reads this file through ts-node, which by default type-checks it first: about 3.5 s of CPU on every run
// (issue 27). Transpiling is enough: Jest checks the options it reads (the API's file is typechecked too).
// Unit tests of the dashboard's pure logic (CSV, snippets, image sizing, OpenAPI reading...): plain .ts modules
// in Node, no DOM. Components are covered by the browser tests (tools/browser/specs).
export default {
  displayName: 'dashboard',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
