// `npm run bench`: direct-to-upstream against a plain node:http relay, Portkey's open-source gateway and
// Switchyard (API-key auth and usage recording, on PostgreSQL and on the embedded database), non-streaming and
// streaming, at 10 and 100 connections, all against one zero-latency fake upstream, in one run. Prints the
// figures and ratios and writes docs/benchmarks.md. Targets are reported, never asserted: the exit code is 0
// whenever the run itself worked.
//
// Environment (all optional):
//   BENCH_WARMUP_MS (2000), BENCH_DURATION_MS (8000)   per scenario
//   BENCH_ONLY=direct,relay,portkey,switchyard-pg,switchyard-embedded   a subset (the doc is then not written)
//   BENCH_PG_URL (postgres://postgres@127.0.0.1:5432/test)   an admin connection; a scratch database
//                 sy_bench is created beside it and dropped afterwards
//   BENCH_PG_DB (sy_bench)   that scratch database's name (another bench on the same server must use another)
//   BENCH_SCENARIOS=json-10,stream-10   a subset of the scenarios (the doc is then not written); `failover` is
//                 the failover scenario (tools/bench/failover.mjs), whose section of the doc is written whenever it
//                 runs. Quick: BENCH_ONLY=failover BENCH_DURATION_MS=4000 BENCH_ROUNDS=0 BENCH_PROFILE=0
//   BENCH_SY_PROF=dir   every Switchyard process runs under --cpu-prof, its profile written to dir at exit
//   BENCH_MAIN=path   the Switchyard build to run (apps/api/dist/main.js): a copy of an earlier build's dist kept
//                 beside it (in apps/api, so that its packages resolve), for alternating A/B runs of two builds
//   BENCH_PROFILE=0   skip the CPU-profile pass ("Where the time goes")
//   BENCH_PROFILE_STREAM=1   profile stream-10 instead of json-10 (for work on the streaming path)
//   BENCH_ROUNDS (5)   interleaved json-10 rounds of relay, Portkey and Switchyard (PostgreSQL), all running at
//                 once and measured in turn, for ratios that a drifting machine does not skew (0: none)
//   BENCH_DOC=path    where to write the markdown (docs/benchmarks.md); set, it is written even for a subset
//   BENCH_QUIET_MAX_MS (120000)   how long, over the whole run, to wait for other work on the machine to settle
//   BENCH_REDIS_URL (redis://127.0.0.1:6379)   the Redis of the two-instance and rate-limit runs
//   BENCH_KEEP=1      keep the scratch folder (logs, models.yaml, profiles) instead of deleting it
//
// A quick check that the bench still runs and its report renders (about a minute, embedded database only, after
// `npm run build`): BENCH_ONLY=switchyard-embedded BENCH_WARMUP_MS=500 BENCH_DURATION_MS=1000 BENCH_ROUNDS=0
// BENCH_PROFILE=0 BENCH_QUIET_MAX_MS=0 BENCH_DOC=/tmp/benchmarks.md node tools/bench/run.mjs
//
// This file is the orchestration; the parts: settings.mjs (these knobs, the scenarios), targets.mjs (the servers
// under test, how each starts, the smoke and usage checks), phases.mjs (a scenario through the load generator,
// each target's run, the interleaved rounds, the profile pass), profile.mjs (CPU-profile summaries), report.mjs
// (the console summary, the targets judged, docs/benchmarks.md), common.mjs (helpers shared with analytics.mjs).
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, relative } from 'node:path';
import { gitInfo, log, pgClient, ROOT, stopChild } from './common.mjs';
import { failoverBench, failoverLines, failoverSection, spliceFailover } from './failover.mjs';
import { benchTarget, interleavedRounds, profilePass } from './phases.mjs';
import { analyse, renderDoc } from './report.mjs';
import {
  children,
  DOC,
  DURATION_MS,
  HERE,
  ONLY,
  PG_ADMIN_URL,
  PROFILE,
  ROUND_DURATION_MS,
  ROUND_WARMUP_MS,
  ROUNDS,
  WARMUP_MS,
  work,
} from './settings.mjs';
import { forkReady, TARGETS } from './targets.mjs';

