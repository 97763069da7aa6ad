import { queryOptions, useQuery } from '@tanstack/react-query';

import { http } from '../../../lib/http';

export const docsKeys = {
  all: ['docs'] as const,
  openapi: () => [...docsKeys.all, 'openapi'] as const,
};

/** The server's own OpenAPI document (public, not in the envelope). */
export function getOpenApi(signal?: AbortSignal): Promise<unknown> {
  return http.get<unknown>('/openapi.json', { signal });
}

export const openApiQueryOptions = () =>
  queryOptions({
    queryKey: docsKeys.openapi(),
    queryFn: ({ signal }) => getOpenApi(signal),
    // It changes only with a new release of the server.
    staleTime: Infinity,
  });

export function useOpenApi() {
  return useQuery(openApiQueryOptions());
}
