import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SpaceHandleResponse, SpaceHandleSetRequest } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { spaceKeys } from './space-keys';

export function setHandle(handle: string): Promise<SpaceHandleResponse> {
  return http.put<SpaceHandleResponse>('/api/v1/spaces/handle', { handle } satisfies SpaceHandleSetRequest);
}

/** `onSaved` lets the page refresh what else shows the handle (the signed-in user). */
export function useSetHandle(options: { onSaved?: (saved: SpaceHandleResponse) => Promise<unknown> | void } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: setHandle,
    onSuccess: async (saved) => {
      await options.onSaved?.(saved);
      // Every app's URL carries the handle.
      await queryClient.invalidateQueries({ queryKey: spaceKeys.all });
    },
  });
}
