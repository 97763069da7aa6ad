import { queryOptions, useQuery } from '@tanstack/react-query';
import type { SpaceAppDetailResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { GENERATING_POLL_MS, spaceKeys } from './space-keys';

/** One of the user's apps with its page (for the sandboxed preview) and its versions. */
export function getSpaceApp(slug: string, signal?: AbortSignal): Promise<SpaceAppDetailResponse> {
  return http.get<SpaceAppDetailResponse>(`/api/v1/spaces/me/apps/${encodeURIComponent(slug)}`, { signal });
}

export const spaceAppQueryOptions = (slug: string) =>
  queryOptions({
    queryKey: spaceKeys.app(slug),
    queryFn: ({ signal }) => getSpaceApp(slug, signal),
    refetchInterval: (query) => (query.state.data?.status === 'generating' ? GENERATING_POLL_MS : false),
  });

export function useSpaceApp(slug: string) {
  return useQuery(spaceAppQueryOptions(slug));
}
