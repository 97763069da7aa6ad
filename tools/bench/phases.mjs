// The phases of a run: one scenario through a fresh load-generator process (with the CPU and memory it cost), the
// sequential run of each target, the interleaved rounds, and the CPU-profile pass.
import { fork } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { cpuMs, log, machineBusyMs, median, memoryMb, stopChild } from './common.mjs';
import { summariseProfile } from './profile.mjs';
import { fmtScenario } from './report.mjs';
import {
  CHUNK_CHECK_REQUESTS,
  children,
  DURATION_MS,
  HERE,
  ROUND_DURATION_MS,
  ROUND_TARGETS,
  ROUND_WARMUP_MS,
  ROUNDS,
  SCENARIOS,
  WARMUP_MS,
  work,
} from './settings.mjs';
import {
  chatBody,
  countUsageEmbedded,
  countUsagePg,
  dropScratchDb,
  smoke,
  startSwitchyard,
  startTarget,
  TARGETS,
} from './targets.mjs';

// ---- one scenario --------------------------------------------------------------------------------------

/**
 * Runs one job in a fresh load-generator process. `watch.pid` is the server under test (its CPU time in the
 * measured window and its peak RSS are recorded); `watch.upstreamPid` the fake upstream; `watch.pgPids()` the
 * PostgreSQL backends serving it. Whatever else used the machine in the window is reported as `otherCores`.
 */
