import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiKeyResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { keyKeys } from './key-keys';

/** Revokes at once; answers with the key, now 'Revoked'. Revoking twice is harmless. */
export function revokeKey(id: string): Promise<ApiKeyResponse> {
  return http.delete<ApiKeyResponse>(`/api/v1/keys/${encodeURIComponent(id)}`);
}

export function useRevokeKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: revokeKey,
    // Also after a failure: a 404 means the list on screen is out of date. Returning the promise keeps the
    // mutation pending until the list shows the new status.
    onSettled: () => queryClient.invalidateQueries({ queryKey: keyKeys.all }),
  });
}
