import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { OAuthClientResponse, OAuthClientUpdateRequest } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { oauthAppKeys } from './oauth-app-keys';

/** Changes an app's name, redirect URIs, scopes or token lifetimes; fields left out keep their value. */
export function updateOAuthApp(id: number, body: OAuthClientUpdateRequest): Promise<OAuthClientResponse> {
  return http.put<OAuthClientResponse>(`/api/v1/oauth2/clients/${encodeURIComponent(String(id))}`, body);
}

export function useUpdateOAuthApp(id: number) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: OAuthClientUpdateRequest) => updateOAuthApp(id, body),
    onSettled: () => queryClient.invalidateQueries({ queryKey: oauthAppKeys.list() }),
  });
}
