import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { AdminGiftCardPage, AdminGiftCardQuery, GiftCardStatus } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { queryString } from '../../../lib/query-string';

export const giftCardKeys = {
  all: ['admin-gift-cards'] as const,
  list: (status: GiftCardStatus | '') => [...giftCardKeys.all, status] as const,
};

/** Issued cards, newest first, 25 a page: status, who issued and who redeemed each. */
export const adminGiftCardsQuery = (status: GiftCardStatus | '') =>
  infiniteQueryOptions({
    queryKey: giftCardKeys.list(status),
    queryFn: ({ pageParam, signal }) =>
      http.get<AdminGiftCardPage>(
        `/api/v1/admin/giftcards${queryString<AdminGiftCardQuery>({ status: status || undefined, limit: 25, cursor: pageParam ?? undefined })}`,
        { signal },
      ),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.nextCursor,
  });

export function useAdminGiftCards(status: GiftCardStatus | '') {
  return useInfiniteQuery(adminGiftCardsQuery(status));
}
