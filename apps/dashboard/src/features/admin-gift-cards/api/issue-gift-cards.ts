import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { GiftCardIssueRequest, GiftCardIssueResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { giftCardKeys } from './list-gift-cards';

/** The answer carries the codes: the only time the server ever shows them. */
export function issueGiftCards(body: GiftCardIssueRequest): Promise<GiftCardIssueResponse> {
  return http.post<GiftCardIssueResponse>('/api/v1/admin/giftcards', body);
}

/** `gcTime: 0`: the codes leave the mutation cache as soon as the form resets it or unmounts. */
export function useIssueGiftCards() {
  const queryClient = useQueryClient();
  // The issued cards' list shows the new cards.
  return useMutation({
    mutationFn: issueGiftCards,
    gcTime: 0,
    onSuccess: () => queryClient.invalidateQueries({ queryKey: giftCardKeys.all }),
  });
}
