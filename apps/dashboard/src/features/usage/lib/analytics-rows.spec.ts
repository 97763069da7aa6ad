import type { AnalyticsResponse } from '@switchyard/shared-dto';

import { analyticsCsvColumns, analyticsRows, csvFileName } from './analytics-rows';
import { buildCsv } from './csv';

const zero = { requests: 0, promptTokens: 0, completionTokens: 0, totalTokens: 0, cost: 0 };
const range = { from: '2026-11-20', to: '2026-11-22' };

function response(groupBy: AnalyticsResponse['groupBy'], groups: AnalyticsResponse['groups']): AnalyticsResponse {
  return { from: '', to: '', groupBy, totals: zero, groups };
}

describe('analytics rows', () => {
  it('fills every day of the range for the day grouping', () => {
    const rows = analyticsRows(response('day', [{ ...zero, key: '2026-11-21', requests: 3 }]), range);
    expect(rows.map((row) => [row.label, row.requests])).toEqual([
      ['2026-11-20', 0],
      ['2026-11-21', 3],
      ['2026-11-22', 0],
    ]);
  });

  it('sorts other groups by cost and names apps the user authorized', () => {
    const rows = analyticsRows(
      response('app', [
        { ...zero, key: 'client-a', cost: 0.1 },
        { ...zero, key: 'client-b', cost: 0.3 },
      ]),
      range,
      new Map([['client-b', 'Notes app']]),
    );
    expect(rows.map((row) => row.label)).toEqual(['Notes app', 'client-a']);
  });

  it('exports the same numbers as CSV, with the client id for apps', () => {
    const rows = analyticsRows(
      response('app', [
        { key: 'client-b', requests: 2, promptTokens: 3, completionTokens: 4, totalTokens: 7, cost: 0.000014 },
      ]),
      range,
      new Map([['client-b', 'Notes, the app']]),
    );
    expect(buildCsv(analyticsCsvColumns('app'), rows)).toBe(
      'OAuth app,Client ID,Requests,Prompt tokens,Completion tokens,Total tokens,Cost (USD)\r\n"Notes, the app",client-b,2,3,4,7,0.000014\r\n',
    );
    expect(buildCsv(analyticsCsvColumns('day'), []).startsWith('Day (UTC),Requests')).toBe(true);
    expect(csvFileName('model', range)).toBe('switchyard-usage-by-model-2026-11-20-to-2026-11-22.csv');
  });
});
