import type { ReactNode } from 'react';
import type { InfiniteData, UseInfiniteQueryResult } from '@tanstack/react-query';

import { Alert } from './alert';
import { Button } from './button';
import { LoadError } from './load-error';

interface PagedListProps<T> {
  query: UseInfiniteQueryResult<InfiniteData<{ items: T[] }>>;
  /** What the list holds, as in "Loading the history…" and "Could not load the history: …". */
  what: string;
  /** Shown when the list comes back empty. */
  empty: ReactNode;
  /** The items of every page loaded so far, once there is at least one. */
  children: (items: T[]) => ReactNode;
}

/**
 * A cursor-paged list: its loading line, its error with a Try again button, its empty state, or else its items
 * with a Load more button while there are more pages.
 */
export function PagedList<T>({ query, what, empty, children }: PagedListProps<T>) {
  const items = query.data?.pages.flatMap((page) => page.items) ?? [];
  if (query.isPending) {
    return (
      <p className="muted" role="status">
        {`Loading ${what}…`}
      </p>
    );
  }
  if (query.isError && items.length === 0) {
    return (
      <LoadError
        message={`Could not load ${what}: ${query.error.message}`}
        retrying={query.isFetching}
        onRetry={() => void query.refetch()}
      />
    );
  }
  if (items.length === 0) return typeof empty === 'string' ? <p className="muted">{empty}</p> : empty;
  return (
    <>
      {children(items)}
      {query.isFetchNextPageError ? <Alert>Could not load more: {query.error?.message}</Alert> : null}
      {query.hasNextPage ? (
        <div>
          <Button variant="secondary" busy={query.isFetchingNextPage} onClick={() => void query.fetchNextPage()}>
            Load more
          </Button>
        </div>
      ) : null}
    </>
  );
}
