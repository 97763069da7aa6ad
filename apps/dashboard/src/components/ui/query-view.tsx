import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';

import { LoadError } from './load-error';

interface QueryViewProps<T> {
  query: UseQueryResult<T>;
  /** What is loading, as in "Loading the catalog…" and "Could not load the catalog: …". */
  what: string;
  /** The content, once the data is there. */
  children: (data: T) => ReactNode;
}

/** A fetched thing's loading line, its error with a Try again button, or else its content. */
export function QueryView<T>({ query, what, children }: QueryViewProps<T>) {
  if (query.isPending) {
    return (
      <p className="muted" role="status">
        {`Loading ${what}…`}
      </p>
    );
  }
  if (query.isError) {
    return (
      <LoadError
        message={`Could not load ${what}: ${query.error.message}`}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  }
  return children(query.data);
}
