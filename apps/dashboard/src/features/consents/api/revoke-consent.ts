import { useMutation, useQueryClient } from '@tanstack/react-query';

import { http } from '../../../lib/http';
import { consentKeys } from './consent-keys';

/** Deletes the consent and every token the app holds for this user; they stop working at once. */
export function revokeConsent(clientId: string): Promise<{ clientId: string }> {
  return http.delete<{ clientId: string }>(`/api/v1/oauth2/consents/${encodeURIComponent(clientId)}`);
}

/**
 * `onRevoked` runs before the list is refetched: the refetch unmounts the component that asked, and with it
 * any callback passed to `mutate`.
 */
export function useRevokeConsent(options: { onRevoked?: (clientId: string) => void } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeConsent,
    onSuccess: (_data, clientId) => options.onRevoked?.(clientId),
    // Also after a failure: a 404 means the list on screen is out of date.
    onSettled: () => queryClient.invalidateQueries({ queryKey: consentKeys.all }),
  });
}
