import { queryOptions, useQuery } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import type { UserResponse } from '@switchyard/shared-dto';

import { http, isApiError } from '../../../lib/http';
import { authKeys } from './auth-keys';

/** The signed-in user, or null when signed out (401 is an answer here, not a failure). */
export async function getMe(signal?: AbortSignal): Promise<UserResponse | null> {
  try {
    return await http.get<UserResponse>('/api/v1/auth/me', { signal });
  } catch (error) {
    if (isApiError(error) && error.status === 401) return null;
    throw error;
  }
}

export const meQueryOptions = () =>
  queryOptions({
    queryKey: authKeys.me(),
    queryFn: ({ signal }) => getMe(signal),
    staleTime: 60_000,
  });

export function useMe() {
  return useQuery(meQueryOptions());
}

/** Records who is signed in after sign-in or registration answered with the user. */
export function setSignedInUser(queryClient: QueryClient, user: UserResponse): void {
  queryClient.setQueryData(meQueryOptions().queryKey, user);
}

/** Forgets everything cached for the previous session and marks the visitor as signed out. */
export function resetToSignedOut(queryClient: QueryClient): void {
  queryClient.clear();
  queryClient.setQueryData(meQueryOptions().queryKey, null);
}
