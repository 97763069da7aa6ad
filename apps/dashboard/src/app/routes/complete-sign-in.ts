import type { QueryClient } from '@tanstack/react-query';
import type { UserResponse } from '@switchyard/shared-dto';

import { setSignedInUser } from '../../features/auth/api/get-me';
import { isServerPath, navigate } from '../../lib/router';

/**
 * After sign-in or registration: continue to `next` (already checked by safeNextPath).
 * Server paths such as /oauth2/authorize need a full page load that carries the new session cookie.
 */
export function completeSignIn(queryClient: QueryClient, user: UserResponse, next: string): void {
  if (isServerPath(next)) {
    window.location.assign(next);
    return;
  }
  // Same tick: the first render after this already sees both the user and the new path.
  setSignedInUser(queryClient, user);
  navigate(next, { replace: true });
}

/** Keeps ?next when moving between the sign-in and registration pages. */
export function withNext(path: string, next: string): string {
  return next === '/' ? path : `${path}?next=${encodeURIComponent(next)}`;
}
