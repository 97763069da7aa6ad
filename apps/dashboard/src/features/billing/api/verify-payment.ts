import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { PaymentVerifyQuery, PaymentVerifyResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { queryString } from '../../../lib/query-string';
import { billingKeys } from './billing-keys';

/** After the checkout redirect: credits a paid session (once, however often this is called). */
export function verifyPayment(sessionId: string): Promise<PaymentVerifyResponse> {
  return http.post<PaymentVerifyResponse>(
    `/api/v1/payment/verify-and-capture${queryString<PaymentVerifyQuery>({ session_id: sessionId })}`,
  );
}

export function useVerifyPayment() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: verifyPayment,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: billingKeys.all }),
  });
}
