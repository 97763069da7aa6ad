import { queryOptions, useQuery } from '@tanstack/react-query';
import type { SpaceProfileResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { spaceKeys } from './space-keys';

/** A handle's public profile with its published apps (no sign-in needed). */
export function getSpaceProfile(handle: string, signal?: AbortSignal): Promise<SpaceProfileResponse> {
  return http.get<SpaceProfileResponse>(`/api/v1/spaces/${encodeURIComponent(handle)}`, { signal });
}

export const spaceProfileQueryOptions = (handle: string) =>
  queryOptions({
    queryKey: spaceKeys.profile(handle),
    queryFn: ({ signal }) => getSpaceProfile(handle, signal),
    retry: false,
  });

export function useSpaceProfile(handle: string) {
  return useQuery(spaceProfileQueryOptions(handle));
}
