import { queryOptions, useQuery } from '@tanstack/react-query';
import type { HandleCheckResponse, SpaceHandleCheckQuery } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { queryString } from '../../../lib/query-string';
import { spaceKeys } from './space-keys';

/** Whether a well-formed handle can be claimed (public). */
export function checkHandle(handle: string, signal?: AbortSignal): Promise<HandleCheckResponse> {
  return http.get<HandleCheckResponse>(`/api/v1/spaces/handle/check${queryString<SpaceHandleCheckQuery>({ handle })}`, {
    signal,
  });
}

export const handleCheckQueryOptions = (handle: string) =>
  queryOptions({
    queryKey: spaceKeys.handleCheck(handle),
    queryFn: ({ signal }) => checkHandle(handle, signal),
    staleTime: 10_000,
  });

/** Asks only when `enabled` (the caller checks the handle's form first, so the server sees well-formed ones). */
export function useHandleCheck(handle: string, enabled: boolean) {
  return useQuery({ ...handleCheckQueryOptions(handle), enabled });
}
