// Summarising a V8 CPU profile of Switchyard for "Where the time goes" in docs/benchmarks.md.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { ROOT } from './common.mjs';

function groupOf(url, name) {
  if (!url) return name.startsWith('(') ? name : `(native) ${name}`;
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = path.slice(nm + 14).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (path.startsWith('node:')) {
    const id = path.slice(5);
    if (id.startsWith('internal/streams') || id.startsWith('stream')) return 'node: streams';
    if (id.startsWith('_http') || id === 'http' || id.startsWith('internal/http')) return 'node: http';
    if (id === 'net' || id.startsWith('internal/net') || id.startsWith('internal/stream_base')) return 'node: net';
    if (
      id.startsWith('internal/process') ||
      id.startsWith('internal/timers') ||
      id === 'timers' ||
      id.startsWith('internal/async_hooks') ||
      id === 'events' ||
      id.startsWith('internal/event_target')
    )
      return 'node: event loop, timers, events';
    if (id.startsWith('internal/deps/undici') || id.startsWith('internal/webstreams')) return 'node: web streams';
    return `node: ${id.split('/').slice(0, 2).join('/')}`;
  }
  if (path.includes('/apps/api/dist/')) return `switchyard: ${path.slice(path.indexOf('/apps/api/dist/') + 15)}`;
  return relative(ROOT, path);
}

/** Native frames that are the socket write system calls (their samples also hold time spent waiting for a core). */
const WRITE_CALLS = new Set([
  'writev',
  'writeUtf8String',
  'writeLatin1String',
  'writeBuffer',
  'writeAsciiString',
  'writeUcs2String',
]);

/**
 * Summarises a V8 CPU profile over `window` ([from, to] in µs of the monotonic clock, which V8's timestamps use
 * too). Each sample counts as one tick of running code: V8 samples on a wall-clock timer, so a sample's time
 * delta would also hold time the thread sat waiting for a core (frequent here: everything shares 2 cores).
 * Socket writes are set apart: their samples include that wait (the write wakes the peer, which may take the
 * core). Shares are of the non-idle samples outside socket writes, converted to µs per call with the process's
 * measured user CPU time per call.
 */
export function summariseProfile(file, calls, window, userUsPerCall) {
  const profile = JSON.parse(readFileSync(file, 'utf8'));
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const counts = new Map();
  let at = profile.startTime;
  let inWindow = 0;
  for (let i = 0; i < profile.samples.length; i += 1) {
    at += profile.timeDeltas[i] ?? 0;
    if (window && (at < window[0] || at > window[1])) continue;
    inWindow += 1;
    const id = profile.samples[i];
    counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  if (window && !inWindow) throw new Error('no profile sample in the measured window (clock mismatch?)');
  const groups = new Map();
  const functions = new Map();
  const inclusive = new Map();
  const features = new Map(FEATURES.map((f) => [f.id, 0]));
  let busy = 0;
  let writes = 0;
  let idle = 0;
  for (const [id, n] of counts) {
    const node = byId.get(id);
    const { functionName, url, lineNumber } = node.callFrame;
    if (functionName === '(idle)') {
      idle += n;
      continue;
    }
    if (!url && WRITE_CALLS.has(functionName)) {
      writes += n;
      continue;
    }
    busy += n;
    const group = groupOf(url, functionName || '(anonymous)');
    groups.set(group, (groups.get(group) ?? 0) + n);
    const key = `${functionName || '(anonymous)'} — ${groupOf(url, functionName)}${url ? `:${lineNumber + 1}` : ''}`;
    functions.set(key, (functions.get(key) ?? 0) + n);
    // Inclusive time of Switchyard's own functions and of a few libraries (each counted once per stack).
    const seen = new Set();
    for (let up = id; up !== undefined; up = parent.get(up)) {
      const frame = byId.get(up).callFrame;
      for (const feature of FEATURES)
        if (!seen.has(feature.id) && feature.files.some((file) => frame.url.endsWith(file))) {
          seen.add(feature.id);
          features.set(feature.id, features.get(feature.id) + n);
        }
      const g = groupOf(frame.url, frame.functionName);
      let label = null;
      if (g.startsWith('switchyard: ')) label = `${frame.functionName || '(anonymous)'} (${g.slice(12)})`;
      else if (
        ['express', 'router', 'typeorm', 'pg', 'undici', '@nestjs/core', 'body-parser', 'cookie-parser'].includes(g)
      )
        label = `[${g}]`;
      if (label && !seen.has(label)) {
        seen.add(label);
        inclusive.set(label, (inclusive.get(label) ?? 0) + n);
      }
    }
  }
  const top = (map, count) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, count)
      .map(([name, n]) => ({
        name,
        share: n / busy,
        perCallUs: userUsPerCall !== null ? (n / busy) * userUsPerCall : null,
      }));
  return {
    calls,
    samples: inWindow,
    busySamples: busy,
    writeShare: writes / (busy + writes),
    idleShare: idle / inWindow,
    userUsPerCall,
    groups: top(groups, 14),
    functions: top(functions, 15),
    inclusive: top(inclusive, 16),
    features: Object.fromEntries(
      [...features].map(([feature, n]) => [
        feature,
        { share: n / busy, perCallUs: userUsPerCall !== null ? (n / busy) * userUsPerCall : null },
      ]),
    ),
  };
}

/** Where each feature's code lives (compiled paths): a profile sample counts for a feature when its stack passes through one. */
export const FEATURES = [
  {
    id: 'auth',
    files: [
      'modules/proxy/credentials/credential-registry.js',
      'modules/proxy/credentials/api-key.strategy.js',
      'modules/keys/keys.service.js',
    ],
  },
  {
    id: 'budget',
    files: [
      'modules/usage/ledger/reservation.service.js',
      'modules/usage/ledger/reservations.repository.js',
      'modules/proxy/billing/budget-estimate.js',
    ],
  },
  { id: 'usage', files: ['modules/usage/usage-recorder.js'] },
  { id: 'rate-limit', files: ['common/rate-limit/rate-limiter.service.js', 'common/rate-limit/rate-limit.store.js'] },
];
