/** @jest-config-loader-options {"transpileOnly": true} */
// Jest reads this file through ts-node, which by default type-checks it first: about 3.5 s of CPU on every run
// (issue 27). Transpiling is enough: Jest checks the options it reads (the API's file is typechecked too).
// The React components rendered to HTML in Node (react-dom/server): markup, labels, themes. Their behaviour in a
// browser (popups, the balance, sign-out) is the example app's browser test (tools/browser/specs/example-chat.mjs).
export default {
  displayName: 'react',
  preset: '../../jest.preset.js',
  rootDir: '.',
  testMatch: ['<rootDir>/src/**/*.spec.tsx'],
  moduleFileExtensions: ['tsx', 'ts', 'js', 'mjs', 'cjs', 'json'],
  transform: {
    '^.+\\.tsx$': [
      '@swc/jest',
      {
        jsc: {
          parser: { syntax: 'typescript', tsx: true },
          transform: { react: { runtime: 'automatic' } },
          target: 'es2022',
        },
        module: { type: 'commonjs' },
      },
    ],
    '^.+\\.(t|j|mj|cj)s$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } },
    ],
  },
};
