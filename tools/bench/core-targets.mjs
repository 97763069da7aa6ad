// The gateway core's targets (docs/benchmarks.md, "The gateway's core"), judged in one run: throughput against the
// node:http relay and Portkey, CPU per call with PostgreSQL's against the relay's, and the embedded process's peak.
// Reported, never asserted.

import { ratio, scenarioOf, targetRow as row } from './judging.mjs';

/** Each target as { name, value, unit, limit, met } (met null when it was not measured in this run). */
export function coreTargets(outcomes, rounds) {
  const get = (target, scenario) => scenarioOf(outcomes, target, scenario);
  const relayJson = get('relay', 'json-10');
  const syJson = get('switchyard-pg', 'json-10');
  const cpuWithPg =
    syJson?.cpuMsPerCall === null || syJson?.cpuMsPerCall === undefined
      ? null
      : syJson.cpuMsPerCall + (syJson.pgCpuMsPerCall ?? 0);
  const cpuRatio = ratio(cpuWithPg, relayJson?.cpuMsPerCall);
  const streamRatio = ratio(get('switchyard-pg', 'stream-10')?.rps, get('relay', 'stream-10')?.rps);
  const peaks = Object.values(outcomes['switchyard-embedded']?.scenarios ?? {})
    .map((s) => s?.peakRssMb)
    .filter((mb) => typeof mb === 'number');
  const peak = peaks.length ? Math.max(...peaks) : null;
  const median = (key) => (rounds && rounds.rounds.length ? rounds[key] : null);
  return [
    row(
      `json-10 on PostgreSQL: throughput vs node:http relay, median of ${rounds?.rounds.length ?? 0} interleaved rounds`,
      median('vsRelay'),
      '×',
      '≥ 0.5×',
      median('vsRelay') >= 0.5,
    ),
    row(
      `json-10 on PostgreSQL: throughput vs Portkey, median of ${rounds?.rounds.length ?? 0} interleaved rounds`,
      median('vsPortkey'),
      '×',
      '≥ 6×',
      median('vsPortkey') >= 6,
    ),
    row(
      "json-10: Switchyard's CPU per call plus PostgreSQL's, against the relay's",
      cpuRatio,
      '×',
      '≤ 2×',
      cpuRatio <= 2,
    ),
    row('stream-10 on PostgreSQL: throughput vs node:http relay', streamRatio, '×', '≥ 0.7×', streamRatio >= 0.7),
    row('embedded database: peak RSS over every scenario', peak, 'MB', '< 400 MB', peak < 400),
  ];
}
