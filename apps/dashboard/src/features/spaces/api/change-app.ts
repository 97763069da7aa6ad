import { useMutation, useQueryClient } from '@tanstack/react-query';
import type {
  SpaceAppResponse,
  SpaceEditRequest,
  SpacePublishRequest,
  SpaceRenameRequest,
} from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { spaceKeys } from './space-keys';

const path = (slug: string, action = '') => `/api/v1/spaces/${encodeURIComponent(slug)}${action}`;

/** Has the model revise the current page; the app is `generating` until the revision is in. */
export function editSpaceApp({ slug, ...body }: { slug: string } & SpaceEditRequest): Promise<SpaceAppResponse> {
  return http.put<SpaceAppResponse>(path(slug, '/edit'), body);
}

export function publishSpaceApp({ slug, ...body }: { slug: string } & SpacePublishRequest): Promise<SpaceAppResponse> {
  return http.put<SpaceAppResponse>(path(slug, '/publish'), body);
}

/** Names the app; its address stays and later pages keep the name. */
export function renameSpaceApp({ slug, ...body }: { slug: string } & SpaceRenameRequest): Promise<SpaceAppResponse> {
  return http.put<SpaceAppResponse>(path(slug, '/title'), body);
}

/** Serves the page the last edit revised again. */
export function undoSpaceApp(slug: string): Promise<SpaceAppResponse> {
  return http.post<SpaceAppResponse>(path(slug, '/undo'));
}

export function deleteSpaceApp(slug: string): Promise<unknown> {
  return http.delete<unknown>(path(slug));
}

/**
 * The owner's changes to one app. Each refreshes the list and the app (also after a failure: a 404 or 409 means
 * what is on screen is out of date).
 */
function useAppMutation<V, R>(fn: (variables: V) => Promise<R>) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: fn,
    onSettled: () => queryClient.invalidateQueries({ queryKey: spaceKeys.apps() }),
  });
}

export const useEditSpaceApp = () => useAppMutation(editSpaceApp);
export const usePublishSpaceApp = () => useAppMutation(publishSpaceApp);
export const useUndoSpaceApp = () => useAppMutation(undoSpaceApp);
export const useRenameSpaceApp = () => useAppMutation(renameSpaceApp);

/** `onDeleted` runs before the list is refetched, which unmounts the card that asked. */
export function useDeleteSpaceApp(options: { onDeleted?: (slug: string) => void } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: deleteSpaceApp,
    onSuccess: (_data, slug) => options.onDeleted?.(slug),
    onSettled: () => queryClient.invalidateQueries({ queryKey: spaceKeys.apps() }),
  });
}
