import { queryOptions, useQuery } from '@tanstack/react-query';
import type { OAuthClientResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { oauthAppKeys } from './oauth-app-keys';

/** The signed-in user's OAuth apps, each with how many users authorized it. */
export function listOAuthApps(signal?: AbortSignal): Promise<OAuthClientResponse[]> {
  return http.get<OAuthClientResponse[]>('/api/v1/oauth2/clients', { signal });
}

export const oauthAppsQueryOptions = () =>
  queryOptions({
    queryKey: oauthAppKeys.list(),
    queryFn: ({ signal }) => listOAuthApps(signal),
  });

export function useOAuthApps() {
  return useQuery(oauthAppsQueryOptions());
}
