import type { ReactNode } from 'react';
import type { UseQueryResult } from '@tanstack/react-query';

import { QueryView } from './query-view';

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
  return (
    <QueryView query={query} what={what}>
      {(items) => (items.length === 0 ? <p className="muted">{empty}</p> : children(items))}
    </QueryView>
  );
}
