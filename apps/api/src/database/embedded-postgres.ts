import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { PGlite } from '@electric-sql/pglite';
import { PgliteBridge } from './pglite-bridge';

/**
 * PGlite's start parameters plus a 32 MB buffer pool instead of initdb's 128 MB. The pool lives in PGlite's
 * WebAssembly memory, whose touched pages stay resident for the process's life (it never shrinks): 128 MB made
 * that memory 188 MB with about 160 MB resident under load, 32 MB keeps it at its initial 128 MB with about 55 MB
 * resident, about 100 MB less RSS at start and at the peak of the bench (docs/benchmarks.md, 2026-11-29). The
 * embedded database is for small installations; a bigger one belongs on PostgreSQL.
 *
 * And no sequential scan where an index leads to the rows (enable_seqscan = off). The gateway's statements are
 * prepared once per connection and PostgreSQL keeps a generic plan of them, made from the tables as they were
 * then; PGlite has no autovacuum, so no ANALYZE ever makes it plan again. A plan made while `reservations` was
 * small read the whole table for every settlement batch, and the cost per call grew with the table: in the bench,
 * json-100 at 0.45 ms of CPU per call after a minute of load against 0.34 with this setting (database/hot-path.ts
 * has the same for PostgreSQL's batch sessions). Queries that must read a whole table still do.
 */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=32MB', '-c', 'enable_seqscan=off'];

/**
 * PGlite's WebAssembly compiled by Liftoff (V8's baseline compiler) only, never again by TurboFan for the functions
 * that turn hot. PGlite is 9 MB of WebAssembly: V8's default tiering kept 60–90 MB more resident (the background
 * compilations' memory and both tiers' code), the embedded process's peak under 100 streams 400–510 MB against
 * 326–427 MB in alternating runs, an idle server 332–366 MB against 254–274 MB (docs/benchmarks.md, 2026-11-29,
 * "WebAssembly tiering"), and start-up is a second faster. The price, measured on a quiet machine: about 15% of the
 * embedded database's throughput under 100 connections and 13–18% more CPU per call, a trade for small
 * installations (a busier one belongs on PostgreSQL). TurboFan only (`--no-liftoff`) was faster but saved nothing at
 * the peak. The flag is the process's: set when an embedded database opens, so PostgreSQL mode keeps V8's defaults;
 * it applies to all WebAssembly compiled after it (undici's HTTP parser included). A `--liftoff…` flag given to node
 * is kept.
 */
export function wasmTieringFlag(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): string | null {
  return nodeWasGiven(/^--(no-)?liftoff/, execArgv, nodeOptions) ? null : '--liftoff-only';
}

/** Whether node was started with a flag matching `pattern`, on its command line or in NODE_OPTIONS. */
function nodeWasGiven(pattern: RegExp, execArgv: readonly string[], nodeOptions: string): boolean {
  return [...execArgv, ...nodeOptions.split(/\s+/)].some((flag) => pattern.test(flag));
}

function compileWebAssemblyWithLiftoff(): void {
  const flag = wasmTieringFlag();
  if (flag) setFlagsFromString(flag);
}

/**
 * The old generation grows by half of what survived its last full collection before the next one (V8's own
 * factor, 1.1–4× depending on how fast it collects, let it reach twice to four times that). Under load the server
 * promotes call and stream objects that die soon after; with V8's factor they piled up to 217 MB before a full
 * collection freed half of them, and the embedded process (one V8 heap, PGlite's memory, node) peaked at
 * 404–512 MB in the bench's four scenarios against 329–345 MB with this flag (three runs against five), for
 * about 30% more CPU per call in json-100 and none measurable in the other three (docs/benchmarks.md, 2026-11-29,
 * "Heap growth"); growth by 100% peaked at 355–381 MB. Like
 * Liftoff, a trade for a small installation, set when an embedded database opens on a data folder (a served
 * installation; not the test databases in memory), so PostgreSQL mode keeps V8's defaults. A
 * `--heap-growing-percent` given to node is kept.
 */
export function heapGrowthFlag(
  execArgv: readonly string[] = process.execArgv,
  nodeOptions = process.env.NODE_OPTIONS ?? '',
): string | null {
  return nodeWasGiven(/^--heap[-_]growing[-_]percent\b/, execArgv, nodeOptions) ? null : '--heap-growing-percent=50';
}

/**
 * Embedded PostgreSQL for zero-setup runs: PGlite (PostgreSQL compiled to WASM) behind a socket bridge
 * (pglite-bridge.ts), reached with the ordinary `pg` driver. Why not typeorm-pglite: it hands one PGlite session to
 * every caller, so concurrent transactions interleave and `SELECT … FOR UPDATE` protects nothing. The bridge runs
 * each connection's query as one batch and whole transactions one at a time (docs/database.md), which keeps row
 * locks correct; the price is one transaction at a time.
 */
