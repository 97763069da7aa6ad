import type { ModelPricing } from '@switchyard/shared-dto';
import type { Call } from '../call/call';
import { billedUsage } from './priced-usage';
import type { CatalogModel } from '../catalog/catalog.types';
import { affordableOutputTokens, estimateCall, isPriced } from './budget-estimate';
import { costMicros } from './pricing';

const model = (pricing: ModelPricing, extra: Partial<CatalogModel> = {}): CatalogModel =>
  ({
    id: 'm',
    methods: ['chat_completions'],
    maxOutputTokens: 1000,
    maxTokensParam: 'max_tokens',
    contextLength: null,
    pricing,
    free: false,
    ...extra,
  }) as CatalogModel;

/** Claude's prices with a long-context tier (docs/pricing.md): cache writes above the input price, all doubled above 200K. */
const TIERED: ModelPricing = {
  inputPerMTok: 3,
  outputPerMTok: 15,
  cacheReadPerMTok: 0.3,
  cacheWritePerMTok: 3.75,
  cacheWrite1hPerMTok: 6,
  tierAboveTokens: 200_000,
  inputAbovePerMTok: 6,
  outputAbovePerMTok: 22.5,
  perRequest: 0.0001,
};

describe('the reservation covers the most a call can cost', () => {
  it('holds a call whose whole prompt is a one-hour cache write on a tiered model', () => {
    // 300,000 bytes of prompt: the bound is above the tier's threshold, so the tier's prices apply.
    const body = { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(300_000) }], max_tokens: 1000 };
    const estimate = estimateCall('chat_completions', model(TIERED), body, null);
    const bound = estimate.inputTokens;
    expect(bound).toBeGreaterThan(200_000);
    // The provider reports every input token as written to the cache for an hour, and the whole output.
    const worst = costMicros(TIERED, { cacheWrite1hTokens: bound, outputTokens: 1000, requests: 1 });
    expect(worst).toBe(Math.ceil(bound * 12 + 1000 * 22.5 + 100));
    expect(estimate.worstMicros).toBeGreaterThanOrEqual(worst);
    // …and any other split of the same prompt costs no more.
    for (const split of [
      { inputTokens: bound },
      { cacheWriteTokens: bound },
      { cacheReadTokens: bound },
      { inputTokens: bound / 2, cacheWrite1hTokens: bound / 2 },
    ])
      expect(costMicros(TIERED, { ...split, outputTokens: 1000, requests: 1 })).toBeLessThanOrEqual(
        estimate.worstMicros,
      );
  });

  it('prices a prompt bound within the threshold at the base prices, the one-hour write still the dearest input', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(10_000) }], max_tokens: 100 };
    const estimate = estimateCall('chat_completions', model(TIERED), body, null);
    expect(estimate.inputTokens).toBeLessThanOrEqual(200_000);
    expect(estimate.worstMicros).toBe(Math.ceil(estimate.inputTokens * 6 + 100 * 15 + 100));
    expect(estimate.worstMicros).toBeGreaterThanOrEqual(
      costMicros(TIERED, { cacheWrite1hTokens: estimate.inputTokens, outputTokens: 100, requests: 1 }),
    );
    expect(estimate.inputWorstMicros).toBe(Math.ceil(estimate.inputTokens * 6 + 100));
  });

  it('lowers the output bound by the output price of the tier the prompt is in, after its input at the dearest price', () => {
    const body = { model: 'm', messages: [{ role: 'user', content: 'x'.repeat(300_000) }], max_tokens: 1000 };
    const estimate = estimateCall('chat_completions', model(TIERED), body, null);
    const tokens = affordableOutputTokens(model(TIERED), estimate, estimate.inputWorstMicros + 225);
    expect(tokens).toBe(10); // 225 µ at 22.5 µ a token
  });

  it('holds the price of the request of fixed-price calls too', () => {
    const image = model({ perImage: 0.04, perRequest: 0.001 }, { methods: ['image_generation'] });
    expect(estimateCall('image_generation', image, { model: 'm', n: 2 }, null).worstMicros).toBe(81_000);
  });

  it('says which calls are priced: a price of the request prices every kind, cache prices alone price tokens', () => {
    expect(isPriced('image_generation', model({ perRequest: 0.01 }))).toBe(true);
    expect(isPriced('image_generation', model({ inputPerMTok: 5, outputPerMTok: 40 }))).toBe(false);
    expect(isPriced('chat_completions', model({ cacheReadPerMTok: 0.1 }))).toBe(true);
    expect(isPriced('chat_completions', model({}))).toBe(false);
    expect(isPriced('video_retrieve', model({ perRequest: 1 }))).toBe(false);
  });
});

describe('what a served call is priced on', () => {
  it('adds the request to a billable call’s usage, not to retrieving a video (its creation was charged)', () => {
    const call = (action: string) => ({ route: { action }, metered: { outputTokens: 3 } }) as unknown as Call;
    expect(billedUsage(call('chat_completions'))).toEqual({ outputTokens: 3, requests: 1 });
    expect(billedUsage(call('video_retrieve'))).toEqual({ outputTokens: 3 });
    expect(billedUsage(call('video_content'))).toEqual({ outputTokens: 3 });
  });
});
