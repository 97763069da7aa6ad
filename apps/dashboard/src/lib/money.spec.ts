import { formatMoney } from './money';

describe('formatMoney', () => {
  it('shows an amount under a cent with its significant digits, never as $0.00', () => {
    expect(formatMoney(0.000214)).toBe('$0.000214');
    expect(formatMoney(0.000054)).toBe('$0.000054');
    expect(formatMoney(0.0099)).toBe('$0.0099');
    expect(formatMoney(0.000001)).toBe('$0.000001');
    expect(formatMoney(-0.000035)).toBe('-$0.000035');
  });

  it('shows cents as cents, and keeps the micro-units of a sum that has them', () => {
    expect(formatMoney(21.13)).toBe('$21.13');
    expect(formatMoney(7)).toBe('$7.00');
    expect(formatMoney(4.999786)).toBe('$4.999786');
    expect(formatMoney(0.0234)).toBe('$0.0234');
    expect(formatMoney(1234.5)).toBe('$1,234.50');
    expect(formatMoney(-1.234567)).toBe('-$1.234567');
    expect(formatMoney(0)).toBe('$0.00');
    expect(formatMoney(-0)).toBe('$0.00');
  });

  it('rounds float noise to the micro-unit and says so when there is no number', () => {
    expect(formatMoney(0.1 + 0.2)).toBe('$0.30');
    expect(formatMoney(0.0000004)).toBe('$0.00');
    expect(formatMoney(0.0000006)).toBe('$0.000001');
    expect(formatMoney(Number.NaN)).toBe('—');
  });
});
