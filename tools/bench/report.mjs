// What a run means and how it reads: the console lines of each scenario, the ratios and the targets judged
// (analyse), and docs/benchmarks.md (renderDoc), whose prose comes from notes.md.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { median } from './common.mjs';
import { coreTargets } from './core-targets.mjs';
import { ratio as div, scenarioOf as get, targetRow as row } from './judging.mjs';
import { FEATURES } from './profile.mjs';
import {
  CHUNK_CHECK_REQUESTS,
  DURATION_MS,
  HERE,
  ROUND_DURATION_MS,
  ROUND_WARMUP_MS,
  SCENARIOS,
  SLOW_GAP_MS,
  WARMUP_MS,
} from './settings.mjs';
import { TARGETS } from './targets.mjs';

export function fmtScenario(name, spec, r) {
  // Every figure may be missing (a scenario in which no call completed, a process whose memory could not be read).
  const ttfb = r.ttfbMs ? ` ttfb p50 ${fmt(r.ttfbMs.p50)} ms` : '';
  const cpu = r.cpuMsPerCall !== null && r.cpuMsPerCall !== undefined ? ` cpu ${fmt(r.cpuMsPerCall, 3)} ms/call` : '';
  const errors = r.errors ? ` ERRORS ${r.errors} (${r.firstError})` : '';
  const pg =
    r.pgCpuMsPerCall !== null && r.pgCpuMsPerCall !== undefined ? ` (+ PostgreSQL ${r.pgCpuMsPerCall.toFixed(3)})` : '';
  const other = r.otherCores > 0.1 ? `  [other load on the machine: ${r.otherCores.toFixed(2)} cores]` : '';
  return `  ${name.padEnd(20)} ${spec.id.padEnd(11)} ${r.rps.toFixed(0).padStart(6)} req/s  p50 ${fmt(r.latencyMs.p50)} ms  p99 ${fmt(r.latencyMs.p99)} ms${ttfb}${cpu}${pg}  peak RSS ${fmt(r.peakRssMb, 0)} MB${errors}${other}`;
}

function fmt(value, digits = 2) {
  return value === null || value === undefined || Number.isNaN(value) ? 'n/a' : value.toFixed(digits);
}

// ---- analysis ------------------------------------------------------------------------------------------

function chunkStats(outcome, direct) {
  if (!outcome?.chunks?.runs?.length) return null;
  const runs = outcome.chunks.runs.filter((r) => r.length);
  if (!runs.length) return { ok: outcome.chunks.ok, error: outcome.chunks.firstError };
  const spread = median(runs.map((r) => r[r.length - 1] - r[0]));
  const first = median(runs.map((r) => r[0]));
  const distinct = median(runs.map((r) => new Set(r.map((t) => Math.round(t))).size));
  let delay = null;
  const directRuns = direct?.chunks?.runs?.filter((r) => r.length);
  if (directRuns?.length) {
    const avg = (rs) => rs.map((r) => r.reduce((s, t) => s + t, 0) / r.length);
    delay = median(avg(runs)) - median(avg(directRuns));
  }
  const expected = (runs[0].length - 1) * SLOW_GAP_MS;
  return {
    chunks: runs[0].length,
    spread,
    first,
    distinct,
    delay,
    expected,
    streamed: spread >= 0.8 * expected && distinct >= runs[0].length - 1,
    error: outcome.chunks.firstError,
  };
}

