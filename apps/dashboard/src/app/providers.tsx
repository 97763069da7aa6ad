import { QueryClientProvider } from '@tanstack/react-query';
import type { QueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ReactNode } from 'react';

import { meQueryOptions, resetToSignedOut } from '../features/auth/api/get-me';
import { createQueryClient } from '../lib/query-client';

/**
 * The single place that reacts to a 401 anywhere: if someone was signed in, their session is gone, so the cache
 * is dropped and the visitor becomes signed out. The route guards then send them to the sign-in page with
 * ?next= pointing back here. (A wrong password on the sign-in form is also a 401, but nobody was signed in.)
 */
function makeClient(): QueryClient {
  const client: QueryClient = createQueryClient({
    onUnauthorized: () => {
      if (client.getQueryData(meQueryOptions().queryKey)) resetToSignedOut(client);
    },
  });
  return client;
}

export function AppProviders({ children }: { children: ReactNode }) {
  const [queryClient] = useState(makeClient);
  return <QueryClientProvider client={queryClient}>{children}</QueryClientProvider>;
}
