import { useMutation, useQueryClient } from '@tanstack/react-query';

import { http, isApiError } from '../../../lib/http';
import { resetToSignedOut } from './get-me';

export async function logout(): Promise<void> {
  try {
    await http.post<unknown>('/api/v1/auth/logout');
  } catch (error) {
    // A 401 means the session had already ended: that is the outcome we wanted.
    if (isApiError(error) && error.status === 401) return;
    throw error;
  }
}

/**
 * `onSignedOut` runs in the same tick as the cache reset, so no render sees the old user on the new route
 * (or the new route with the old user).
 */
export function useLogout(options: { onSignedOut?: () => void } = {}) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: logout,
    onSuccess: () => {
      resetToSignedOut(queryClient);
      options.onSignedOut?.();
    },
  });
}
