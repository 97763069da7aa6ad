import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { OAuthClientCreateRequest, OAuthClientResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { oauthAppKeys } from './oauth-app-keys';

/** The answer carries `clientSecret` when one was generated: the only time the server ever shows it. */
export function createOAuthApp(body: OAuthClientCreateRequest): Promise<OAuthClientResponse> {
  return http.post<OAuthClientResponse>('/api/v1/oauth2/clients', body);
}

/**
 * As with API keys, the secret must not outlive the panel that shows it: nothing here writes the answer to the
 * query cache (the list is refetched, and never holds secrets), and `gcTime: 0` drops the finished mutation.
 */
export function useCreateOAuthApp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createOAuthApp,
    gcTime: 0,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: oauthAppKeys.list() }),
  });
}
