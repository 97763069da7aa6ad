import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiKeyResponse, KeyLimitsUpdateRequest, KeyUpdateRequest } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { keyKeys } from './key-keys';

export function renameKey(id: string, body: KeyUpdateRequest): Promise<ApiKeyResponse> {
  return http.patch<ApiKeyResponse>(`/api/v1/keys/${encodeURIComponent(id)}`, body);
}

export function setKeyLimits(id: string, body: KeyLimitsUpdateRequest): Promise<ApiKeyResponse> {
  return http.put<ApiKeyResponse>(`/api/v1/keys/${encodeURIComponent(id)}/limits`, body);
}

export interface KeyUpdate {
  id: string;
  /** Sent only when it changed. */
  name?: string;
  limits: KeyLimitsUpdateRequest;
}

/** Saves the edit form: the new name (if changed), then the limits. */
export function useUpdateKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async ({ id, name, limits }: KeyUpdate) => {
      if (name !== undefined) await renameKey(id, { name });
      return setKeyLimits(id, limits);
    },
    onSettled: () => queryClient.invalidateQueries({ queryKey: keyKeys.all }),
  });
}