export class EmbeddedPostgres {
  private constructor(
    private readonly db: PGlite,
    private readonly bridge: PgliteBridge,
    private readonly lockFile: string | null,
    readonly url: string,
  ) {}

  /**
   * @param dataDir folder to persist to, or `memory://` for a throw-away database (tests).
   * @param snapshot for `memory://` only: a data folder dumped by `dump()` to start from instead of an empty
   *   database (tests start from one migrated copy: test/support/test-database.ts).
   */
  static async start(dataDir: string, snapshot: Blob | null = null): Promise<EmbeddedPostgres> {
    let lockFile: string | null = null;
    let db: PGlite;
    compileWebAssemblyWithLiftoff(); // before PGlite compiles its WebAssembly
    if (dataDir === 'memory://') {
      db = await PGlite.create({ ...(snapshot ? { loadDataDir: snapshot } : {}), startParams: START_PARAMS });
    } else {
      const growth = heapGrowthFlag();
      if (growth) setFlagsFromString(growth);
      const root = resolve(dataDir);
      mkdirSync(root, { recursive: true });
      lockFile = acquireLock(join(root, 'switchyard.lock'));
      try {
        const folder = join(root, 'pglite');
        if (!existsSync(join(folder, 'PG_VERSION')) && !(await initialiseApart(folder)))
          rmSync(folder, { recursive: true, force: true }); // a half-made folder: initialised here instead
        db = await PGlite.create({ dataDir: folder, startParams: START_PARAMS });
      } catch (error) {
        releaseLock(lockFile);
        throw error;
      }
    }
    const bridge = new PgliteBridge(db);
    const port = await bridge.start('127.0.0.1');
    return new EmbeddedPostgres(db, bridge, lockFile, `postgres://postgres@127.0.0.1:${port}/postgres`);
  }

  /** The data folder as an uncompressed tarball (PGlite's dumpDataDir), for `start(…, snapshot)`. */
  async dump(): Promise<Blob> {
    return this.db.dumpDataDir('none');
  }

  async stop(): Promise<void> {
    await this.bridge.stop();
    await this.db.close();
    if (this.lockFile) releaseLock(this.lockFile);
  }
}

/**
 * Initialises a fresh data folder (initdb) in a child process. PGlite runs initdb in the WebAssembly memory of the
 * instance that creates the folder; that memory grows to about 600 MB and a WebAssembly memory never shrinks, so the
 * serving process kept it for its whole life (the embedded database's peak of about 940 MB in docs/benchmarks.md).
 * Opened once initialised, the database starts at about a third of that. False when the child could not do it (the
 * caller then initialises in this process, as before).
 */
function initialiseApart(folder: string): Promise<boolean> {
  let entry: string;
  try {
    entry = createRequire(resolve(process.argv[1] ?? 'index.js')).resolve('@electric-sql/pglite');
  } catch {
    return Promise.resolve(false);
  }
  const script =
    'const [entry, dataDir] = process.argv.slice(1);' +
    'require(entry).PGlite.create({ dataDir }).then((db) => db.close())' +
    '.then(() => process.exit(0), (error) => { console.error(error); process.exit(1); });';
  return new Promise((done) => {
    const child = spawn(process.execPath, ['-e', script, entry, folder], { stdio: 'ignore' });
    child.on('error', () => done(false));
    child.on('exit', (code) => done(code === 0));
  });
}

export class DataDirInUseError extends Error {}

/**
 * Only one process may own an embedded data folder: two PGlite instances on one folder would corrupt it.
 * A lock left by a process that died is taken over.
 */
const heldByThisProcess = new Set<string>();

function acquireLock(path: string): string {
  if (heldByThisProcess.has(path))
    throw new DataDirInUseError(
      `DATA_DIR ${resolve(path, '..')} is already open in this process; set DATA_DIR to another folder`,
    );
  for (let attempt = 0; attempt < 2; attempt += 1) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      heldByThisProcess.add(path);
      return path;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new DataDirInUseError(
          `DATA_DIR ${resolve(path, '..')} is in use by process ${owner}; stop that process or set DATA_DIR to another folder`,
        );
      }
      rmSync(path, { force: true });
    }
  }
  throw new DataDirInUseError(`Could not lock ${path}; remove it if no Switchyard process is running`);
}

function releaseLock(path: string): void {
  heldByThisProcess.delete(path);
  if (existsSync(path) && readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
