// Unit tests of the dashboard's pure logic (CSV, snippets, image sizing, OpenAPI reading...): plain .ts modules
// in Node, no DOM. Components are covered by the browser tests (tools/browser/specs).
export default {
  displayName: 'dashboard',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testEnvironment: 'node',
  testMatch: ['<rootDir>/src/**/*.spec.ts'],
};
