import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ModelListResponse } from '@switchyard/shared-dto';

import { credentialLabel, gatewayJson } from '../../../lib/gateway';
import type { GatewayCredential } from '../../../lib/gateway';
import { modelsQuery, NO_FILTERS } from '../lib/catalog';
import type { ModelFilters } from '../lib/catalog';

export const modelKeys = {
  all: ['models'] as const,
  // The masked key (or "session"), never the key itself: the cache must not hold the secret.
  list: (apiKey: GatewayCredential, filters: ModelFilters) =>
    [...modelKeys.all, credentialLabel(apiKey), filters] as const,
};

/** The live catalog (GET /v1/models), filtered by the gateway; detailed entries. */
export function listModels(
  apiKey: GatewayCredential,
  filters: ModelFilters,
  signal?: AbortSignal,
): Promise<ModelListResponse> {
  return gatewayJson<ModelListResponse>(`/models${modelsQuery(filters)}`, { apiKey, signal });
}

export const modelsQueryOptions = (apiKey: GatewayCredential, filters: ModelFilters = NO_FILTERS) =>
  queryOptions({
    queryKey: modelKeys.list(apiKey, filters),
    queryFn: ({ signal }) => listModels(apiKey, filters, signal),
    // The catalog changes when the operator edits it, not from one minute to the next.
    staleTime: 5 * 60_000,
    placeholderData: keepPreviousData,
  });

/** The catalog, on the session or with a pasted key. */
export function useModels(apiKey: GatewayCredential, filters: ModelFilters = NO_FILTERS) {
  return useQuery(modelsQueryOptions(apiKey, filters));
}
