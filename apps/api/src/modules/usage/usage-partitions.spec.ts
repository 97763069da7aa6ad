import { monthsFrom } from './usage-partitions';

const at = (iso: string) => new Date(iso);

describe('monthsFrom', () => {
  it('names the first day of this month and of the months ahead, in UTC, across a year end', () => {
    expect(monthsFrom(at('2026-11-30T23:59:59Z'), 2)).toEqual(['2026-11-01', '2026-12-01', '2027-01-01']);
  });
});
