import { costMicros, MAX_COST_MICROS, toUnits } from './pricing';

describe('costMicros', () => {
  it('prices tokens per million without floating drift', () => {
    expect(costMicros({ inputPerMTok: 0.15, outputPerMTok: 0.6 }, { promptTokens: 1000, completionTokens: 500 })).toBe(450);
    expect(toUnits(450)).toBe(0.00045);
  });
  it('prices images, seconds and characters', () => {
    expect(costMicros({ perImage: 0.04 }, { images: 3 })).toBe(120_000);
    expect(costMicros({ perSecond: 0.1 }, { seconds: 8 })).toBe(800_000);
    expect(costMicros({ perMChars: 15 }, { characters: 1000 })).toBe(15_000);
  });
  it('rounds a fraction of a micro-unit up, so a priced call is never free, and an exact price not at all', () => {
    expect(costMicros({ inputPerMTok: 0.02 }, { promptTokens: 6 })).toBe(1);
    expect(costMicros({ inputPerMTok: 0.5 }, { promptTokens: 3 })).toBe(2);
    expect(costMicros({ inputPerMTok: 0.1, outputPerMTok: 0.3 }, { promptTokens: 30, completionTokens: 10 })).toBe(6);
  });
  it('is zero for a model without pricing', () => {
    expect(costMicros({}, { promptTokens: 10_000 })).toBe(0);
  });

  it('caps a cost too large to store (a request asking for n: 1e308), so the call is refused, never a 500', () => {
    expect(costMicros({ perImage: 0.04 }, { images: 1e308 })).toBe(MAX_COST_MICROS);
    expect(costMicros({ perSecond: 0.1 }, { seconds: Infinity })).toBe(MAX_COST_MICROS);
    expect(costMicros({ outputPerMTok: 2 }, { completionTokens: NaN })).toBe(MAX_COST_MICROS);
    expect(Number.isSafeInteger(costMicros({ inputPerMTok: 1 }, { promptTokens: 2 ** 60 }))).toBe(true);
  });
});
