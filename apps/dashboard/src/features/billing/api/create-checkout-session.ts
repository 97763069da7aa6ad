import { useMutation } from '@tanstack/react-query';
import type { CheckoutSessionResponse, PaymentCheckoutCreateRequest } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';

/** The request's body, and its Idempotency-Key header. */
export interface CheckoutRequest extends PaymentCheckoutCreateRequest {
  /** One per attempt: a double submit or a retry answers the same session instead of a second one. */
  idempotencyKey: string;
}

export function createCheckoutSession({ idempotencyKey, ...body }: CheckoutRequest): Promise<CheckoutSessionResponse> {
  return http.post<CheckoutSessionResponse>('/api/v1/payment/create-checkout-session', body, {
    headers: { 'idempotency-key': idempotencyKey },
  });
}

export function useCreateCheckoutSession() {
  return useMutation({ mutationFn: createCheckoutSession });
}
