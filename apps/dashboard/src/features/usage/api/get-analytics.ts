import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { AnalyticsGroupBy, AnalyticsResponse, UsageAnalyticsQuery } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { queryString } from '../../../lib/query-string';
import type { DateRange } from '../lib/date-range';
import { usageKeys } from './usage-keys';

/** Requests, tokens and cost per group between two UTC dates (the end date counts whole). */
export function getAnalytics(
  range: DateRange,
  groupBy: AnalyticsGroupBy,
  signal?: AbortSignal,
): Promise<AnalyticsResponse> {
  const query = queryString<UsageAnalyticsQuery>({ from: range.from, to: range.to, groupBy });
  return http.get<AnalyticsResponse>(`/api/v1/usage/me/analytics${query}`, { signal });
}

export const analyticsQueryOptions = (range: DateRange, groupBy: AnalyticsGroupBy) =>
  queryOptions({
    queryKey: usageKeys.analytics(range, groupBy),
    queryFn: ({ signal }) => getAnalytics(range, groupBy, signal),
    // Changing the range or grouping keeps the last figures on screen until the new ones arrive.
    placeholderData: keepPreviousData,
  });

export function useAnalytics(range: DateRange, groupBy: AnalyticsGroupBy, options: { enabled?: boolean } = {}) {
  return useQuery({ ...analyticsQueryOptions(range, groupBy), enabled: options.enabled ?? true });
}
