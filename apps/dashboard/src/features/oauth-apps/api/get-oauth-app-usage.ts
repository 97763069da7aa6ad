import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ClientUsageResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { oauthAppKeys } from './oauth-app-keys';

/** What the app's users spent through it; without dates the server answers for the last 30 days. */
export function getOAuthAppUsage(clientId: string, signal?: AbortSignal): Promise<ClientUsageResponse> {
  return http.get<ClientUsageResponse>(`/api/v1/oauth2/clients/${encodeURIComponent(clientId)}/usage`, { signal });
}

export const oauthAppUsageQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: oauthAppKeys.usage(clientId),
    queryFn: ({ signal }) => getOAuthAppUsage(clientId, signal),
  });

export function useOAuthAppUsage(clientId: string) {
  return useQuery(oauthAppUsageQueryOptions(clientId));
}
