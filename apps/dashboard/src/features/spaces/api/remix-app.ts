import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SpaceAppResponse, SpaceRemixRequest } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { spaceKeys } from './space-keys';

/** Copies a published app into the caller's space; its history starts with the original's page. */
export function remixSpaceApp(body: SpaceRemixRequest): Promise<SpaceAppResponse> {
  return http.post<SpaceAppResponse>('/api/v1/spaces/remix', body);
}

export function useRemixSpaceApp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: remixSpaceApp,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: spaceKeys.apps() }),
  });
}
