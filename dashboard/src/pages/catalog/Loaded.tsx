import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ErrorMessage } from '../../components/ErrorMessage';

interface LoadedProps<Data> {
  query: UseQueryResult<Data>;
  /** What failed to load, for the error's title (`the discount`). */
  what: string;
  children: (data: Data) => ReactNode;
}

/** A detail page's body: loading, its error with a retry, or the loaded entity. */
export function Loaded<Data>({ query, what, children }: LoadedProps<Data>) {
  if (query.isPending) return <p className="muted">Loading…</p>;
  if (query.isError) {
    return (
      <ErrorMessage title={`Could not load ${what}`} error={query.error}>
        <button type="button" className="button" onClick={() => query.refetch()}>
          Try again
        </button>
      </ErrorMessage>
    );
  }
  return children(query.data);
}
