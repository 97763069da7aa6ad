import { moneyWords } from '../../../common/money-words';
import { parseTripped, refusedLimitOf, refusedLimitOfError, windowResetsAt } from './spend-limit-refusal';

describe('spend limit refusals', () => {
  it('reads which limit sy_reserve says tripped', () => {
    expect(parseTripped('daily')).toEqual({ scope: 'key', limit: 'daily' });
    expect(parseTripped('app_per_request')).toEqual({ scope: 'app', limit: 'per_request' });
    expect(parseTripped('account')).toBeNull();
    expect(parseTripped('app_account')).toBeNull();
    expect(parseTripped(null)).toBeNull();
  });

  it('writes amounts exactly, at least to the cent', () => {
    expect(moneyWords(500_000)).toBe('$0.50');
    expect(moneyWords(499_900)).toBe('$0.4999');
    expect(moneyWords(214)).toBe('$0.000214');
    expect(moneyWords(21_130_000)).toBe('$21.13');
    expect(moneyWords(0)).toBe('$0.00');
    expect(moneyWords(-35)).toBe('-$0.000035');
  });

  it('says when a calendar window starts again (UTC)', () => {
    const wednesday = new Date('2026-11-25T13:14:15Z');
    expect(windowResetsAt('daily', wednesday)).toBe('2026-11-26T00:00:00.000Z');
    expect(windowResetsAt('weekly', wednesday)).toBe('2026-11-30T00:00:00.000Z');
    expect(windowResetsAt('weekly', new Date('2026-11-30T00:00:00Z'))).toBe('2026-12-07T00:00:00.000Z');
    expect(windowResetsAt('weekly', new Date('2026-11-29T23:59:59Z'))).toBe('2026-11-30T00:00:00.000Z');
    expect(windowResetsAt('monthly', new Date('2026-12-31T23:00:00Z'))).toBe('2027-01-01T00:00:00.000Z');
    expect(windowResetsAt('total', wednesday)).toBeNull();
    expect(windowResetsAt('per_request', wednesday)).toBeNull();
  });

  it('keeps the refused limit for the request log, and reads back only what it wrote', () => {
    const error = (code: string, extra?: Record<string, unknown>) => ({ code, options: { extra } });
    expect(refusedLimitOfError(error('BUDGET_EXHAUSTED'))).toBe('account');
    expect(refusedLimitOfError(error('SPEND_LIMIT_EXCEEDED', { scope: 'app', limit: 'weekly' }))).toBe('app:weekly');
    expect(refusedLimitOfError(error('MODEL_NOT_FOUND'))).toBeNull();
    expect(refusedLimitOf('app:weekly')).toEqual({ scope: 'app', limit: 'weekly' });
    expect(refusedLimitOf('account')).toEqual({ scope: 'account', limit: null });
    for (const junk of [null, 'key:forever', 'user:daily', 42]) expect(refusedLimitOf(junk)).toBeNull();
  });
});
