import { useMutation } from '@tanstack/react-query';
import type {
  AuthorizationDecisionRequest,
  AuthorizationDecisionResponse,
  AuthorizationParams,
} from '@switchyard/shared-dto';

import { http } from '../../../lib/http';

/** The answer and the caps (`limits`: only with approve and scope api:access), and the request it answers. */
export interface AuthorizationDecision extends Pick<
  AuthorizationDecisionRequest,
  'approve' | 'limits' | 'markupPercent'
> {
  params: AuthorizationParams;
}

/**
 * The user's answer. The request's parameters go back unchanged so the server checks them again; the CSRF
 * header (lib/http) is what proves the answer came from this page. The server answers where the browser goes:
 * the app's redirect URI with a code, or with error=access_denied.
 */
export function decideAuthorization({
  params,
  approve,
  limits,
  markupPercent,
}: AuthorizationDecision): Promise<AuthorizationDecisionResponse> {
  // The markup the page showed is the one the user agrees to (docs/earnings.md).
  const body: AuthorizationDecisionRequest = {
    ...params,
    approve,
    ...(approve && limits ? { limits } : {}),
    ...(approve && markupPercent !== undefined ? { markupPercent } : {}),
  };
  return http.post<AuthorizationDecisionResponse>('/api/v1/oauth2/authorize/decision', body);
}

// The answer carries a one-time code; it is used at once and kept nowhere.
export function useDecideAuthorization() {
  return useMutation({ mutationFn: decideAuthorization, gcTime: 0 });
}
