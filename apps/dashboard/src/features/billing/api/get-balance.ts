import { queryOptions, useQuery } from '@tanstack/react-query';
import type { UsageSummaryResponse } from '@switchyard/shared-dto';

import { http } from '../../../lib/http';
import { billingKeys } from './billing-keys';

/** The budget: credits (maxBudget), spend (totalCost) and what remains. */
export function getBalance(signal?: AbortSignal): Promise<UsageSummaryResponse> {
  return http.get<UsageSummaryResponse>('/api/v1/usage/me/summary', { signal });
}

export const balanceQueryOptions = () =>
  queryOptions({
    queryKey: billingKeys.summary(),
    queryFn: ({ signal }) => getBalance(signal),
  });

export function useBalance() {
  return useQuery(balanceQueryOptions());
}
