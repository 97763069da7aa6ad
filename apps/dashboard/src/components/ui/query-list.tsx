import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';

import { Alert } from './alert';
import { Button } from './button';

interface QueryListProps<T> {
  query: UseQueryResult<T[]>;
  /** What the list holds, as in "Loading your keys…" and "Could not load your keys: …". */
  what: string;
  /** Shown when the list comes back empty. */
  empty: string;
  /** The items, once there is at least one. */
  children: (items: T[]) => ReactNode;
}

/** A fetched list's loading line, its error with a Try again button, its empty state, or else its items. */
export function QueryList<T>({ query, what, empty, children }: QueryListProps<T>) {
  if (query.isPending) {
    return (
      <p className="muted" role="status">
        {`Loading ${what}…`}
      </p>
    );
  }
  if (query.isError) {
    return (
      <div className="stack">
        <Alert>{`Could not load ${what}: ${query.error.message}`}</Alert>
        <div>
          <Button variant="secondary" busy={query.isFetching} onClick={() => void query.refetch()}>
            Try again
          </Button>
        </div>
      </div>
    );
  }
  if (query.data.length === 0) return <p className="muted">{empty}</p>;
  return children(query.data);
}
