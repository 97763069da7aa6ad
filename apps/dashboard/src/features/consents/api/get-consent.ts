import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ConsentResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { consentKeys } from './consent-keys';

/** One app the signed-in user authorized, with its redirect URIs (an app's popup checks its origin with them). */
export function getConsent(clientId: string, signal?: AbortSignal): Promise<ConsentResponse> {
  return http.get<ConsentResponse>(`/api/v1/oauth2/consents/${encodeURIComponent(clientId)}`, { signal });
}

export const consentQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: consentKeys.detail(clientId),
    queryFn: ({ signal }) => getConsent(clientId, signal),
  });

export function useConsent(clientId: string) {
  return useQuery(consentQueryOptions(clientId));
}
