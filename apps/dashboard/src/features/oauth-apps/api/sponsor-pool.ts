import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { SponsorPoolResponse, SponsorPoolUpdateRequest, SponsorWithdrawResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { oauthAppKeys } from './oauth-app-keys';

const path = (clientId: string) => `/api/v1/oauth2/clients/${encodeURIComponent(clientId)}/sponsor`;

/** The app's sponsor pool (docs/earnings.md, "Sponsored credits"): status 'none' before it was funded. */
export function getSponsorPool(clientId: string, signal?: AbortSignal): Promise<SponsorPoolResponse> {
  return http.get<SponsorPoolResponse>(path(clientId), { signal });
}

export const sponsorPoolQueryOptions = (clientId: string) =>
  queryOptions({
    queryKey: oauthAppKeys.sponsor(clientId),
    queryFn: ({ signal }) => getSponsorPool(clientId, signal),
  });

export function useSponsorPool(clientId: string) {
  return useQuery(sponsorPoolQueryOptions(clientId));
}

/** Funds the pool from the maker's balance and sets its allowance per new user and its end. */
export function useUpdateSponsorPool(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: SponsorPoolUpdateRequest) => http.put<SponsorPoolResponse>(path(clientId), body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: oauthAppKeys.sponsor(clientId) }),
  });
}

/** Takes what is left back into the maker's balance; calls stop drawing on the pool. */
export function useWithdrawSponsorPool(clientId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => http.post<SponsorWithdrawResponse>(`${path(clientId)}/withdraw`),
    onSettled: () => queryClient.invalidateQueries({ queryKey: oauthAppKeys.sponsor(clientId) }),
  });
}
