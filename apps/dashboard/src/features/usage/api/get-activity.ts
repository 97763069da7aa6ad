import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ActivityPage, UsageActivityQuery } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { queryString } from '../../../lib/query-string';
import { usageKeys } from './usage-keys';

/** How often the recent activity refreshes while it is on screen. */
export const ACTIVITY_REFRESH_MS = 30_000;

/** The latest gateway calls, newest first. */
export function getActivity(limit: number, signal?: AbortSignal): Promise<ActivityPage> {
  return http.get<ActivityPage>(`/api/v1/usage/me/activity${queryString<UsageActivityQuery>({ limit })}`, { signal });
}

export const activityQueryOptions = (limit: number) =>
  queryOptions({
    queryKey: usageKeys.activity(limit),
    queryFn: ({ signal }) => getActivity(limit, signal),
    staleTime: 5_000,
    refetchInterval: ACTIVITY_REFRESH_MS,
  });

export function useActivity(limit: number) {
  return useQuery(activityQueryOptions(limit));
}
