// The analytics figures as the chart, the table and the CSV file show them: one row per group with a label.
import type { AnalyticsGroup, AnalyticsGroupBy, AnalyticsResponse } from '@switchyard/shared-dto';

import type { CsvColumn } from './csv';
import { fillDays } from './date-range';
import type { DateRange } from './date-range';

export interface AnalyticsRow extends AnalyticsGroup {
  label: string;
}

export const GROUP_BY_OPTIONS: { value: AnalyticsGroupBy; label: string; column: string; heading: string }[] = [
  { value: 'day', label: 'Day', column: 'Day (UTC)', heading: 'By day' },
  { value: 'model', label: 'Model', column: 'Model', heading: 'By model' },
  { value: 'key', label: 'API key', column: 'API key', heading: 'By API key' },
  { value: 'app', label: 'OAuth app', column: 'OAuth app', heading: 'By OAuth app' },
];

export function groupColumn(groupBy: AnalyticsGroupBy): string {
  return GROUP_BY_OPTIONS.find((option) => option.value === groupBy)?.column ?? 'Group';
}

/**
 * Rows in the order to show: days in calendar order with the empty days filled in, other groups by cost, most
 * first. App groups come keyed by client id; `appNames` turns the ones the user authorized into names.
 */
export function analyticsRows(
  response: AnalyticsResponse,
  range: DateRange,
  appNames: ReadonlyMap<string, string> = new Map(),
): AnalyticsRow[] {
  if (response.groupBy === 'day')
    return fillDays(response.groups, range).map((group) => ({ ...group, label: group.key }));
  return [...response.groups]
    .sort((a, b) => b.cost - a.cost || b.totalTokens - a.totalTokens || a.key.localeCompare(b.key))
    .map((group) => ({
      ...group,
      label: response.groupBy === 'app' ? (appNames.get(group.key) ?? group.key) : group.key,
    }));
}

export function analyticsCsvColumns(groupBy: AnalyticsGroupBy): CsvColumn<AnalyticsRow>[] {
  return [
    { header: groupColumn(groupBy), value: (row) => row.label },
    ...(groupBy === 'app' ? [{ header: 'Client ID', value: (row: AnalyticsRow) => row.key }] : []),
    { header: 'Requests', value: (row) => row.requests },
    { header: 'Prompt tokens', value: (row) => row.promptTokens },
    { header: 'Completion tokens', value: (row) => row.completionTokens },
    { header: 'Total tokens', value: (row) => row.totalTokens },
    { header: 'Cost (USD)', value: (row) => row.cost },
  ];
}

/** "switchyard-usage-by-model-2026-11-01-to-2026-11-22.csv" */
export function csvFileName(groupBy: AnalyticsGroupBy, range: DateRange): string {
  return `switchyard-usage-by-${groupBy}-${range.from}-to-${range.to}.csv`;
}
