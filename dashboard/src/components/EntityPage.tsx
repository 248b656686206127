import type { ReactNode } from 'react';
import { ApiError } from '../api/client';
import { Link } from '../router';
import { ErrorMessage } from './ErrorMessage';

interface EntityPageProps {
  title: ReactNode;
  /** A line under the title: an id, an email, a status badge. */
  subtitle?: ReactNode;
  /** Where "back" goes: the list the entity belongs to. */
  back?: { to: string; label: string };
  /** Buttons at the top right (Refund, Cancel subscription…). */
  actions?: ReactNode;
  children: ReactNode;
}

/** Every page's layout: its heading with actions, then its sections. */
export function EntityPage({ title, subtitle, back, actions, children }: EntityPageProps) {
  return (
    <article className="page">
      {back && (
        <p className="page-back">
          <Link to={back.to}>← {back.label}</Link>
        </p>
      )}
      <header className="page-header">
        <div>
          <h1>{title}</h1>
          {subtitle && <div className="page-subtitle">{subtitle}</div>}
        </div>
        {actions && <div className="page-actions">{actions}</div>}
      </header>
      {children}
    </article>
  );
}

interface EntityPageFallbackProps {
  /** What the page shows (`Order`): its title until the entity is there. */
  title: string;
  back?: EntityPageProps['back'];
  /** The entity's query while it is not there: pending, or failed. */
  query: { error: Error | null; refetch: () => unknown };
}

/**
 * A detail page while its entity loads, or when it cannot: "No such order" for a 404, else the
 * error with Try again.
 *
 *   if (!order.isSuccess) return <EntityPageFallback title="Order" back={back} query={order} />;
 */
export function EntityPageFallback({ title, back, query }: EntityPageFallbackProps) {
  const noun = title.toLowerCase();
  const missing = query.error instanceof ApiError && query.error.status === 404;
  return (
    <EntityPage title={title} back={back}>
      {query.error ? (
        <ErrorMessage
          title={missing ? `No such ${noun}` : `Could not load the ${noun}`}
          error={query.error}
        >
          {!missing && (
            <button type="button" className="button" onClick={() => query.refetch()}>
              Try again
            </button>
          )}
        </ErrorMessage>
      ) : (
        <p className="muted">Loading…</p>
      )}
    </EntityPage>
  );
}

interface SectionProps {
  title: string;
  actions?: ReactNode;
  children: ReactNode;
}

/** A titled part of a page (Items, Payments, Workflow…), a landmark for screen readers. */
export function Section({ title, actions, children }: SectionProps) {
  const id = `section-${title.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return (
    <section className="section" aria-labelledby={id}>
      <header className="section-header">
        <h2 id={id}>{title}</h2>
        {actions}
      </header>
      {children}
    </section>
  );
}

/** Label/value pairs (an order's amounts, a subscription's period). */
export function Details({ items }: { items: [label: string, value: ReactNode][] }) {
  return (
    <dl className="details">
      {items.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
