import { daysIn, fillDays, presetRange, rangeProblem, thisMonth } from './date-range';

const now = new Date('2026-11-22T23:30:00Z');

describe('date ranges (UTC calendar days)', () => {
  it('counts the presets back from today, today included', () => {
    expect(presetRange('7d', now)).toEqual({ from: '2026-11-16', to: '2026-11-22' });
    expect(presetRange('30d', now)).toEqual({ from: '2026-10-24', to: '2026-11-22' });
    expect(presetRange('90d', now)).toEqual({ from: '2026-08-25', to: '2026-11-22' });
    expect(thisMonth(now)).toEqual({ from: '2026-11-01', to: '2026-11-22' });
    expect(daysIn(presetRange('30d', now))).toBe(30);
  });

  it('says what is wrong with a typed range', () => {
    expect(rangeProblem({ from: '2026-11-01', to: '2026-11-22' })).toBeNull();
    expect(rangeProblem({ from: '', to: '2026-11-22' })).toBe('Enter a start date.');
    expect(rangeProblem({ from: '2026-02-30', to: '2026-03-01' })).toBe('Enter a start date.');
    expect(rangeProblem({ from: '2026-11-23', to: '2026-11-22' })).toBe(
      'The start date must not be after the end date.',
    );
    expect(rangeProblem({ from: '2024-01-01', to: '2026-01-01' })).toBe('Choose at most 366 days.');
  });

  it('fills the days without calls with zeros, in order', () => {
    const groups = [
      { key: '2026-11-21', requests: 2, promptTokens: 5, completionTokens: 5, totalTokens: 10, cost: 0.5 },
    ];
    const days = fillDays(groups, { from: '2026-11-20', to: '2026-11-22' });
    expect(days.map((day) => [day.key, day.requests])).toEqual([
      ['2026-11-20', 0],
      ['2026-11-21', 2],
      ['2026-11-22', 0],
    ]);
  });
});
