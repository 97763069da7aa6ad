import { newIdempotencyKey, parseAdjustment } from './idempotency-key';

describe('the console’s adjustment input', () => {
  it('makes a fresh version-4 UUID each time', () => {
    const [a, b] = [newIdempotencyKey(), newIdempotencyKey()];
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a).not.toBe(b);
  });

  it('takes signed amounts with at most six decimals, and says what is wrong otherwise', () => {
    expect(parseAdjustment(' 5 ')).toEqual({ ok: true, value: 5 });
    expect(parseAdjustment('+0.25')).toEqual({ ok: true, value: 0.25 });
    expect(parseAdjustment('-1.5')).toEqual({ ok: true, value: -1.5 });
    expect(parseAdjustment('0.000001')).toEqual({ ok: true, value: 0.000001 });
    for (const bad of ['', 'five', '1e3', '0', '-0.0', '0.0000001', '1000001', '--1'])
      expect(parseAdjustment(bad).ok).toBe(false);
  });
});
