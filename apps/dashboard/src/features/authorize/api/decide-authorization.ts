import { useMutation } from '@tanstack/react-query';
import type { AuthorizationDecisionResponse, ConsentLimits } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import type { AuthorizationParams } from './authorization-params';

export interface AuthorizationDecision {
  params: AuthorizationParams;
  approve: boolean;
  /** Caps on what the app may spend; only with approve and scope api:access. */
  limits?: Partial<ConsentLimits>;
}

/**
 * The user's answer. The request's parameters go back unchanged so the server checks them again; the CSRF
 * header (lib/http) is what proves the answer came from this page. The server answers where the browser goes:
 * the app's redirect URI with a code, or with error=access_denied.
 */
export function decideAuthorization({ params, approve, limits }: AuthorizationDecision): Promise<AuthorizationDecisionResponse> {
  return http.post<AuthorizationDecisionResponse>('/api/v1/oauth2/authorize/decision', {
    ...params,
    approve,
    ...(approve && limits ? { limits } : {}),
  });
}

// The answer carries a one-time code; it is used at once and kept nowhere.
export function useDecideAuthorization() {
  return useMutation({ mutationFn: decideAuthorization, gcTime: 0 });
}
