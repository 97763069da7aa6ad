// ESLint for the whole workspace (`npm run lint`). TypeScript is linted with type information, so promises that
// nobody awaits, promises passed where a callback's result is ignored, and switches that miss a case fail here.
import js from '@eslint/js';
import comments from '@eslint-community/eslint-plugin-eslint-comments/configs';
import nx from '@nx/eslint-plugin';
import query from '@tanstack/eslint-plugin-query';
import reactHooks from 'eslint-plugin-react-hooks';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import { importLayers } from './tools/eslint/import-layers.mjs';
import { moduleFaces } from './tools/eslint/module-faces.mjs';

const TS = ['**/*.ts', '**/*.tsx'];
/** The project's own rules (tools/eslint/), each with its test run by `npm run lint` first. */
const switchyardPlugin = {
  meta: { name: 'switchyard' },
  rules: { 'module-faces': moduleFaces, 'import-layers': importLayers },
};
const TESTS = ['**/*.spec.ts', '**/*.integration-spec.ts', 'apps/api/test/**/*.ts'];

/**
 * The proxy module's layers, lowest first (docs/architecture.md, "Lint"): a folder imports only those before it, and
 * none of the module's root files (the composition: the HTTP face, the allowlist, the module and its face).
 */
const PROXY_LAYERS = [
  'wire',
  'catalog',
  'errors',
  'videos',
  'upstream',
  'credentials',
  'policy',
  'call',
  'metering',
  'billing',
  'relay',
  'routing',
  'providers',
  'faces',
  'pipeline',
];
const PROXY_ROOT = [
  'allowlist',
  'front-door',
  'gateway-faces',
  'gateway-openapi',
  'gateway.service',
  'index',
  'proxy.module',
];

