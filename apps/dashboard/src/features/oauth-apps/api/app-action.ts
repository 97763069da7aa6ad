import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { OAuthClientResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { oauthAppKeys } from './oauth-app-keys';

/**
 * What an owner does to an app with one POST: deactivate (soft delete; its tokens stop working), reactivate
 * (they work again), rotate-secret (the answer carries the new secret, once; the old one stops working).
 */
export type OAuthAppAction = 'deactivate' | 'reactivate' | 'rotate-secret';

export function postOAuthAppAction(id: number, action: OAuthAppAction): Promise<OAuthClientResponse> {
  return http.post<OAuthClientResponse>(`/api/v1/oauth2/clients/${encodeURIComponent(String(id))}/${action}`);
}

export function useOAuthAppAction(action: OAuthAppAction) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (id: number) => postOAuthAppAction(id, action),
    // Also after a failure: a 404 means the list on screen is out of date.
    onSettled: () => queryClient.invalidateQueries({ queryKey: oauthAppKeys.list() }),
  });
}
