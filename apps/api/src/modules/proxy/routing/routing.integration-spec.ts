import { Registry } from 'prom-client';
import { startTestApp, type TestApp } from '../../../../test/support/test-app';
import { modelWith } from '../../../../test/support/deployments';
import { CatalogService } from '../catalog/catalog.service';
import { DeploymentStats } from './deployment-stats';
import { InProcessHealthStore } from './health-store';
import { registerRoutingMetrics } from './routing-metrics';
import { RoutingService } from './routing.service';

describe('routing metrics', () => {
  it('reports calls, errors, breaker state, calls in flight and time to first byte per deployment', async () => {
    let clock = 1_700_000_000_000;
    const registry = new Registry();
    const stats = new DeploymentStats(() => clock);
    const store = new InProcessHealthStore(() => clock);
    const model = modelWith([{ provider: 'p1' }, { provider: 'p2' }]);
    registerRoutingMetrics(registry, {
      stats,
      breaker: (key) => store.breaker(key),
      deployments: () => model.deployments.map((d) => d.key),
      now: () => clock,
    });
    const ok = stats.start('p1/up-p1');
    clock += 300;
    stats.firstByte(ok);
    stats.end(ok, 'success');
    for (let i = 0; i < 3; i += 1) {
      stats.end(stats.start('p2/up-p2'), 'fault');
      await store.record('p2/up-p2', { kind: 'fault' });
    }
    stats.end(stats.start('p2/up-p2'), 'rate_limited');
    stats.start('p1/up-p1');
    const text = await registry.metrics();
    for (const line of [
      'switchyard_deployment_calls_total{deployment="p1/up-p1",outcome="success"} 1',
      'switchyard_deployment_calls_total{deployment="p2/up-p2",outcome="fault"} 3',
      'switchyard_deployment_errors_total{deployment="p2/up-p2",kind="fault"} 3',
      'switchyard_deployment_errors_total{deployment="p2/up-p2",kind="rate_limited"} 1',
      'switchyard_deployment_breaker_state{deployment="p1/up-p1"} 0',
      'switchyard_deployment_breaker_state{deployment="p2/up-p2"} 2',
      'switchyard_deployment_in_flight{deployment="p1/up-p1"} 1',
      'switchyard_deployment_ttfb_seconds_bucket{deployment="p1/up-p1",le="0.25"} 0',
      'switchyard_deployment_ttfb_seconds_bucket{deployment="p1/up-p1",le="0.5"} 1',
      'switchyard_deployment_ttfb_seconds_count{deployment="p1/up-p1"} 1',
    ])
      expect(text).toContain(line);
    clock += 5_000;
    expect(await registry.metrics()).toContain('switchyard_deployment_breaker_state{deployment="p2/up-p2"} 1');
  });
});

describe('RoutingService in the app', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp();
  });
  afterAll(() => app?.close());

  it('plans over the catalog’s deployments and shows their breakers on /metrics from the start', async () => {
    const routing = app.app.get(RoutingService);
    const model = app.app.get(CatalogService).find('demo-chat')!;
    const plan = routing.plan(model);
    expect(plan.candidates.map((c) => c.deployment.key)).toEqual(['demo/demo-chat']);
    const routed = await routing.begin(plan.candidates[0]);
    routing.firstByte(routed!);
    await routing.end(routed!, null, { tokens: 12, outputTokens: 4 });
    const text = await (await fetch(`${app.url}/metrics`)).text();
    expect(text).toContain('switchyard_deployment_breaker_state{deployment="demo/demo-chat"} 0');
    expect(text).toContain('switchyard_deployment_breaker_state{deployment="demo/demo-embedding"} 0');
    expect(text).toContain('switchyard_deployment_calls_total{deployment="demo/demo-chat",outcome="success"} 1');
  });
});
