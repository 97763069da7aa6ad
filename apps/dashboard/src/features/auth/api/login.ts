import { useMutation } from '@tanstack/react-query';
import type { AuthLoginRequest, AuthSessionResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';

export function login(body: AuthLoginRequest): Promise<AuthSessionResponse> {
  return http.post<AuthSessionResponse>('/api/v1/auth/login', body);
}

// The session cookie is what the dashboard uses; the bearer token in the answer is deliberately not kept.
// What happens next (cache, navigation) belongs to the caller, because a full page load may follow.
export function useLogin() {
  return useMutation({ mutationFn: login });
}
