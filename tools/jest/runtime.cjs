// Jest's runtime for every project (jest.preset.js), with three costs of each test file taken out (issue 27,
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
// - What a worker's earlier files read, kept for its later ones: each module's transform (while its file keeps its
//   size and modification time), the code cache read or written, and each source's cache key.
//
// Everything else is Jest's own runtime. (CommonJS: Jest requires it.)
const { createHash } = require('node:crypto');
const { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } = require('node:fs');
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

// What this worker has read or written of the code cache, kept for its later files (a worker runs many).
const cachedInWorker = new Map();

function readCache(key) {
  let data = cachedInWorker.get(key);
  if (data === undefined) {
    try {
      data = readFileSync(join(CACHE_DIR, key));
    } catch {
      return undefined;
    }
    cachedInWorker.set(key, data);
  }
  return data;
}

function writeCache(key, data) {
  cachedInWorker.set(key, data);
  const file = join(CACHE_DIR, key);
  const partial = `${file}.${process.pid}`;
  try {
    writeFileSync(partial, data);
    renameSync(partial, file);
  } catch {
    // A full or read-only disk costs the next file its cache, never this file its result.
  }
}

/** The code cache's key of each module this worker compiled, so that the same source is not hashed again. */
const keyOfSource = new Map(); // filename -> { source, key }

function cacheKey(filename, source) {
  const known = keyOfSource.get(filename);
  if (known !== undefined && known.source === source) return known.key;
  const key = createHash('sha1').update(source).digest('hex');
  keyOfSource.set(filename, { source, key });
  return key;
}

/**
 * Each module's transform, kept for the worker's later files. Jest keeps a transform for one test file only, and for
 * the next file reads the module again, hashes it with the transform's options and reads the transform's own cache
 * from disk: for the app's few thousand modules, about 0.2 s of CPU per file. A kept transform is used again while
 * the module's file has the same size and modification time.
 */
const transformsInWorker = new Map(); // project + coverage + filename + options -> { stamp, file }

function stampOf(filename) {
  try {
    const { size, mtimeMs } = statSync(filename);
    return `${size}:${mtimeMs}`;
  } catch {
    return null;
  }
}

/** `scope` names what else shapes a transform: the project (a worker may run files of several) and coverage. */
function keepTransforms(transformCache, scope) {
  const transform = transformCache.transform.bind(transformCache);
  transformCache.transform = (filename, options) => {
    if (options?.isInternalModule) return transform(filename, options);
    const key = `${scope}\0${filename}\0${JSON.stringify(options ?? null)}`;
    const stamp = stampOf(filename);
    const kept = transformsInWorker.get(key);
    if (kept !== undefined && stamp !== null && kept.stamp === stamp) {
      transformCache.transforms.set(filename, kept.file);
      if (kept.file.sourceMapPath) transformCache.sourceMaps.set(filename, kept.file.sourceMapPath);
      return kept.file.code;
    }
    const code = transform(filename, options);
    const file = transformCache.transforms.get(filename);
    if (stamp !== null && file !== undefined) transformsInWorker.set(key, { stamp, file });
    return code;
  };
}

class CodeCachingRuntime extends Runtime {
  constructor(...args) {
    super(...args);
    const [config, , , , , coverageOptions] = args;
    keepTransforms(this.transformCache, `${config.id}\0${JSON.stringify(coverageOptions ?? null)}`);
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
      const key = cacheKey(filename, source);
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
