import perfHooks, { PerformanceObserver, type IntervalHistogram } from 'node:perf_hooks';
import { collectDefaultMetrics, type Registry } from 'prom-client';

/**
 * prom-client's process metrics (`switchyard_process_*`, `switchyard_nodejs_*`) in `registry`, and a function that
 * stops what they leave running. prom-client starts a garbage-collection observer and an event-loop-delay histogram
 * and never stops either: the observer sits in Node's process-wide list, so every app that closed in a process
 * (the test suites boot hundreds) stayed reachable through its callback, with every module it loaded, and each
 * such observer ran again at every collection. Both are caught as prom-client creates them, to be stopped when the
 * app closes.
 */
export function startDefaultMetrics(registry: Registry, prefix: string): () => void {
  const observers: PerformanceObserver[] = [];
  const histograms: IntervalHistogram[] = [];
  const prototype = PerformanceObserver.prototype;
  const observe = Object.getOwnPropertyDescriptor(prototype, 'observe')!;
  const monitorEventLoopDelay = perfHooks.monitorEventLoopDelay;
  Object.defineProperty(prototype, 'observe', {
    ...observe,
    value(this: PerformanceObserver, ...args: Parameters<PerformanceObserver['observe']>) {
      observers.push(this);
      return (observe.value as PerformanceObserver['observe']).apply(this, args);
    },
  });
  perfHooks.monitorEventLoopDelay = (options) => {
    const histogram = monitorEventLoopDelay(options);
    histograms.push(histogram);
    return histogram;
  };
  try {
    collectDefaultMetrics({ register: registry, prefix });
  } finally {
    Object.defineProperty(prototype, 'observe', observe);
    perfHooks.monitorEventLoopDelay = monitorEventLoopDelay;
  }
  return () => {
    for (const observer of observers.splice(0)) observer.disconnect();
    for (const histogram of histograms.splice(0)) histogram.disable();
  };
}
