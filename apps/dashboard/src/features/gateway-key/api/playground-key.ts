import { useMutation } from '@tanstack/react-query';
import type { ApiKeyCreatedResponse, ApiKeyResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';

export const PLAYGROUND_KEY_NAME = 'Playground (dashboard)';

/** A key for the dashboard's own gateway calls; like any key it is listed, capped and revoked on API keys. */
export function createPlaygroundKey(): Promise<ApiKeyCreatedResponse> {
  return http.post<ApiKeyCreatedResponse>('/api/v1/keys', { name: PLAYGROUND_KEY_NAME });
}

export function revokePlaygroundKey(id: string): Promise<ApiKeyResponse> {
  return http.delete<ApiKeyResponse>(`/api/v1/keys/${encodeURIComponent(id)}`);
}

/** gcTime 0: the answer holds the full key, so the mutation cache forgets it as soon as it is read. */
export function useCreatePlaygroundKey() {
  return useMutation({ mutationFn: createPlaygroundKey, gcTime: 0 });
}

export function useRevokePlaygroundKey() {
  return useMutation({ mutationFn: revokePlaygroundKey });
}
