// Jest's module resolver for every project (jest.preset.js): Jest's own, plus the one rule of TypeScript's that the
// SDK and React kit need, a relative `./x.js` import that names `./x.ts` or `./x.tsx`. (Workspace aliases are
// moduleNameMapper's.) It replaces @nx/jest's resolver, whose fallback for any module Jest could not find loaded
// TypeScript, @nx/js and Nx (which runs git three times) in every worker, because TypeORM asks for its optional
// drivers (pg-native) on each database it opens: 2–3 s of CPU per worker (issue 27). (CommonJS: Jest requires it.)
const { existsSync } = require('node:fs');
const { resolve } = require('node:path');

const TS_FOR_JS = { '.js': ['.ts', '.tsx'], '.mjs': ['.mts'], '.cjs': ['.cts'] };

module.exports = function resolver(path, options) {
  try {
    return options.defaultResolver(path, options);
  } catch (error) {
    const ext = /\.[cm]?js$/.exec(path)?.[0];
    if (ext && path.startsWith('.')) {
      for (const tsExt of TS_FOR_JS[ext]) {
        const candidate = resolve(options.basedir, path.slice(0, -ext.length) + tsExt);
        if (existsSync(candidate)) return candidate;
      }
    }
    throw error;
  }
};
