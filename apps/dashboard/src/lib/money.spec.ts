import { formatCallCost, formatCharge, formatExactMoney, formatMoney } from './money';

describe('formatMoney', () => {
  it('shows the currency and two decimals, rounding micro-units to the cent', () => {
    expect(formatMoney(7)).toBe('$7.00');
    expect(formatMoney(4.999873)).toBe('$5.00');
    expect(formatMoney(0.000123)).toBe('$0.00');
    expect(formatMoney(-1.234567)).toBe('-$1.23');
    expect(formatMoney(1234.5)).toBe('$1,234.50');
  });
});

describe('formatCallCost', () => {
  it('keeps up to six decimals only for a call under a cent', () => {
    expect(formatCallCost(0.000123)).toBe('$0.000123');
    expect(formatCallCost(0.0099)).toBe('$0.0099');
    expect(formatCallCost(-0.000035)).toBe('-$0.000035');
  });

  it('shows two decimals for free calls and calls of a cent or more', () => {
    expect(formatCallCost(0)).toBe('$0.00');
    expect(formatCallCost(0.01)).toBe('$0.01');
    expect(formatCallCost(0.012345)).toBe('$0.01');
    expect(formatCallCost(2.5)).toBe('$2.50');
  });
});

describe('formatCharge', () => {
  it('says "under $0.01" for a sum that rounds to nothing but is not nothing', () => {
    expect(formatCharge(0.000035)).toBe('under $0.01');
    expect(formatCharge(0.004999)).toBe('under $0.01');
    expect(formatCharge(0.005)).toBe('$0.01');
    expect(formatCharge(0)).toBe('$0.00');
    expect(formatCharge(12.345)).toBe('$12.35');
  });
});

describe('formatExactMoney', () => {
  it('shows a typed cap as typed: micro-units only when it has them', () => {
    expect(formatExactMoney(5)).toBe('$5.00');
    expect(formatExactMoney(0.005)).toBe('$0.005');
    expect(formatExactMoney(1.234567)).toBe('$1.234567');
  });
});
