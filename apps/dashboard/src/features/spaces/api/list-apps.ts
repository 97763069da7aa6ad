import { queryOptions, useQuery } from '@tanstack/react-query';
import type { SpaceAppResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { GENERATING_POLL_MS, spaceKeys } from './space-keys';

/** The signed-in user's apps, unpublished ones included, newest first. */
export function listSpaceApps(signal?: AbortSignal): Promise<SpaceAppResponse[]> {
  return http.get<SpaceAppResponse[]>('/api/v1/spaces/me/apps', { signal });
}

export const spaceAppsQueryOptions = () =>
  queryOptions({
    queryKey: spaceKeys.apps(),
    queryFn: ({ signal }) => listSpaceApps(signal),
    // Live status: ask again while a model is writing one of them.
    refetchInterval: (query) =>
      query.state.data?.some((app) => app.status === 'generating') ? GENERATING_POLL_MS : false,
  });

export function useSpaceApps() {
  return useQuery(spaceAppsQueryOptions());
}
