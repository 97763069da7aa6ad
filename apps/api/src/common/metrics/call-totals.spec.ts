import { MetricsService } from './metrics';

const call = (over: Partial<Parameters<MetricsService['observeCall']>[0]>) => ({
  method: 'chat_completions',
  model: 'm1',
  provider: 'p',
  stream: false,
  status: 'success',
  httpStatus: 200,
  promptTokens: 10,
  completionTokens: 5,
  costMicros: 1500,
  startedAt: new Date(0),
  endedAt: new Date(30),
  ...over,
});

describe('the per-call metrics (running totals read at scrape time)', () => {
  it('renders calls, latency buckets, tokens and cost as Prometheus series', async () => {
    const metrics = new MetricsService();
    metrics.observeCall(call({}));
    metrics.observeCall(call({ endedAt: new Date(3) }));
    metrics.observeCall(
      call({
        model: 'm2',
        status: 'upstream_error',
        promptTokens: 0,
        completionTokens: 0,
        costMicros: 0,
        endedAt: new Date(200_000),
      }),
    );
    metrics.observeCall(call({ stream: true, model: 'm2' }));
    const text = await metrics.registry.metrics();
    expect(text).toContain('switchyard_gateway_calls_total{method="chat_completions",status="success"} 3');
    expect(text).toContain('switchyard_gateway_calls_total{method="chat_completions",status="upstream_error"} 1');
    // Cumulative buckets: 3 ms and 30 ms and 200 s, by method and streamed.
    expect(text).toContain(
      'switchyard_gateway_call_duration_seconds_bucket{method="chat_completions",stream="false",le="0.005"} 1',
    );
    expect(text).toContain(
      'switchyard_gateway_call_duration_seconds_bucket{method="chat_completions",stream="false",le="0.05"} 2',
    );
    expect(text).toContain(
      'switchyard_gateway_call_duration_seconds_bucket{method="chat_completions",stream="false",le="120"} 2',
    );
    expect(text).toContain(
      'switchyard_gateway_call_duration_seconds_bucket{method="chat_completions",stream="false",le="+Inf"} 3',
    );
    expect(text).toContain(
      'switchyard_gateway_call_duration_seconds_count{method="chat_completions",stream="false"} 3',
    );
    expect(text).toContain(
      'switchyard_gateway_call_duration_seconds_sum{method="chat_completions",stream="false"} 200.033',
    );
    expect(text).toContain('switchyard_gateway_call_duration_seconds_count{method="chat_completions",stream="true"} 1');
    expect(text).toContain('switchyard_tokens_total{model="m1",kind="prompt"} 20');
    expect(text).toContain('switchyard_tokens_total{model="m2",kind="completion"} 5');
    expect(text).toContain('switchyard_cost_total{model="m1"} 0.003');
    expect(text).toContain('switchyard_upstream_errors_total{provider="p",status="upstream_error"} 1');
    // Read twice, the counters are not doubled.
    expect(await metrics.registry.metrics()).toContain(
      'switchyard_gateway_calls_total{method="chat_completions",status="success"} 3',
    );
  });
});
