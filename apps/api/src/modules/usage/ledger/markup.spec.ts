import { markedUp, markupSplit, MAX_MARKUP_PERCENT, providerPart } from './markup';

describe('markedUp and markupSplit', () => {
  it('marks up with the markup rounded up to the micro-unit, and 0 % changes nothing', () => {
    expect(markedUp(1000, 15)).toBe(1150);
    expect(markedUp(1, 15)).toBe(2);
    expect(markedUp(1, 0)).toBe(1);
    expect(markedUp(0, 300)).toBe(0);
    expect(markedUp(333, 300)).toBe(1332);
    expect(markedUp(7, 33)).toBe(7 + 3);
  });

  it('splits a charge back into provider cost and markup exactly, for every cost and rate', () => {
    for (const markup of [0, 1, 7, 15, 33, 99, 100, 150, 299, 300])
      for (const cost of [0, 1, 2, 3, 7, 99, 100, 101, 12_345, 987_654_321]) {
        const paid = markedUp(cost, markup);
        expect(markupSplit(paid, markup)).toEqual({ providerMicros: cost, markupMicros: paid - cost });
      }
    // A charge cut short (the balance or a cap) still splits into two whole parts adding up to it.
    const split = markupSplit(101, 25);
    expect(split.providerMicros + split.markupMicros).toBe(101);
    expect(providerPart(125, 25)).toBe(100);
  });

  it('stays exact at the largest amounts and caps at Number.MAX_SAFE_INTEGER', () => {
    const big = 2 ** 50;
    expect(markedUp(big, 300)).toBe(Number(BigInt(big) * 4n));
    expect(markedUp(Number.MAX_SAFE_INTEGER, 300)).toBe(Number.MAX_SAFE_INTEGER);
    expect(markupSplit(Number.MAX_SAFE_INTEGER, 300).providerMicros).toBe(Math.floor(Number.MAX_SAFE_INTEGER / 4));
  });

  it('refuses a rate outside 0..300 or not whole, and treats negative or non-finite money as nothing', () => {
    for (const bad of [-1, MAX_MARKUP_PERCENT + 1, 1.5, Number.NaN, Infinity])
      expect(() => markedUp(100, bad)).toThrow(RangeError);
    expect(markedUp(-100, 50)).toBe(0);
    expect(markedUp(Number.NaN, 50)).toBe(0);
    expect(markupSplit(-5, 50)).toEqual({ providerMicros: 0, markupMicros: 0 });
  });
});
