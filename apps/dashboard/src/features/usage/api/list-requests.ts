import { infiniteQueryOptions, keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import type { ActivityPage, UsageActivityQuery } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { queryString } from '../../../lib/query-string';
import { activityQuery } from '../lib/request-filters';
import type { RequestFilters } from '../lib/request-filters';
import { usageKeys } from './usage-keys';

const PAGE_SIZE = 25;

/** One page of the calls that match `filters`, newest first; `cursor` is the previous page's nextCursor. */
export function listRequests(
  filters: RequestFilters,
  cursor: string | null,
  signal?: AbortSignal,
): Promise<ActivityPage> {
  const query = queryString<UsageActivityQuery>(activityQuery(filters, PAGE_SIZE, cursor));
  return http.get<ActivityPage>(`/api/v1/usage/me/activity${query}`, { signal });
}

export const requestsQueryOptions = (filters: RequestFilters) =>
  infiniteQueryOptions({
    queryKey: usageKeys.requests(filters),
    queryFn: ({ pageParam, signal }) => listRequests(filters, pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (lastPage) => lastPage.nextCursor,
    // Changing a filter keeps the last rows on screen until the new ones arrive.
    placeholderData: keepPreviousData,
  });

export function useRequests(filters: RequestFilters, options: { enabled?: boolean } = {}) {
  return useInfiniteQuery({ ...requestsQueryOptions(filters), enabled: options.enabled ?? true });
}
