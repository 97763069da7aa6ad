// Date ranges of the analytics, as UTC calendar dates (YYYY-MM-DD): the API reads a bare date as `to` as the
// whole of that day (docs/budgets.md), and its day groups are UTC days.
import type { AnalyticsGroup } from '@switchyard/shared-dto';

export const RANGE_PRESETS = [
  { id: '7d', label: 'Last 7 days' },
  { id: '30d', label: 'Last 30 days' },
  { id: 'month', label: 'This month' },
  { id: '90d', label: 'Last 90 days' },
] as const;
export type RangePresetId = (typeof RANGE_PRESETS)[number]['id'];

export interface DateRange {
  from: string;
  to: string;
}

/** The longest range the page asks for: a year and a day, so a leap year fits. */
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

export function isoDate(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function addDays(iso: string, days: number): string {
  return isoDate(new Date(Date.parse(`${iso}T00:00:00Z`) + days * DAY_MS));
}

export function presetRange(preset: RangePresetId, now: Date = new Date()): DateRange {
  const today = isoDate(now);
  switch (preset) {
    case '7d':
      return { from: addDays(today, -6), to: today };
    case '30d':
      return { from: addDays(today, -29), to: today };
    case '90d':
      return { from: addDays(today, -89), to: today };
    case 'month':
      return { from: `${today.slice(0, 8)}01`, to: today };
  }
}

/** The first day of the current UTC month up to today: "spend this month". */
export function thisMonth(now: Date = new Date()): DateRange {
  return presetRange('month', now);
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;

function isRealDate(iso: string): boolean {
  return DATE.test(iso) && isoDate(new Date(`${iso}T00:00:00Z`)) === iso;
}

/** What is wrong with a typed range, in words; null when the page can ask for it. */
export function rangeProblem(range: DateRange): string | null {
  if (!isRealDate(range.from)) return 'Enter a start date.';
  if (!isRealDate(range.to)) return 'Enter an end date.';
  if (range.from > range.to) return 'The start date must not be after the end date.';
  if (daysIn(range) > MAX_RANGE_DAYS) return `Choose at most ${MAX_RANGE_DAYS} days.`;
  return null;
}

/** How many calendar days the range covers, both ends included. */
export function daysIn(range: DateRange): number {
  return Math.round((Date.parse(`${range.to}T00:00:00Z`) - Date.parse(`${range.from}T00:00:00Z`)) / DAY_MS) + 1;
}

/** Every day of the range in order, days without calls as zeros, so a chart over time has no gaps. */
export function fillDays(groups: readonly AnalyticsGroup[], range: DateRange): AnalyticsGroup[] {
  const byDay = new Map(groups.map((group) => [group.key.slice(0, 10), group]));
  const days: AnalyticsGroup[] = [];
  for (let day = range.from; day <= range.to && days.length <= MAX_RANGE_DAYS; day = addDays(day, 1)) {
    days.push(
      byDay.get(day) ?? { key: day, requests: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, cost: 0 },
    );
  }
  return days;
}
