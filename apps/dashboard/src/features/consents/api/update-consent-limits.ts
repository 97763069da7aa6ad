import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ConsentLimitsRequest, ConsentResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { consentKeys } from './consent-keys';

export interface ConsentLimitsUpdate {
  clientId: string;
  /** Currency units; null removes a cap, an omitted one keeps its value. */
  limits: ConsentLimitsRequest;
}

export function updateConsentLimits({ clientId, limits }: ConsentLimitsUpdate): Promise<ConsentResponse> {
  return http.put<ConsentResponse>(`/api/v1/oauth2/consents/${encodeURIComponent(clientId)}/limits`, limits);
}

export function useUpdateConsentLimits() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: updateConsentLimits,
    onSuccess: (updated) =>
      queryClient.setQueryData<ConsentResponse[]>(consentKeys.list(), (list) =>
        list?.map((consent) => (consent.clientId === updated.clientId ? updated : consent)),
      ),
    onSettled: () => queryClient.invalidateQueries({ queryKey: consentKeys.all }),
  });
}
