import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { PaymentVerifyResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { billingKeys } from './billing-keys';

/** After the checkout redirect: credits a paid session (once, however often this is called). */
export function verifyPayment(sessionId: string): Promise<PaymentVerifyResponse> {
  return http.post<PaymentVerifyResponse>(`/api/v1/payment/verify-and-capture?session_id=${encodeURIComponent(sessionId)}`);
}

export function useVerifyPayment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: verifyPayment,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: billingKeys.all }),
  });
}
