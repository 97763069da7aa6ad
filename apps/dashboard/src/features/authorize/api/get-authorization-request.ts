import { queryOptions, useQuery } from '@tanstack/react-query';
import type { AuthorizationParams, AuthorizationRequestInfo } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { authorizeKeys } from './authorize-keys';
import { toQueryString } from './authorization-params';

/**
 * What the consent page shows: the app, where it redirects, the scopes in words and earlier caps. The server
 * checks the client and redirect URI again here; an error answer is shown as it is and never followed.
 */
export function getAuthorizationRequest(
  params: AuthorizationParams,
  signal?: AbortSignal,
): Promise<AuthorizationRequestInfo> {
  return http.get<AuthorizationRequestInfo>(`/api/v1/oauth2/authorize/request?${toQueryString(params)}`, { signal });
}

export const authorizationRequestQueryOptions = (params: AuthorizationParams) =>
  queryOptions({
    queryKey: authorizeKeys.request(toQueryString(params)),
    queryFn: ({ signal }) => getAuthorizationRequest(params, signal),
    // The request does not change while the page is open; a refetch on focus would only flash the form.
    staleTime: Infinity,
    refetchOnWindowFocus: false,
  });

export function useAuthorizationRequest(params: AuthorizationParams) {
  return useQuery(authorizationRequestQueryOptions(params));
}
