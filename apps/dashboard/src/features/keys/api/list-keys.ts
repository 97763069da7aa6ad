import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ApiKeyResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { keyKeys } from './key-keys';

/** The signed-in user's API keys, masked, newest first. */
export function listKeys(signal?: AbortSignal): Promise<ApiKeyResponse[]> {
  return http.get<ApiKeyResponse[]>('/api/v1/keys', { signal });
}

export const keysQueryOptions = () =>
  queryOptions({
    queryKey: keyKeys.list(),
    queryFn: ({ signal }) => listKeys(signal),
  });

export function useKeys() {
  return useQuery(keysQueryOptions());
}
