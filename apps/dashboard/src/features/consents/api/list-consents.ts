import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ConsentResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { consentKeys } from './consent-keys';

/** The apps the signed-in user authorized, with their caps and what they spent this month. */
export function listConsents(signal?: AbortSignal): Promise<ConsentResponse[]> {
  return http.get<ConsentResponse[]>('/api/v1/oauth2/consents', { signal });
}

export const consentsQueryOptions = () =>
  queryOptions({
    queryKey: consentKeys.list(),
    queryFn: ({ signal }) => listConsents(signal),
  });

export function useConsents() {
  return useQuery(consentsQueryOptions());
}
