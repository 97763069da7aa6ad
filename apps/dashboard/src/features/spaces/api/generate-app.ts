import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { SpaceAppResponse, SpaceGenerateRequest } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { spaceKeys } from './space-keys';

/** Answers at once with the app `generating`; the list then polls until a model has written it. */
export function generateSpaceApp(body: SpaceGenerateRequest): Promise<SpaceAppResponse> {
  return http.post<SpaceAppResponse>('/api/v1/spaces/generate', body);
}

export function useGenerateSpaceApp() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: generateSpaceApp,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: spaceKeys.apps() }),
  });
}
