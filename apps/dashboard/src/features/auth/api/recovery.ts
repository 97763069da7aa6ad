import { useMutation } from '@tanstack/react-query';
import type {
  EmailVerifyRequest,
  PasswordResetConfirmRequest,
  PasswordResetRequest,
  SignedOutResponse,
} from '@switchyard/shared-dto';

import { http } from '../../../lib/http';

export function requestPasswordReset(body: PasswordResetRequest): Promise<null> {
  return http.post<null>('/api/v1/auth/password-reset', body);
}

export function confirmPasswordReset(body: PasswordResetConfirmRequest): Promise<SignedOutResponse> {
  return http.post<SignedOutResponse>('/api/v1/auth/password-reset/confirm', body);
}

export function verifyEmail(body: EmailVerifyRequest): Promise<{ email: string }> {
  return http.post<{ email: string }>('/api/v1/auth/verify-email', body);
}

export function useRequestPasswordReset() {
  return useMutation({ mutationFn: requestPasswordReset });
}

export function useConfirmPasswordReset() {
  // gcTime 0: the new password is the mutation's variable; nothing keeps it once it is done.
  return useMutation({ mutationFn: confirmPasswordReset, gcTime: 0 });
}

export function useVerifyEmail() {
  return useMutation({ mutationFn: verifyEmail });
}

/** The token a mail link carries in its fragment (`#token=…`), which never reaches a server or a log. */
export function tokenFromFragment(hash: string): string {
  return new URLSearchParams(hash.replace(/^#/, '')).get('token') ?? '';
}