export function analyse(outcomes, rounds = null) {
  const lines = [];
  const targets = [];
  const ratios = [];
  const add = (a, b) => (a === null || b === null || a === undefined || b === undefined ? null : a - b);
  for (const sy of ['switchyard-pg', 'switchyard-embedded']) {
    for (const spec of SCENARIOS) {
      const s = get(outcomes, sy, spec.id);
      const portkey = get(outcomes, 'portkey', spec.id);
      const relay = get(outcomes, 'relay', spec.id);
      ratios.push({ sy, scenario: spec.id, vsPortkey: div(s?.rps, portkey?.rps), vsRelay: div(s?.rps, relay?.rps) });
    }
  }
  const judge = (sy) => {
    const d10 = get(outcomes, 'direct', 'json-10');
    const d100 = get(outcomes, 'direct', 'json-100');
    const ds10 = get(outcomes, 'direct', 'stream-10');
    const s10 = get(outcomes, sy, 'json-10');
    const s100 = get(outcomes, sy, 'json-100');
    const ss10 = get(outcomes, sy, 'stream-10');
    const ss100 = get(outcomes, sy, 'stream-100');
    const p10 = get(outcomes, 'portkey', 'json-10');
    const p100 = get(outcomes, 'portkey', 'json-100');
    const r10 = get(outcomes, 'relay', 'json-10');
    const chunks = chunkStats(outcomes[sy], outcomes.direct);
    const added10 = add(s10?.latencyMs.p50, d10?.latencyMs.p50);
    const vsPortkey10 = div(s10?.rps, p10?.rps);
    const vsRelay10 = div(s10?.rps, r10?.rps);
    const vsPortkey100 = div(s100?.rps, p100?.rps);
    const added99 = add(s100?.latencyMs.p99, d100?.latencyMs.p99);
    const ttfb = add(ss10?.ttfbMs?.p50, ds10?.ttfbMs?.p50);
    return [
      row('non-streaming, 10 conn: added p50', added10, 'ms', '≤ 2 ms', added10 <= 2),
      row('non-streaming, 10 conn: throughput vs Portkey', vsPortkey10, '×', '≥ 3×', vsPortkey10 >= 3),
      row('non-streaming, 10 conn: throughput vs node:http relay', vsRelay10, '×', '≥ 0.35×', vsRelay10 >= 0.35),
      ...(sy === 'switchyard-pg' && rounds
        ? [
            row(
              `non-streaming, 10 conn: throughput vs Portkey, median of ${rounds.rounds.length} interleaved rounds`,
              rounds.vsPortkey,
              '×',
              '≥ 3×',
              rounds.vsPortkey >= 3,
            ),
            row(
              `non-streaming, 10 conn: throughput vs node:http relay, median of ${rounds.rounds.length} interleaved rounds`,
              rounds.vsRelay,
              '×',
              '≥ 0.35×',
              rounds.vsRelay >= 0.35,
            ),
          ]
        : []),
      row('non-streaming, 100 conn: throughput vs Portkey', vsPortkey100, '×', '≥ 3×', vsPortkey100 >= 3),
      row('non-streaming, 100 conn: added p99', added99, 'ms', '≤ 25 ms', added99 <= 25),
      row('streaming, 10 conn: added TTFB p50', ttfb, 'ms', '≤ 2 ms', ttfb <= 2),
      row(
        `streaming: chunks relayed as they arrive (8 chunks ${SLOW_GAP_MS} ms apart)`,
        chunks?.spread ?? null,
        'ms spread',
        `≥ ${(0.8 * (chunks?.expected ?? 175)).toFixed(0)} ms spread, chunks apart`,
        Boolean(chunks?.streamed),
      ),
      row(
        'CPU per non-streaming call (10 conn)',
        s10?.cpuMsPerCall ?? null,
        'ms',
        '≤ 0.35 ms',
        s10?.cpuMsPerCall <= 0.35,
      ),
      row('peak memory, 100 concurrent streams', ss100?.peakRssMb ?? null, 'MB', '≤ 300 MB', ss100?.peakRssMb <= 300),
    ];
  };
  for (const sy of ['switchyard-pg', 'switchyard-embedded'])
    if (outcomes[sy] && !outcomes[sy].error) targets.push({ sy, rows: judge(sy) });

  lines.push('Ratios (throughput, same run)');
  for (const r of ratios) {
    if (r.vsPortkey === null && r.vsRelay === null) continue;
    lines.push(`  ${r.sy.padEnd(20)} ${r.scenario.padEnd(11)} ${fmt(r.vsPortkey)}× Portkey   ${fmt(r.vsRelay)}× relay`);
  }
  const core = coreTargets(outcomes, rounds);
  for (const t of [...targets, { sy: "the gateway's core", rows: core }]) {
    lines.push('', `Targets, ${t.sy} (reported, not asserted)`);
    for (const row of t.rows)
      lines.push(
        `  ${row.met === null ? 'n/a    ' : row.met ? 'met    ' : 'NOT MET'}  ${row.name}: ${fmt(row.value)} ${row.unit} (target ${row.limit})`,
      );
  }
  if (outcomes.portkey?.error)
    lines.push('', `Portkey could not be measured: ${outcomes.portkey.error.split('\n')[0]}`);
  return { console: lines, targets, core, ratios };
}

