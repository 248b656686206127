import { useQuery } from '@tanstack/react-query';
import { createColumnHelper } from '@tanstack/react-table';
import { useState } from 'react';
import type { TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Section } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import { Money } from '../../components/Money';
import { ResourceListPage, ResourceTable } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link, useQueryState } from '../../router';
import { statusLabels } from '../subscriptions/api';
import {
  type FailedRenewal,
  type FinanceAction,
  failedRenewalsApi,
  failedRenewalsKey,
} from './api';
import { DunningDialog } from './DunningDialog';
import { recoveredLabel } from './recovery';
import './finance.css';

const column = createColumnHelper<FailedRenewal>();

const filters: TableFilter[] = [
  {
    name: 'status',
    label: 'Status',
    type: 'select',
    options: (['past_due', 'unpaid'] as const).map((status) => ({
      value: status,
      label: statusLabels[status],
    })),
  },
];

type Ask = (action: FinanceAction, renewal: FailedRenewal) => void;

// Column ids are the API's sorting names (`sorting=-past_due_at`).
const columnsWith = (ask: Ask) => [
  column.accessor('customer_email', {
    id: 'customer',
    header: 'Customer',
    enableSorting: true,
    cell: (cell) => (
      <>
        <Link to={`/subscriptions/${cell.row.original.id}`}>{cell.getValue()}</Link>
        <div className="muted">{cell.row.original.product_name}</div>
      </>
    ),
  }),
  column.accessor('status', {
    header: 'Status',
    cell: (cell) => {
      const recovered = recoveredLabel(cell.row.original.recovered_by);
      return (
        <>
          <StatusBadge status={cell.getValue()} />
          {recovered && <StatusBadge tone="ok">{recovered}</StatusBadge>}
          {cell.row.original.test_clock_id && <StatusBadge tone="info">test clock</StatusBadge>}
        </>
      );
    },
  }),
  column.accessor('amount_at_risk', {
    header: 'At risk',
    cell: (cell) => {
      const amount = cell.getValue();
      return amount === null ? (
        <span className="muted">—</span>
      ) : (
        <Money amount={amount} currency={cell.row.original.currency} />
      );
    },
  }),
  column.accessor('dunning_attempts', { header: 'Attempts', enableSorting: true }),
  column.accessor('last_payment_decline_reason', {
    header: 'Why it failed',
    cell: (cell) => {
      const { last_payment_error: error, last_payment_attempt_at: attemptedAt } = cell.row.original;
      const reason = cell.getValue() ?? error?.message;
      if (!reason) return <span className="muted">—</span>;
      return (
        <>
          <div>{reason}</div>
          <div className="muted">
            {error?.code && <code>{error.code}</code>}
            {attemptedAt && (
              <>
                {error?.code && ' · '}
                last tried <DateTime value={attemptedAt} />
              </>
            )}
          </div>
        </>
      );
    },
  }),
  column.accessor('past_due_at', {
    header: 'Past due since',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.accessor('next_payment_attempt_at', {
    header: 'Next retry',
    enableSorting: true,
    cell: (cell) =>
      cell.getValue() ? (
        <DateTime value={cell.getValue()} />
      ) : (
        <span className="muted">None scheduled</span>
      ),
  }),
  column.display({
    id: 'actions',
    header: 'Actions',
    cell: (cell) => {
      const renewal = cell.row.original;
      const label = `${renewal.customer_email}, ${renewal.product_name}`;
      return (
        <span className="row-actions">
          <button
            type="button"
            className="button"
            aria-label={`Retry now: ${label}`}
            onClick={() => ask('retry', renewal)}
          >
            Retry now
          </button>
          <button
            type="button"
            className="button"
            aria-label={`Send update-card link: ${label}`}
            onClick={() => ask('update_card_link', renewal)}
          >
            Send update-card link
          </button>
          <button
            type="button"
            className="button"
            aria-label={`Mark resolved: ${label}`}
            onClick={() => ask('resolve', renewal)}
          >
            Mark resolved
          </button>
          <button
            type="button"
            className="button button-danger"
            aria-label={`Cancel: ${label}`}
            onClick={() => ask('cancel', renewal)}
          >
            Cancel
          </button>
        </span>
      );
    },
  }),
];

/** How many renewals failed and what they would bring in, per currency, over every page. */
function Totals({ status }: { status: string | null }) {
  const totals = useQuery({
    queryKey: [...failedRenewalsKey, 'totals', status],
    queryFn: ({ signal }) =>
      failedRenewalsApi.list({ limit: 1, ...(status && { status }) }, signal),
    select: (list) => list.totals,
  });
  if (totals.isPending) return <p className="muted">Loading totals…</p>;
  if (totals.isError)
    return <ErrorMessage title="Could not load the totals" error={totals.error} />;
  if (totals.data.length === 0) return null;
  return (
    <dl className="summary" aria-label="Failed renewal totals">
      {totals.data.map((total) => (
        <div key={total.currency}>
          <dt>
            {total.count} failed {total.count === 1 ? 'renewal' : 'renewals'} in{' '}
            {total.currency.toUpperCase()}
          </dt>
          <dd>
            <Money amount={total.amount_at_risk} currency={total.currency} /> at risk
          </dd>
        </div>
      ))}
    </dl>
  );
}

const recoveredColumn = createColumnHelper<FailedRenewal>();

/** The renewals paid after failing: whose, what, who paid them and when. */
const recoveredColumns = [
  recoveredColumn.accessor('customer_email', {
    header: 'Customer',
    cell: (cell) => (
      <>
        <Link to={`/subscriptions/${cell.row.original.id}`}>{cell.getValue()}</Link>
        <div className="muted">{cell.row.original.product_name}</div>
      </>
    ),
  }),
  recoveredColumn.accessor('recovered_by', {
    header: 'Recovered',
    cell: (cell) => <StatusBadge tone="ok">{recoveredLabel(cell.getValue())}</StatusBadge>,
  }),
  recoveredColumn.accessor('amount', {
    header: 'Amount',
    cell: (cell) => <Money amount={cell.getValue()} currency={cell.row.original.currency} />,
  }),
  recoveredColumn.accessor('recovered_at', {
    header: 'When',
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
];

/**
 * Failed renewals that were paid after all, latest first: the customer with a new card from
 * the mailed link, finance, or a scheduled retry.
 */
function RecoveredRenewals() {
  return (
    <Section title="Recently recovered">
      <ResourceTable
        label="Recently recovered renewals"
        source={{
          queryKey: [...failedRenewalsKey, 'recovered'],
          fetchPage: failedRenewalsApi.recovered,
        }}
        columns={recoveredColumns}
        urlPrefix="recovered_"
        empty="No failed renewal has been recovered yet."
      />
    </Section>
  );
}

export default function FailedRenewalsPage() {
  const [params] = useQueryState();
  const status = params.get('status');
  const [target, setTarget] = useState<{ action: FinanceAction; renewal: FailedRenewal } | null>(
    null,
  );
  const [notice, setNotice] = useState('');
  const [columns] = useState(() =>
    columnsWith((action, renewal) => setTarget({ action, renewal })),
  );
  return (
    <ResourceListPage
      title="Failed renewals"
      subtitle="Past-due and unpaid subscriptions whose renewal payment failed."
      above={
        <>
          <Totals status={status} />
          <p role="status" className={notice ? 'banner' : undefined}>
            {notice}
          </p>
        </>
      }
      source={{ queryKey: failedRenewalsKey, fetchPage: failedRenewalsApi.list }}
      columns={columns}
      filters={filters}
      defaultSorting="past_due_at"
      empty={status ? 'No failed renewals with this status.' : 'No failed renewals: all paid.'}
      below={
        <>
          <RecoveredRenewals />
          <DunningDialog
            target={target}
            onDone={(renewal, outcome) => setNotice(`${renewal.customer_email}: ${outcome}`)}
            onClose={() => setTarget(null)}
          />
        </>
      }
    />
  );
}
