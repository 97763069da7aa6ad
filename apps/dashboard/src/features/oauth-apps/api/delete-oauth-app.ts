import { useMutation, useQueryClient } from '@tanstack/react-query';

import { http } from '../../../lib/http';
import { oauthAppKeys } from './oauth-app-keys';

/** Deletes the app and every authorization its users gave it. */
export function deleteOAuthApp(id: number): Promise<unknown> {
  return http.delete<unknown>(`/api/v1/oauth2/clients/${encodeURIComponent(String(id))}`);
}

/**
 * `onDeleted` runs before the list is refetched: the refetch unmounts the component that asked, and with it
 * any callback passed to `mutate`.
 */
export function useDeleteOAuthApp(options: { onDeleted?: (id: number) => void } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteOAuthApp,
    onSuccess: (_data, id) => options.onDeleted?.(id),
    onSettled: () => queryClient.invalidateQueries({ queryKey: oauthAppKeys.all }),
  });
}
