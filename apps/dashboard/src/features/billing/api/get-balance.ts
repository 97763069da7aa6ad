import { queryOptions, useQuery } from '@tanstack/react-query';
import type { UsageSummaryResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { billingKeys } from './billing-keys';

/** Clients are asked to poll the balance every 5 to 10 minutes (docs/decisions.md#rules-for-clients); never more often than this. */
export const BALANCE_POLL_MS = 5 * 60_000;

/** The budget: credits (maxBudget), spend (totalCost) and what remains. */
export function getBalance(signal?: AbortSignal): Promise<UsageSummaryResponse> {
  return http.get<UsageSummaryResponse>('/api/v1/usage/me/summary', { signal });
}

export const balanceQueryOptions = () =>
  queryOptions({
    queryKey: billingKeys.summary(),
    queryFn: ({ signal }) => getBalance(signal),
  });

/**
 * With `poll`, the balance refreshes every BALANCE_POLL_MS while shown and is not refetched sooner on focus or
 * remount (staleTime), so it is asked at most every 5 minutes; a top-up or a call made here invalidates it at once.
 */
export function useBalance({ poll = false }: { poll?: boolean } = {}) {
  return useQuery({
    ...balanceQueryOptions(),
    ...(poll ? { refetchInterval: BALANCE_POLL_MS, staleTime: BALANCE_POLL_MS } : {}),
  });
}
