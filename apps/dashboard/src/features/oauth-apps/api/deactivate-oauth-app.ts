import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { OAuthClientResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { oauthAppKeys } from './oauth-app-keys';

/** Soft delete: the app stays listed with isActive false, and its tokens stop working. */
export function deactivateOAuthApp(id: number): Promise<OAuthClientResponse> {
  return http.post<OAuthClientResponse>(`/api/v1/oauth2/clients/${encodeURIComponent(String(id))}/deactivate`);
}

export function useDeactivateOAuthApp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deactivateOAuthApp,
    // Also after a failure: a 404 means the list on screen is out of date.
    onSettled: () => queryClient.invalidateQueries({ queryKey: oauthAppKeys.list() }),
  });
}
