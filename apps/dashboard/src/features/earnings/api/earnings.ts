import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type {
  EarningsConnectResponse,
  EarningsMoveResponse,
  EarningsPayoutResponse,
  EarningsPayoutsResponse,
  EarningsResponse,
} from '@switchyard/shared-dto';

import { http } from '../../../lib/http';

export const earningsKeys = { all: ['earnings'] as const };

/** Where the per-day table downloads as CSV (the session cookie goes with the link). */
export const EARNINGS_CSV_URL = '/api/v1/earnings/export.csv';

export function getEarnings(signal?: AbortSignal): Promise<EarningsResponse> {
  return http.get<EarningsResponse>('/api/v1/earnings', { signal });
}

export const earningsQueryOptions = () =>
  queryOptions({ queryKey: earningsKeys.all, queryFn: ({ signal }) => getEarnings(signal) });

export function useEarnings() {
  return useQuery(earningsQueryOptions());
}

/** Moves every available earning into the maker's budget; everything shown is read again (the balance too). */
export function useMoveEarnings() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => http.post<EarningsMoveResponse>('/api/v1/earnings/move', {}),
    onSettled: () => queryClient.invalidateQueries(),
  });
}

export const payoutsKeys = { all: ['earnings', 'payouts'] as const };

export const payoutsQueryOptions = () =>
  queryOptions({
    queryKey: payoutsKeys.all,
    queryFn: ({ signal }) => http.get<EarningsPayoutsResponse>('/api/v1/earnings/payouts', { signal }),
  });

export function usePayouts() {
  return useQuery(payoutsQueryOptions());
}

/** The hosted onboarding link of the maker's payout account (Stripe's, or the sandbox's way back here). */
export function useConnectPayouts() {
  return useMutation({ mutationFn: () => http.post<EarningsConnectResponse>('/api/v1/earnings/connect', {}) });
}

/** One payout of every available earning; everything shown is read again. */
export function usePayout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => http.post<EarningsPayoutResponse>('/api/v1/earnings/payouts', {}),
    onSettled: () => queryClient.invalidateQueries(),
  });
}
