import { useMutation } from '@tanstack/react-query';
import type { AuthRegisterRequest, AuthSessionResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';

export function register(body: AuthRegisterRequest): Promise<AuthSessionResponse> {
  return http.post<AuthSessionResponse>('/api/v1/auth/register', body);
}

export function useRegister() {
  return useMutation({ mutationFn: register });
}
