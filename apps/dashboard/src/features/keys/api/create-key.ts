import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { ApiKeyCreatedResponse, KeyCreateRequest } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { keyKeys } from './key-keys';

/** The answer carries the full key: the only time the server ever shows it. */
export function createKey(body: KeyCreateRequest): Promise<ApiKeyCreatedResponse> {
  return http.post<ApiKeyCreatedResponse>('/api/v1/keys', body);
}

/**
 * The full key must not outlive the component that shows it, so nothing here writes it to the query cache: the
 * list is refetched instead (it only ever holds the masked token). `gcTime: 0` drops the finished mutation, and
 * with it the key, from the mutation cache as soon as the caller resets it or unmounts.
 */
export function useCreateKey() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: createKey,
    gcTime: 0,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: keyKeys.all }),
  });
}
