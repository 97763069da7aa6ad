import { costDetails, costMicros, MAX_COST_MICROS, tokenPrices, toUnits } from './pricing';

describe('costMicros', () => {
  it('prices tokens per million without floating drift', () => {
    expect(costMicros({ inputPerMTok: 0.15, outputPerMTok: 0.6 }, { inputTokens: 1000, outputTokens: 500 })).toBe(450);
    expect(toUnits(450)).toBe(0.00045);
  });
  it('prices images, seconds and characters', () => {
    expect(costMicros({ perImage: 0.04 }, { images: 3 })).toBe(120_000);
    expect(costMicros({ perSecond: 0.1 }, { seconds: 8 })).toBe(800_000);
    expect(costMicros({ perMChars: 15 }, { characters: 1000 })).toBe(15_000);
  });
  it('rounds a fraction of a micro-unit up, so a priced call is never free, and an exact price not at all', () => {
    expect(costMicros({ inputPerMTok: 0.02 }, { inputTokens: 6 })).toBe(1);
    expect(costMicros({ inputPerMTok: 0.5 }, { inputTokens: 3 })).toBe(2);
    expect(costMicros({ inputPerMTok: 0.1, outputPerMTok: 0.3 }, { inputTokens: 30, outputTokens: 10 })).toBe(6);
  });
  it('is zero for a model without pricing', () => {
    expect(costMicros({}, { inputTokens: 10_000 })).toBe(0);
  });

  it('caps a cost too large to store (a request asking for n: 1e308), so the call is refused, never a 500', () => {
    expect(costMicros({ perImage: 0.04 }, { images: 1e308 })).toBe(MAX_COST_MICROS);
    expect(costMicros({ perSecond: 0.1 }, { seconds: Infinity })).toBe(MAX_COST_MICROS);
    expect(costMicros({ outputPerMTok: 2 }, { outputTokens: NaN })).toBe(MAX_COST_MICROS);
    expect(Number.isSafeInteger(costMicros({ inputPerMTok: 1 }, { inputTokens: 2 ** 60 }))).toBe(true);
  });
});

describe('the cost formula: Σ component × its price (docs/pricing.md)', () => {
  const claude = {
    inputPerMTok: 3,
    outputPerMTok: 15,
    cacheReadPerMTok: 0.3,
    cacheWritePerMTok: 3.75,
    cacheWrite1hPerMTok: 6,
  };
  const usage = {
    inputTokens: 21,
    cacheReadTokens: 12_000,
    cacheWriteTokens: 1000,
    cacheWrite1hTokens: 2000,
    outputTokens: 393,
    reasoningTokens: 100,
  };

  it('prices each component at its own price, reasoning as output (inside it, never twice)', () => {
    // 21×3 + 12,000×0.3 + 1,000×3.75 + 2,000×6 + 393×15 = 63 + 3,600 + 3,750 + 12,000 + 5,895
    expect(costMicros(claude, usage)).toBe(25_308);
    expect(costDetails(claude, usage)).toEqual({
      input: 0.000063,
      cache_read: 0.0036,
      cache_write: 0.00375,
      cache_write_1h: 0.012,
      output: 0.005895,
    });
  });

  it('prices an absent cache price at the input price (a one-hour write at the five-minute price, if there is one)', () => {
    expect(costMicros({ inputPerMTok: 3, outputPerMTok: 15 }, usage)).toBe(21 * 3 + 12_000 * 3 + 3000 * 3 + 393 * 15);
    expect(costMicros({ inputPerMTok: 3, cacheWritePerMTok: 3.75 }, { cacheWrite1hTokens: 1000 })).toBe(3750);
    expect(tokenPrices({ inputPerMTok: 2 }, 0)).toEqual({
      input: 2,
      cacheRead: 2,
      cacheWrite: 2,
      cacheWrite1h: 2,
      output: 0,
    });
  });

  it('prices every token of a call whose prompt is above the threshold at the tier, cache prices scaled with the input', () => {
    const tiered = { ...claude, tierAboveTokens: 200_000, inputAbovePerMTok: 6, outputAbovePerMTok: 22.5 };
    expect(tokenPrices(tiered, 200_000)).toEqual({
      input: 3,
      cacheRead: 0.3,
      cacheWrite: 3.75,
      cacheWrite1h: 6,
      output: 15,
    });
    expect(tokenPrices(tiered, 200_001)).toEqual({
      input: 6,
      cacheRead: 0.6,
      cacheWrite: 7.5,
      cacheWrite1h: 12,
      output: 22.5,
    });
    // The threshold counts every input token, cached or not: 1,000 uncached + 199,500 read from the cache.
    expect(costMicros(tiered, { inputTokens: 1000, cacheReadTokens: 199_500, outputTokens: 100 })).toBe(
      1000 * 6 + 199_500 * 0.6 + 100 * 22.5,
    );
    expect(costMicros(tiered, { inputTokens: 1000, cacheReadTokens: 199_000, outputTokens: 100 })).toBe(
      1000 * 3 + 199_000 * 0.3 + 100 * 15,
    );
  });

  it('adds the price of the request, and rounds the sum up once', () => {
    expect(costMicros({ perRequest: 0.001, inputPerMTok: 0.02 }, { inputTokens: 6, requests: 1 })).toBe(1001);
    expect(costDetails({ perRequest: 0.001, inputPerMTok: 0.02 }, { inputTokens: 6, requests: 1 })).toMatchObject({
      input: 1.2e-7,
      request: 0.001,
    });
  });
});
