import { PerformanceObserver } from 'node:perf_hooks';
import { Registry } from 'prom-client';
import { startDefaultMetrics } from './default-metrics';

describe('startDefaultMetrics', () => {
  afterEach(() => jest.restoreAllMocks());

  it("registers prom-client's process metrics and stops the observer and histogram they leave running", async () => {
    const disconnect = jest.spyOn(PerformanceObserver.prototype, 'disconnect');
    const observe = PerformanceObserver.prototype.observe;
    const registry = new Registry();
    const stop = startDefaultMetrics(registry, 'test_');

    // What prom-client registers is there, and the process-wide hooks are given back untouched.
    const text = await registry.metrics();
    expect(text).toContain('test_process_cpu_seconds_total');
    expect(text).toContain('test_nodejs_eventloop_lag_p99_seconds');
    expect(text).toContain('test_nodejs_gc_duration_seconds');
    expect(PerformanceObserver.prototype.observe).toBe(observe);
    const observer = new PerformanceObserver(() => undefined);
    observer.observe({ entryTypes: ['mark'] });
    observer.disconnect();
    disconnect.mockClear();

    stop();
    // The garbage-collection observer prom-client started is disconnected (its callback no longer held).
    expect(disconnect).toHaveBeenCalledTimes(1);
    stop(); // a second stop is harmless
    expect(disconnect).toHaveBeenCalledTimes(1);
  });
});
