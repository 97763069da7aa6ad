import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { LedgerPage, UsageLedgerQuery } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { queryString } from '../../../lib/query-string';
import { billingKeys } from './billing-keys';

const PAGE_SIZE = 20;

/** The credits (payments, gift cards, sign-up, adjustments), newest first; `cursor` is the previous nextCursor. */
export function listCredits(cursor: string | null, signal?: AbortSignal): Promise<LedgerPage> {
  const query = queryString<UsageLedgerQuery>({ limit: PAGE_SIZE, cursor: cursor || undefined, side: 'credit' });
  return http.get<LedgerPage>(`/api/v1/usage/me/ledger${query}`, { signal });
}

export const creditsQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: billingKeys.credits(),
    queryFn: ({ pageParam, signal }) => listCredits(pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (lastPage) => lastPage.nextCursor,
  });

export function useCredits() {
  return useInfiniteQuery(creditsQueryOptions());
}
