// Jest's runtime for every project (jest.preset.js), with two costs of each test file taken out (issue 27,
// docs/architecture.md "Tests"). Jest gives every test file a fresh module registry, so each file compiles all it
// loads again (Nest, TypeORM, the app's own modules) and each embedded database compiles PGlite's WebAssembly again.
//
// - V8 code cache: each module Jest runs is compiled as a `vm.Script` with the code cache a previous file left for
//   the same source (V8 checks the source and its own version and flags, and rejects a cache that does not fit);
//   at the file's end the scripts that ran without one write theirs, which then holds every function the file
//   called, not only the module's top level. Kept under the system's temporary folder, one file per source hash,
//   each written aside and renamed (two workers writing at once each leave a whole file).
// - WebAssembly without the optimising tier (`--liftoff-only`, set once per worker before anything compiles): a
//   test file's database lives a few seconds, too short for TurboFan's compile of PGlite's hot functions to pay
//   for itself (0.5–0.7 s of CPU per database start). An embedded database sets the same flag when it opens
//   (database/embedded-postgres.ts); setting it here first keeps V8's flags, and so the code cache, the same for the
//   worker's whole life, and covers the PostgreSQL pass too.
//
// Everything else is Jest's own runtime. (CommonJS: Jest requires it.)
const { createHash } = require('node:crypto');
const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { Script } = require('node:vm');
const v8 = require('node:v8');
const Runtime = require('jest-runtime').default;

v8.setFlagsFromString('--liftoff-only');

const CACHE_DIR = join(tmpdir(), 'switchyard-jest-code-cache', `${process.version}-${process.arch}`);
// Every edited module leaves its old entry behind: past about ten runs' worth of modules the folder starts afresh
// (the next files fill it again), so months of edits never fill the disk.
const MAX_ENTRIES = 30_000;
try {
  if (readdirSync(CACHE_DIR).length > MAX_ENTRIES) rmSync(CACHE_DIR, { recursive: true, force: true });
} catch {
  // No folder yet.
}
mkdirSync(CACHE_DIR, { recursive: true });

function readCache(key) {
  try {
    return readFileSync(join(CACHE_DIR, key));
  } catch {
    return undefined;
  }
}

function writeCache(key, data) {
  const file = join(CACHE_DIR, key);
  const partial = `${file}.${process.pid}`;
  try {
    writeFileSync(partial, data);
    renameSync(partial, file);
  } catch {
    // A full or read-only disk costs the next file its cache, never this file its result.
  }
}

class CodeCachingRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    const executor = this.executor;
    const jestCompile = executor.compile.bind(executor);
    /** Scripts that ran without a usable cache: theirs is written when the file ends. */
    const pending = [];
    this.codeCachePending = pending;
    executor.compile = function compile(scriptSource, filename) {
      const vmContext = this.environment.getVmContext();
      // A script made from a code cache loses its dynamic import() callback on node 20 ("A dynamic import callback
      // was not specified"), so a module that may call import() is compiled Jest's way, without a cache.
      if (vmContext == null || this.resolution.isCoreModule(filename) || scriptSource.includes('import('))
        return jestCompile(scriptSource, filename);
      // One line, so that the module's own lines keep their numbers in stack traces and source maps.
      const source = `(function (${this.injectedModuleParameters.join(', ')}) {${scriptSource}\n})`;
      const key = createHash('sha1').update(source).digest('hex');
      const cachedData = readCache(key);
      let script;
      try {
        script = new Script(source, {
          filename,
          cachedData,
          importModuleDynamically: (specifier, _script, importAttributes, phase) =>
            this.dynamicImport(specifier, filename, vmContext, importAttributes, phase),
        });
      } catch {
        return jestCompile(scriptSource, filename); // Jest's own compile reports the syntax error its way
      }
      if (cachedData === undefined || script.cachedDataRejected) pending.push({ key, script });
      return script.runInContext(vmContext);
    };
  }

  teardown() {
    for (const { key, script } of this.codeCachePending.splice(0)) writeCache(key, script.createCachedData());
    super.teardown();
  }
}

module.exports = CodeCachingRuntime;
module.exports.default = CodeCachingRuntime;