export default defineConfig(
  globalIgnores([
    '**/node_modules/**',
    '**/dist/**',
    '**/coverage/**',
    'data/**',
    'tmp/**',
    'tools/browser/artifacts/**',
    // Read by Jest alone and typechecked by no tsconfig (the API's jest.config.ts is, and is linted).
    'jest.config.ts',
    'jest.preset.js',
    'apps/dashboard/jest.config.ts',
    'libs/shared-dto/jest.config.ts',
    'libs/sdk/jest.config.ts',
    'libs/react/jest.config.ts',
  ]),
  {
    linterOptions: { reportUnusedDisableDirectives: 'error', reportUnusedInlineConfigs: 'error' },
  },

  // Every file: JavaScript's recommended rules, and a disable comment names its rule and says why.
  js.configs.recommended,
  comments.recommended,
  {
    rules: {
      '@eslint-community/eslint-comments/require-description': ['error', { ignore: ['eslint-enable'] }],
      '@eslint-community/eslint-comments/disable-enable-pair': ['error', { allowWholeFile: true }],
    },
  },

  // TypeScript, type-aware.
  {
    files: TS,
    extends: [tseslint.configs.recommendedTypeChecked],
    languageOptions: {
      // The tsconfigs that typecheck each file (`npm run typecheck`), named rather than looked up: the API's build
      // config resolves the shared library to its build output, which a fresh checkout does not have.
      parserOptions: {
        tsconfigRootDir: import.meta.dirname,
        project: [
          'apps/api/tsconfig.spec.json',
          'apps/dashboard/tsconfig.app.json',
          'apps/dashboard/tsconfig.spec.json',
          'apps/dashboard/tsconfig.node.json',
          'libs/shared-dto/tsconfig.spec.json',
          'libs/sdk/tsconfig.spec.json',
          'libs/react/tsconfig.spec.json',
          'apps/example-chat/tsconfig.app.json',
          'apps/example-chat/tsconfig.node.json',
        ],
      },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true, requireDefaultForNonUnion: false },
      ],
      // `async` marks what answers with a promise (an interface's method, a fake of one) even when it awaits
      // nothing, so that a throw becomes a rejection: the intent, not a forgotten await.
      '@typescript-eslint/require-await': 'off',
      // Untrusted JSON and YAML values are coerced on purpose with String(value ?? ''); TypeScript types that
      // `{}`, which this rule takes for an object. Template literals stay checked (restrict-template-expressions).
      '@typescript-eslint/no-base-to-string': 'off',
      // A caught error (typed unknown) is passed on as it is, like a rethrow (only-throw-error allows that too).
      '@typescript-eslint/prefer-promise-reject-errors': ['error', { allowThrowingUnknown: true }],
      // `_name` marks a binding kept on purpose: a rest sibling that drops a field, a parameter an interface demands.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
    },
  },
  {
    // Tests read answers as JSON (`any`) and let a wrong field fail the assertion, rather than declare a type per
    // answer; they also hand methods to `expect` and Jest's spies, which the unbound-method rule cannot tell apart.
    files: TESTS,
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },

  // Nx project boundaries: the apps may use the shared library, which uses neither; the apps never each other.
  {
    files: TS,
    plugins: { '@nx': nx },
    rules: {
      '@nx/enforce-module-boundaries': [
        'error',
        {
          allow: [],
          depConstraints: [
            // The API's tests drive the published kit (libs/sdk, libs/react) against the server.
            { sourceTag: 'scope:api', onlyDependOnLibsWithTags: ['scope:shared', 'scope:kit'] },
            { sourceTag: 'scope:dashboard', onlyDependOnLibsWithTags: ['scope:shared'] },
            { sourceTag: 'scope:shared', onlyDependOnLibsWithTags: [] },
            // The kit is published to npm: it may use nothing of the workspace but itself.
            { sourceTag: 'scope:kit', onlyDependOnLibsWithTags: ['scope:kit'] },
            { sourceTag: 'scope:example', onlyDependOnLibsWithTags: ['scope:kit'] },
          ],
        },
      ],
    },
  },

  // The API: modules meet only at their faces, modules/<name>/index.ts (docs/architecture.md, "Module faces").
  {
    files: ['apps/api/src/**/*.ts', 'apps/api/test/**/*.ts'],
    plugins: { switchyard: switchyardPlugin },
    rules: { 'switchyard/module-faces': 'error' },
  },
  {
    files: ['apps/api/test/**/*.ts'],
    rules: {
      'switchyard/module-faces': [
        'error',
        {
          allow: [
            // test/money-attacks: the database refuses settlements for a second (a "blip") through a spy on the
            // repository that writes them; no public service fails on purpose.
            'usage/ledger/reservations.repository',
          ],
        },
      ],
    },
  },
  {
    // Feeds provider fixtures through the SSE parser and a translator's stream, for the proxy module's own specs
    // (providers/*/*.translator.spec.ts, metering/token-usage.spec.ts), its only users.
    files: ['apps/api/test/support/translator-stream.ts'],
    rules: {
      'switchyard/module-faces': ['error', { allow: ['proxy/wire/sse', 'proxy/providers/translator.types'] }],
    },
  },

  {
    // The proxy module in layers: each folder below those after it (call/ and billing/ below the providers and the
    // faces), and the faces and the providers never importing each other (docs/architecture.md, "Lint").
    files: ['apps/api/src/modules/proxy/**/*.ts'],
    ignores: TESTS,
    rules: {
      'switchyard/import-layers': [
        'error',
        {
          root: 'apps/api/src/modules/proxy',
          siblings: ['faces', 'providers'],
          forbid: PROXY_LAYERS.map((from, at) => ({ from, to: [...PROXY_LAYERS.slice(at + 1), ...PROXY_ROOT] })),
        },
      ],
    },
  },

  // No source file over 450 lines: one that long does more than one thing (docs/architecture.md, "Lint"). Tests are
  // not held to it (a suite about one subject reads best as one file).
  {
    files: ['apps/**/*.{ts,tsx,mjs,js,cjs}', 'libs/**/*.{ts,tsx,mjs,js,cjs}', 'tools/**/*.{mjs,js,cjs}'],
    ignores: [...TESTS, '**/*.spec.tsx', '**/*.e2e-spec.ts', '**/*.test.mjs'],
    rules: { 'max-lines': ['error', { max: 450, skipBlankLines: false, skipComments: false }] },
  },

  // The dashboard: React's hook rules and TanStack Query's strict preset.
  {
    files: ['apps/dashboard/src/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat['recommended-latest'], query.configs['flat/recommended-strict']],
  },
  {
    // Feature folders never import each other (app/routes composes them), and lib/ and components/ sit below the
    // features and the app shell (docs/architecture.md, "Lint").
    files: ['apps/dashboard/src/**/*.{ts,tsx}'],
    plugins: { switchyard: switchyardPlugin },
    rules: {
      'switchyard/import-layers': [
        'error',
        {
          root: 'apps/dashboard/src',
          siblings: ['features'],
          forbid: [
            { from: 'lib', to: ['features', 'app'] },
            { from: 'components', to: ['features', 'app'] },
          ],
        },
      ],
    },
  },
  // The kit's React components and the example app: React's hook rules.
  {
    files: ['libs/react/src/**/*.{ts,tsx}', 'apps/example-chat/src/**/*.{ts,tsx}'],
    extends: [reactHooks.configs.flat['recommended-latest']],
  },

  // Plain JavaScript run by Node: the tools, and helpers of the API's tests.
  {
    files: ['**/*.mjs', '**/*.js', '**/*.cjs'],
    languageOptions: { ecmaVersion: 'latest', sourceType: 'module', globals: globals.node },
  },
  {
    // The browser tests' page functions run in Chromium (page.evaluate, waitForFunction).
    files: ['tools/browser/**/*.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.browser } },
  },
);
