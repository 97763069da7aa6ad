import { useMutation } from '@tanstack/react-query';
import type { CheckoutSessionResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';

export interface CheckoutRequest {
  amount: number;
  /** One per attempt: a double submit or a retry answers the same session instead of a second one. */
  idempotencyKey: string;
}

export function createCheckoutSession({ amount, idempotencyKey }: CheckoutRequest): Promise<CheckoutSessionResponse> {
  return http.post<CheckoutSessionResponse>('/api/v1/payment/create-checkout-session', { amount }, { headers: { 'idempotency-key': idempotencyKey } });
}

export function useCreateCheckoutSession() {
  return useMutation({ mutationFn: createCheckoutSession });
}