async function main() {
  const started = new Date();
  const machine = {
    cores: os.availableParallelism?.() ?? os.cpus().length,
    cpu: os.cpus()[0]?.model ?? 'unknown',
    memGb: os.totalmem() / 1024 ** 3,
    node: process.version,
    kernel: `${os.type()} ${os.release()}`,
    commit: gitInfo(),
    postgres: null,
    // Whether the build under test reserves budget before forwarding (issue 4); detected, not assumed.
    reservation: existsSync(join(ROOT, 'apps/api/dist/modules/usage/ledger/reservation.service.js')),
  };
  try {
    const admin = await pgClient(PG_ADMIN_URL);
    machine.postgres = (await admin.query('SHOW server_version')).rows[0].server_version;
    await admin.end();
  } catch (error) {
    machine.postgres = `unreachable (${error.message})`;
  }
  log(
    `Switchyard benchmark — ${machine.cores} cores (${machine.cpu}), node ${machine.node}, PostgreSQL ${machine.postgres}`,
  );
  log(
    `each scenario: ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s measured; the load generator is its own process on the same cores`,
  );
  log(`the build under test ${machine.reservation ? 'reserves budget per call' : 'has no budget reservation yet'}`);

  const upstream = await forkReady(join(HERE, 'fake-upstream.mjs'), {});
  log(`fake upstream on 127.0.0.1:${upstream.port}`);
  const outcomes = {};
  let profile = null;
  let rounds = null;
  let failover = null;
  const failoverWanted =
    (!ONLY || ONLY.includes('failover')) &&
    (!process.env.BENCH_SCENARIOS || process.env.BENCH_SCENARIOS.split(',').includes('failover'));
  try {
    for (const target of TARGETS) {
      if (ONLY && !ONLY.includes(target.id)) continue;
      log(`\n${target.label}`);
      outcomes[target.id] = await benchTarget(target, upstream);
    }
    if (ROUNDS > 0 && (!ONLY || ONLY.includes('rounds'))) {
      log(
        `\nInterleaved rounds: json-10, ${ROUND_WARMUP_MS / 1000} s warm-up + ${ROUND_DURATION_MS / 1000} s each, relay, Portkey and Switchyard (PostgreSQL) side by side`,
      );
      try {
        rounds = await interleavedRounds(upstream);
      } catch (error) {
        log(`  rounds failed: ${error.message}`);
      }
    }
    if (PROFILE && (!ONLY || ONLY.includes('switchyard-pg') || ONLY.includes('profile'))) {
      log('\nCPU profile of Switchyard (PostgreSQL, non-streaming, 10 connections, 5 s, separate run)');
      try {
        profile = await profilePass(upstream.port);
        for (const g of profile.groups.slice(0, 8)) log(`  ${(g.share * 100).toFixed(1).padStart(5)}%  ${g.name}`);
      } catch (error) {
        log(`  profile failed: ${error.message}`);
      }
    }
    if (failoverWanted) {
      log('\nFailover: two deployments, the second failing from half-way');
      try {
        failover = await failoverBench(upstream);
        for (const line of failoverLines(failover)) log(line);
      } catch (error) {
        log(`  failover failed: ${error.message}`);
      }
    }
  } finally {
    await stopChild(upstream.child);
  }

  const report = analyse(outcomes, rounds);
  log('');
  for (const line of report.console) log(line);
  const finished = new Date();
  if ((!ONLY && !process.env.BENCH_SCENARIOS) || process.env.BENCH_DOC) {
    writeFileSync(DOC, renderDoc({ machine, started, finished, outcomes, report, profile, rounds }));
    log(`\nwrote ${relative(ROOT, DOC)}`);
  } else log('\n(BENCH_ONLY set: docs/benchmarks.md not written)');
  if (failover) {
    const when = started.toISOString().slice(0, 16).replace('T', ' ');
    writeFileSync(DOC, spliceFailover(readFileSync(DOC, 'utf8'), failoverSection(failover, when)));
    log(`wrote the failover section of ${relative(ROOT, DOC)}`);
  }
}

// ---- go ------------------------------------------------------------------------------------------------

function cleanup() {
  for (const child of children) {
    try {
      child.kill('SIGKILL');
    } catch {
      // gone
    }
  }
  if (!process.env.BENCH_KEEP) rmSync(work, { recursive: true, force: true });
}

process.on('SIGINT', () => {
  cleanup();
  process.exit(130);
});

main()
  .then(() => {
    cleanup();
    process.exit(0);
  })
  .catch((error) => {
    console.error(error);
    cleanup();
    process.exit(1);
  });