// ---- docs/benchmarks.md --------------------------------------------------------------------------------

/** One instance against two, and the cost of each feature: runs that differ in one thing, and the CPU profile. */
function scaleAndFeatures(outcomes, profile) {
  const md = ['', '### One instance against two, and what each feature costs', ''];
  const base = (id) => get(outcomes, 'switchyard-pg', id);
  const cpu = (r) => ((r?.cpuMsPerCall ?? null) === null ? null : r.cpuMsPerCall + (r.pgCpuMsPerCall ?? 0));
  const ms = (v) => (v === null || v === undefined ? 'n/a' : `${v >= 0 ? '+' : ''}${v.toFixed(3)}`);
  const ratio = (a, b) => (a && b ? `${(a / b).toFixed(2)}×` : 'n/a');
  md.push(
    'Each row is a run that differs from "Switchyard, PostgreSQL" in one thing, in the same run: two instances (the load generator spreads ' +
      "its connections over both, as a load balancer would; CPU is both processes together, plus PostgreSQL's), rate limits counted in Redis " +
      '(`GATEWAY_RPM` set high enough never to refuse), and a model with no price (no budget reservation or settlement). CPU per call is the ' +
      "Switchyard process(es) plus PostgreSQL, against the one-instance run's.",
  );
  md.push('');
  md.push('| run | scenario | req/s | ÷ one instance | CPU ms/call (incl. PG) | vs one instance |');
  md.push('|---|---|---:|---:|---:|---:|');
  for (const target of TARGETS.filter((t) => t.variant)) {
    for (const spec of SCENARIOS) {
      const r = get(outcomes, target.id, spec.id);
      if (!r) continue;
      const b = base(spec.id);
      md.push(
        `| ${target.label} | ${spec.id} | ${r.rps.toFixed(0)} | ${ratio(r.rps, b?.rps)} | ${fmt(cpu(r), 3)} | ${ms(cpu(r) !== null && cpu(b) !== null ? cpu(r) - cpu(b) : null)} |`,
      );
    }
  }
  md.push('');
  md.push(
    "From the CPU profile below (one instance on PostgreSQL, non-streaming, 10 connections): the Switchyard process's user CPU per call spent " +
      "with each feature's code on the stack (what it calls included; the database's own CPU is not in these).",
  );
  md.push('');
  md.push("| feature | code | share of the process's CPU | µs per call |");
  md.push('|---|---|---:|---:|');
  const names = {
    auth: 'auth (the key check, cached)',
    budget: 'budgets (leases, reservations, settlement)',
    usage: 'usage records (queued, written in batches)',
    'rate-limit': 'rate limits (off in this run)',
  };
  for (const feature of FEATURES) {
    const f = profile?.features?.[feature.id];
    md.push(
      `| ${names[feature.id]} | ${feature.files.map((file) => `\`${file.replace(/\.js$/, '.ts')}\``).join(', ')} | ${f ? `${(f.share * 100).toFixed(1)}%` : 'n/a'} | ${f?.perCallUs !== null && f?.perCallUs !== undefined ? f.perCallUs.toFixed(1) : 'n/a'} |`,
    );
  }
  return md;
}

export function renderDoc({ machine, started, finished, outcomes, report, profile, rounds }) {
  const md = [];
  const order = TARGETS.filter((t) => outcomes[t.id]);
  const direct = (id) => get(outcomes, 'direct', id);
  const cell = (v, d = 2) => fmt(v, d);
  const plus = (v, d = 2) => (v === null || v === undefined ? 'n/a' : `${v >= 0 ? '+' : ''}${v.toFixed(d)}`);
  md.push('# Benchmarks');
  md.push('');
  md.push(
    '<!-- Written by `npm run bench` (tools/bench/run.mjs); edit the prose in tools/bench/notes.md, not here. -->',
  );
  md.push('');
  md.push(
    `Run on ${started.toISOString().slice(0, 16).replace('T', ' ')} UTC for ${((finished - started) / 1000).toFixed(0)} s: ${machine.cores} cores (${machine.cpu}), ` +
      `${machine.memGb.toFixed(0)} GB, ${machine.kernel}, node ${machine.node}, PostgreSQL ${machine.postgres}, Switchyard commit ${machine.commit}.`,
  );
  md.push('');
  md.push(
    `Each scenario is ${WARMUP_MS / 1000} s of warm-up and ${DURATION_MS / 1000} s measured, with a closed-loop load generator (undici, one ` +
      'request in flight per connection) running as its own process. Everything — fake upstream, server under test, load generator and, for ' +
      'the PostgreSQL run, the PostgreSQL server — shares the same cores, so the absolute numbers are lower than on separate machines; ' +
      'the ratios within one run are what matter.',
  );
  md.push('');
  md.push(
    machine.reservation
      ? 'The build measured has budget reservations: each call reserves its worst-case cost in the database before it is forwarded and settles it after, on top of the key check and the usage record.'
      : 'The build measured has no budget reservation yet (it is a later issue): "full path" here is the key check and the usage record; the reservation\'s cost is not in these figures.',
  );
  md.push('');
  md.push('## Results');
  md.push('');
  md.push(
    "Latencies in ms; \"added\" is the target's figure minus direct-to-upstream's in the same scenario. CPU is the server process's user + " +
      'system time in the measured window divided by the calls completed in it (for "direct", the fake upstream\'s own); for Switchyard on ' +
      'PostgreSQL, "+x PG" is the PostgreSQL backends\' CPU for the same calls. Peak RSS is sampled every 100 ms during the scenario (warm-up ' +
      'included). "Other load" is the CPU, in cores, that something outside the benchmark (another build or test on the machine) used during ' +
      'the measured window: above about 0.2 the row is disturbed.',
  );
  for (const spec of SCENARIOS) {
    const d = direct(spec.id);
    md.push('');
    md.push(`### ${spec.stream ? 'Streaming' : 'Non-streaming'}, ${spec.connections} connections`);
    md.push('');
    if (spec.stream) {
      md.push(
        '| target | req/s | p50 | p99 | added p50 | TTFB p50 | TTFB p99 | added TTFB p50 | CPU ms/call | peak RSS MB | errors | other load |',
      );
      md.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    } else {
      md.push(
        '| target | req/s | p50 | p99 | added p50 | added p99 | CPU ms/call | peak RSS MB | errors | other load |',
      );
      md.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
    }
    for (const t of order) {
      const o = outcomes[t.id];
      if (o.error) {
        md.push(
          `| ${t.label} | ${spec.stream ? 'not measured: see below | | | | | | | | | | |' : 'not measured: see below | | | | | | | | |'}`,
        );
        continue;
      }
      const r = o.scenarios[spec.id];
      if (!r) continue;
      const isDirect = t.id === 'direct';
      const errors = r.errors ? `${r.errors}` : '0';
      const other = r.otherCores === undefined || r.otherCores === null ? 'n/a' : r.otherCores.toFixed(2);
      const cpuCell = `${cell(r.cpuMsPerCall, 3)}${r.pgCpuMsPerCall !== null && r.pgCpuMsPerCall !== undefined ? ` (+${r.pgCpuMsPerCall.toFixed(3)} PG)` : ''}`;
      if (spec.stream)
        md.push(
          `| ${t.label} | ${r.rps.toFixed(0)} | ${cell(r.latencyMs.p50)} | ${cell(r.latencyMs.p99)} | ${isDirect ? '—' : plus(r.latencyMs.p50 - d?.latencyMs.p50)} | ${cell(r.ttfbMs?.p50)} | ${cell(r.ttfbMs?.p99)} | ${isDirect ? '—' : plus(r.ttfbMs?.p50 - d?.ttfbMs?.p50)} | ${cpuCell} | ${cell(r.peakRssMb, 0)} | ${errors} | ${other} |`,
        );
      else
        md.push(
          `| ${t.label} | ${r.rps.toFixed(0)} | ${cell(r.latencyMs.p50)} | ${cell(r.latencyMs.p99)} | ${isDirect ? '—' : plus(r.latencyMs.p50 - d?.latencyMs.p50)} | ${isDirect ? '—' : plus(r.latencyMs.p99 - d?.latencyMs.p99)} | ${cpuCell} | ${cell(r.peakRssMb, 0)} | ${errors} | ${other} |`,
        );
    }
  }
  md.push('');
  md.push('### Throughput ratios (same run)');
  md.push('');
  md.push('| Switchyard on | scenario | ÷ Portkey | ÷ node:http relay |');
  md.push('|---|---|---:|---:|');
  for (const r of report.ratios) {
    if (r.vsPortkey === null && r.vsRelay === null) continue;
    md.push(
      `| ${r.sy === 'switchyard-pg' ? 'PostgreSQL' : 'embedded DB'} | ${r.scenario} | ${r.vsPortkey === null ? 'n/a' : `${r.vsPortkey.toFixed(2)}×`} | ${r.vsRelay === null ? 'n/a' : `${r.vsRelay.toFixed(2)}×`} |`,
    );
  }
  if (rounds) {
    md.push('');
    md.push('### Interleaved rounds (json-10)');
    md.push('');
    md.push(
      `The node:http relay, Portkey and Switchyard on PostgreSQL running side by side, each idle while another is measured; ${rounds.rounds.length} rounds of ` +
        `${ROUND_WARMUP_MS / 1000} s warm-up + ${ROUND_DURATION_MS / 1000} s per target, each round in a rotated order. Each round's ratios come from ` +
        "figures measured within seconds of each other, so the machine's drift (tens of percent over minutes here) skews them far less than the " +
        'sequential run above.',
    );
    md.push('');
    md.push('| round | relay req/s | Portkey req/s | Switchyard req/s | ÷ Portkey | ÷ relay |');
    md.push('|---:|---:|---:|---:|---:|---:|');
    rounds.rounds.forEach((r, i) =>
      md.push(
        `| ${i + 1} | ${r.relay.rps.toFixed(0)} | ${r.portkey.rps.toFixed(0)} | ${r['switchyard-pg'].rps.toFixed(0)} | ${r.vsPortkey.toFixed(2)}× | ${r.vsRelay.toFixed(2)}× |`,
      ),
    );
    md.push(`| median | | | | ${rounds.vsPortkey.toFixed(2)}× | ${rounds.vsRelay.toFixed(2)}× |`);
  }
  md.push(...scaleAndFeatures(outcomes, profile));
  md.push('');
  md.push(`### Chunks relayed as they arrive`);
  md.push('');
  md.push(
    `The model \`bench-slow\` makes the fake upstream send its 8 content chunks ${SLOW_GAP_MS} ms apart; ${CHUNK_CHECK_REQUESTS} sequential streams through each target, ` +
      `median figures. A relay that buffers would deliver them all at once (spread ≈ 0).`,
  );
  md.push('');
  md.push(
    '| target | first content chunk (ms) | first → last chunk (ms) | distinct arrival times | mean delay per chunk vs direct (ms) | relayed as they arrive |',
  );
  md.push('|---|---:|---:|---:|---:|---|');
  for (const t of order.filter((target) => !target.variant)) {
    const c = chunkStats(outcomes[t.id], outcomes.direct);
    if (!c) {
      md.push(`| ${t.label} | n/a | n/a | n/a | n/a | not measured |`);
      continue;
    }
    if (c.spread === undefined) {
      md.push(`| ${t.label} | n/a | n/a | n/a | n/a | no content chunks (${c.error ?? 'unknown'}) |`);
      continue;
    }
    md.push(
      `| ${t.label} | ${c.first.toFixed(1)} | ${c.spread.toFixed(1)} | ${c.distinct}/${c.chunks} | ${t.id === 'direct' ? '—' : plus(c.delay, 2)} | ${c.streamed ? 'yes' : 'no'} |`,
    );
  }
  md.push('');
  md.push('### Targets (from the issue; measured, not asserted)');
  md.push('');
  if (!report.targets.length) md.push('Switchyard was not measured in this run.');
  for (const t of [...report.targets, { sy: 'core', rows: report.core }]) {
    md.push(
      `**${t.sy === 'core' ? "The gateway's core (issue 28's targets, in this run)" : t.sy === 'switchyard-pg' ? 'Switchyard on PostgreSQL (the target applies here)' : 'Switchyard on the embedded database (reported beside it)'}**`,
    );
    md.push('');
    md.push('| target | measured | limit | |');
    md.push('|---|---:|---|---|');
    for (const row of t.rows)
      md.push(
        `| ${row.name} | ${row.value === null ? 'n/a' : `${row.value.toFixed(row.unit === 'ms' && row.value < 1 ? 3 : 2)} ${row.unit}`} | ${row.limit} | ${row.met === null ? 'n/a' : row.met ? 'met' : '**not met**'} |`,
      );
    md.push('');
  }
  md.push(
    "The issue's reference figures, from a different 2-core machine: a plain node:http proxy about 8,900 requests/s (+0.8 ms p50) and Portkey about 950 requests/s (+9 ms p50) at 10 connections. Compare the ratios, not the absolute numbers.",
  );
  md.push('');
  md.push('### Checks');
  md.push('');
  for (const t of order) {
    const o = outcomes[t.id];
    if (o.error) md.push(`- ${t.label}: **not measured** — ${o.error.split('\n')[0]}`);
    else {
      const errors = Object.entries(o.scenarios).filter(([, r]) => r.errors);
      md.push(
        `- ${t.label}: ${errors.length ? errors.map(([id, r]) => `${id}: ${r.errors} failed calls (first: ${r.firstError})`).join('; ') : 'every call answered 200 with the whole answer'}.`,
      );
    }
    if (o.usage?.rows) {
      const success = o.usage.rows.success ?? 0;
      const others = Object.entries(o.usage.rows).filter(([s]) => s !== 'success');
      md.push(
        `  Usage records after shutdown: ${success} \`success\` rows for ${o.usage.expected} calls completed${others.length ? `, plus ${others.map(([s, n]) => `${n} \`${s}\``).join(', ')}` : ''} — ${success === o.usage.expected ? 'one per call' : '**mismatch**'}.`,
      );
    } else if (o.usage?.error) md.push(`  Usage records could not be counted: ${o.usage.error}`);
  }
  if (profile) {
    md.push('');
    md.push('## Where the time goes (CPU profile)');
    md.push('');
    const us = (v) => (v === null || v === undefined ? 'n/a' : v.toFixed(1));
    md.push(
      `Generated by the same run: a separate 5 s pass of Switchyard on PostgreSQL under \`node --cpu-prof\` (non-streaming, 10 connections, ` +
        `${profile.calls} calls in the window; the profiler slows it somewhat). The process used ${us(profile.cpuUsPerCall)} µs of CPU per call, ` +
        `${us(profile.userUsPerCall)} µs of it in user space. ${(profile.writeShare * 100).toFixed(0)}% of the non-idle samples were in socket-write ` +
        'system calls (`writev` and friends): they are set apart, because on an oversubscribed 2-core machine a write that wakes the peer often ' +
        'loses the core and the sample then measures waiting, not work. The shares below are of the remaining samples, and the µs per call are ' +
        'those shares of the user CPU time per call.',
    );
    md.push('');
    md.push('Self time by where the code lives:');
    md.push('');
    md.push('| code | share | µs per call |');
    md.push('|---|---:|---:|');
    for (const g of profile.groups) md.push(`| ${g.name} | ${(g.share * 100).toFixed(1)}% | ${us(g.perCallUs)} |`);
    md.push('');
    md.push(
      "Inclusive time (the function and everything it called) of Switchyard's own functions and of some libraries:",
    );
    md.push('');
    md.push('| function | share | µs per call |');
    md.push('|---|---:|---:|');
    for (const g of profile.inclusive) md.push(`| ${g.name} | ${(g.share * 100).toFixed(1)}% | ${us(g.perCallUs)} |`);
    md.push('');
    md.push('Top functions by self time:');
    md.push('');
    md.push('| function | share | µs per call |');
    md.push('|---|---:|---:|');
    for (const g of profile.functions)
      md.push(`| ${g.name.replace(/\|/g, '\\|')} | ${(g.share * 100).toFixed(1)}% | ${us(g.perCallUs)} |`);
  }
  const notes = join(HERE, 'notes.md');
  if (existsSync(notes)) {
    md.push('');
    md.push(readFileSync(notes, 'utf8').trim());
  }
  md.push('');
  return md.join('\n');
}