function runLoad(job, watch) {
  const pids = watch.pids ?? [watch.pid];
  const sum = (values) => (values.some((v) => v === null) ? null : values.reduce((a, b) => a + b, 0));
  return new Promise((res, rej) => {
    const child = fork(join(HERE, 'load.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.add(child);
    const snap = async () => {
      const pgPids = watch.pgPids ? await watch.pgPids().catch(() => []) : [];
      return {
        at: Number(process.hrtime.bigint() / 1000n),
        target: sum(pids.map((p) => cpuMs(p))),
        targetUser: sum(pids.map((p) => cpuMs(p, 'user'))),
        upstream: watch.upstreamPid && !pids.includes(watch.upstreamPid) ? cpuMs(watch.upstreamPid) : 0,
        load: cpuMs(child.pid),
        machine: machineBusyMs(),
        pg: new Map(pgPids.map((p) => [p, cpuMs(p)])),
      };
    };
    let first = null;
    let last = null;
    let peakRss = 0;
    const sampler = setInterval(() => {
      const rss = sum(pids.map((p) => memoryMb(p)?.rss ?? null));
      if (rss && rss > peakRss) peakRss = rss;
    }, 100);
    const hardTimer = setTimeout(() => child.kill('SIGKILL'), (job.warmupMs ?? 0) + (job.durationMs ?? 0) + 60_000);
    let settled = false;
    child.on('message', async (message) => {
      if (message.event === 'measure-start') first = snap();
      else if (message.event === 'measure-end') last = snap();
      else if (message.result) {
        settled = true;
        const a = first ? await first : null;
        const b = last ? await last : null;
        const extra = {
          windowUs: [a?.at ?? null, b?.at ?? null],
          cpuMs: null,
          peakRssMb: peakRss,
          hwmMb: sum(pids.map((p) => memoryMb(p)?.hwm ?? null)),
        };
        if (a && b && a.target !== null && b.target !== null) {
          const ms = (b.at - a.at) / 1000;
          extra.cpuMs = b.target - a.target;
          extra.cpuUserMs = b.targetUser - a.targetUser;
          let pgMs = 0;
          for (const [p, end] of b.pg) pgMs += (end ?? 0) - (a.pg.get(p) ?? 0);
          extra.pgCpuMs = watch.pgPids ? pgMs : null;
          const ours = extra.cpuMs + (b.upstream - a.upstream) + (b.load - a.load) + pgMs;
          extra.loadGenCores = (b.load - a.load) / ms;
          extra.otherCores = Math.max(0, (b.machine - a.machine - ours) / ms);
        }
        res({ ...message.result, ...extra });
      } else if (message.failure) {
        settled = true;
        rej(new Error(message.failure));
      }
    });
    child.on('exit', (code) => {
      clearInterval(sampler);
      clearTimeout(hardTimer);
      children.delete(child);
      if (!settled) rej(new Error(`load generator exited (${code}) without a result`));
    });
    child.send(job);
  });
}

const QUIET_CORES = 0.3;
let quietBudgetMs = Number(process.env.BENCH_QUIET_MAX_MS ?? 120_000);

/**
 * Other engineers' builds and tests may share this machine. Before a scenario, waits (at most 15 s, and at most
 * BENCH_QUIET_MAX_MS over the whole run) until the machine is nearly idle; whatever load remains is measured
 * during the window and reported.
 */
async function waitForQuiet() {
  const deadline = Date.now() + Math.min(15_000, quietBudgetMs);
  let announced = false;
  const started = Date.now();
  for (;;) {
    const before = machineBusyMs();
    await sleep(500);
    const cores = (machineBusyMs() - before) / 500;
    if (cores < QUIET_CORES || Date.now() >= deadline) {
      quietBudgetMs -= Date.now() - started;
      if (announced)
        log(
          `  (machine ${cores < QUIET_CORES ? 'quiet again' : `still busy: ${cores.toFixed(2)} cores`} after ${((Date.now() - started) / 1000).toFixed(0)} s)`,
        );
      return;
    }
    if (!announced)
      log(
        `  (other work is using ${cores.toFixed(2)} cores; waiting up to ${((deadline - Date.now()) / 1000).toFixed(0)} s for it to settle)`,
      );
    announced = true;
  }
}

async function scenario(target, spec, { warmupMs = WARMUP_MS, durationMs = DURATION_MS } = {}) {
  await waitForQuiet();
  const result = await runLoad(
    {
      kind: 'load',
      url: `${target.base}/v1/chat/completions`,
      urls: (target.bases ?? [target.base]).map((base) => `${base}/v1/chat/completions`),
      headers: target.headers,
      body: chatBody(target.model ?? 'bench-model', spec.stream),
      connections: spec.connections,
      warmupMs,
      durationMs,
      stream: spec.stream,
      maxRequests: 2_000_000,
    },
    target,
  );
  result.cpuMsPerCall = result.cpuMs !== null && result.requests ? result.cpuMs / result.requests : null;
  result.cpuCores = result.cpuMs !== null ? result.cpuMs / durationMs : null;
  result.pgCpuMsPerCall =
    result.pgCpuMs !== null && result.pgCpuMs !== undefined && result.requests
      ? result.pgCpuMs / result.requests
      : null;
  return result;
}

async function chunkCheck(target) {
  return runLoad(
    {
      kind: 'chunks',
      url: `${target.base}/v1/chat/completions`,
      headers: target.headers,
      body: chatBody('bench-slow', true),
      requests: CHUNK_CHECK_REQUESTS,
    },
    target,
  );
}

// ---- each target, then the interleaved rounds ---------------------------------------------------------------

export async function benchTarget(target, upstream) {
  const outcome = {
    id: target.id,
    label: target.label,
    scenarios: {},
    error: null,
    chunks: null,
    usage: null,
    extraCalls: 0,
  };
  let handle = null;
  let stop = async () => undefined;
  try {
    ({ handle, stop } = await startTarget(target, upstream));
    outcome.extraCalls += await smoke(handle);
    outcome.startRssMb = memoryMb(handle.pid)?.rss ?? null;
    for (const spec of SCENARIOS.filter((s) => !target.scenarios || target.scenarios.includes(s.id))) {
      const result = await scenario(handle, spec);
      outcome.scenarios[spec.id] = result;
      log(fmtScenario(target.id, spec, result));
    }
    if (target.variant) {
      outcome.hwmMb = memoryMb(handle.pid)?.hwm ?? null;
      return outcome;
    }
    outcome.chunks = await chunkCheck(handle);
    outcome.extraCalls += outcome.chunks.ok;
    const arrivals = outcome.chunks.runs.find((r) => r.length);
    log(
      `  ${target.id.padEnd(20)} bench-slow chunks arrive at ${arrivals ? arrivals.map((t) => t.toFixed(0)).join(', ') : 'n/a'} ms${outcome.chunks.firstError ? ` (${outcome.chunks.firstError})` : ''}`,
    );
    outcome.hwmMb = memoryMb(handle.pid)?.hwm ?? null;
  } catch (error) {
    outcome.error = error.message;
    log(`  ${target.id}: FAILED: ${error.message}`);
  } finally {
    await stop();
  }
  // Sanity check: one usage row per call that completed.
  if (handle?.sy && !outcome.error) {
    try {
      const rows = handle.kind === 'postgres' ? await countUsagePg() : await countUsageEmbedded(handle.sy.dataDir);
      const expected = Object.values(outcome.scenarios).reduce((sum, r) => sum + r.totalOk, 0) + outcome.extraCalls;
      outcome.usage = { rows, expected };
      log(`  ${target.id}: usage_records ${JSON.stringify(rows)}, calls completed ${expected}`);
    } catch (error) {
      outcome.usage = { error: error.message };
    }
    if (handle.kind === 'postgres') await dropScratchDb().catch(() => undefined);
  }
  return outcome;
}

/**
 * The ratio targets compare targets measured one after another, on a machine whose speed drifts by tens of
 * percent within minutes. Here relay, Portkey and Switchyard (PostgreSQL) run side by side (idle while another
 * is measured) and json-10 is measured in short rounds, each round in a rotated order; every round gives its own
 * ratios, and the medians are reported.
 */
export async function interleavedRounds(upstream) {
  const spec = { id: 'json-10', stream: false, connections: 10 };
  const running = [];
  try {
    for (const id of ROUND_TARGETS) {
      const started = await startTarget(
        TARGETS.find((t) => t.id === id),
        upstream,
      );
      running.push({ id, ...started });
      await smoke(started.handle);
    }
    const rounds = [];
    for (let r = 0; r < ROUNDS; r += 1) {
      const round = {};
      for (let i = 0; i < running.length; i += 1) {
        const target = running[(i + r) % running.length];
        const result = await scenario(target.handle, spec, {
          warmupMs: ROUND_WARMUP_MS,
          durationMs: ROUND_DURATION_MS,
        });
        round[target.id] = { rps: result.rps };
      }
      round.vsPortkey = round['switchyard-pg'].rps / round.portkey.rps;
      round.vsRelay = round['switchyard-pg'].rps / round.relay.rps;
      rounds.push(round);
      log(
        `  round ${r + 1}: relay ${round.relay.rps.toFixed(0)}, Portkey ${round.portkey.rps.toFixed(0)}, Switchyard ${round['switchyard-pg'].rps.toFixed(0)} req/s` +
          ` → ${round.vsPortkey.toFixed(2)}× Portkey, ${round.vsRelay.toFixed(2)}× relay`,
      );
    }
    return { rounds, vsPortkey: median(rounds.map((r) => r.vsPortkey)), vsRelay: median(rounds.map((r) => r.vsRelay)) };
  } finally {
    for (const target of running.reverse()) await target.stop().catch(() => undefined);
    await dropScratchDb().catch(() => undefined);
  }
}

// ---- the CPU-profile pass ("Where the time goes") -----------------------------------------------------------

export async function profilePass(upstreamPort) {
  const profileDir = join(work, 'profile');
  // BENCH_PROFILE_STREAM=1 profiles the streaming path instead (stream-10), for work on it; the doc's text names json.
  const stream = process.env.BENCH_PROFILE_STREAM === '1';
  const sy = await startSwitchyard('postgres', upstreamPort, { profileDir });
  // (profilePass's target has no upstreamPid/pgPids: only its own CPU matters here)
  let calls, window, userUsPerCall, cpuUsPerCall;
  try {
    const target = { base: sy.base, pid: sy.pid, headers: { authorization: `Bearer ${sy.apiKey}` } };
    await smoke(target);
    await waitForQuiet();
    const result = await runLoad(
      {
        kind: 'load',
        url: `${sy.base}/v1/chat/completions`,
        headers: target.headers,
        body: chatBody('bench-model', stream),
        connections: 10,
        warmupMs: 1000,
        durationMs: 5000,
        stream,
        maxRequests: 2_000_000,
      },
      target,
    );
    calls = result.requests;
    window = result.windowUs;
    userUsPerCall = result.cpuUserMs !== null && result.requests ? (result.cpuUserMs * 1000) / result.requests : null;
    cpuUsPerCall = result.cpuMs !== null && result.requests ? (result.cpuMs * 1000) / result.requests : null;
  } finally {
    await stopChild(sy.child);
    await dropScratchDb().catch(() => undefined);
  }
  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('no .cpuprofile written');
  writeFileSync(join(profileDir, 'window.json'), JSON.stringify({ window, calls }));
  return { ...summariseProfile(join(profileDir, file), calls, window, userUsPerCall), cpuUsPerCall };
}
