import { infiniteQueryOptions, useInfiniteQuery } from '@tanstack/react-query';
import type { LedgerPage, UsageLedgerQuery } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { queryString } from '../../../lib/query-string';
import { billingKeys } from './billing-keys';

const PAGE_SIZE = 20;

/** Every credit and debit, newest first; `cursor` is the previous page's nextCursor. */
export function listLedger(cursor: string | null, signal?: AbortSignal): Promise<LedgerPage> {
  const query = queryString<UsageLedgerQuery>({ limit: PAGE_SIZE, cursor: cursor || undefined });
  return http.get<LedgerPage>(`/api/v1/usage/me/ledger${query}`, { signal });
}

export const ledgerQueryOptions = () =>
  infiniteQueryOptions({
    queryKey: billingKeys.ledger(),
    queryFn: ({ pageParam, signal }) => listLedger(pageParam, signal),
    initialPageParam: null as string | null,
    getNextPageParam: (lastPage) => lastPage.nextCursor,
  });

export function useLedger() {
  return useInfiniteQuery(ledgerQueryOptions());
}
