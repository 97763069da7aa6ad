import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { DailySpendPage, UsageDailySpendQuery } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { queryString } from '../../../lib/query-string';
import { billingKeys } from './billing-keys';

/** Days a page covers. */
const PAGE_DAYS = 30;

/** What calls were charged per UTC day, newest first; `cursor` is the previous page's nextCursor. */
export function listDailySpend(cursor: string | null, signal?: AbortSignal): Promise<DailySpendPage> {
  const query = queryString<UsageDailySpendQuery>({ limit: PAGE_DAYS, cursor: cursor || undefined });
  return http.get<DailySpendPage>(`/api/v1/usage/me/daily-spend${query}`, { signal });
}

export const dailySpendQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: billingKeys.dailySpend(),
    queryFn: ({ pageParam, signal }) => listDailySpend(pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (lastPage) => lastPage.nextCursor,
  });

export function useDailySpend() {
  return useInfiniteQuery(dailySpendQueryOptions());
}
