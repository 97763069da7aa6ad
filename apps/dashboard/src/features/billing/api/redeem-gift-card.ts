import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { GiftCardRedeemRequest, GiftCardRedeemResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { billingKeys } from './billing-keys';

export function redeemGiftCard(code: string): Promise<GiftCardRedeemResponse> {
  return http.post<GiftCardRedeemResponse>('/api/v1/giftcard/redeem', { code } satisfies GiftCardRedeemRequest);
}

export function useRedeemGiftCard() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: redeemGiftCard,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: billingKeys.all }),
  });
}
