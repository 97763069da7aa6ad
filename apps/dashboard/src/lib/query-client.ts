import { MutationCache, QueryCache, QueryClient } from '@tanstack/react-query';

import { isApiError } from './http';

export interface QueryClientHooks {
  /** Called when any query or mutation gets a 401: the session ended, so whoever owns auth decides what next. */
  onUnauthorized: () => void;
}

export function createQueryClient(hooks: QueryClientHooks): QueryClient {
  const handleError = (error: unknown) => {
    if (isApiError(error) && error.status === 401) hooks.onUnauthorized();
  };
  return new QueryClient({
    queryCache: new QueryCache({ onError: handleError }),
    mutationCache: new MutationCache({ onError: handleError }),
    defaultOptions: {
      queries: {
        staleTime: 30_000,
        // Client errors will not fix themselves; retry only network failures and 5xx, once.
        retry: (failureCount, error) =>
          failureCount < 1 && !(isApiError(error) && error.status >= 400 && error.status < 500),
      },
      mutations: { retry: false },
    },
  });
}
