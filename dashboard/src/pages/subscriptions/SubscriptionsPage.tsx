import { createColumnHelper } from '@tanstack/react-table';
import { subscriptionStatuses } from '../../../../domain/subscriptions.ts';
import type { TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { ExportCsvButton } from '../../components/ExportCsvButton';
import { Money } from '../../components/Money';
import { ResourceListPage } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link, useQueryState } from '../../router';
import { type Subscription, statusLabels, subscriptionsApi, subscriptionsKey } from './api';

const column = createColumnHelper<Subscription>();

// Column ids are the API's sorting names (`sorting=-current_period_end`).
const columns = [
  column.accessor((subscription) => subscription.customer.email, {
    id: 'customer',
    header: 'Customer',
    enableSorting: true,
    cell: (cell) => <Link to={`/subscriptions/${cell.row.original.id}`}>{cell.getValue()}</Link>,
  }),
  column.accessor((subscription) => subscription.product.name, {
    id: 'product',
    header: 'Product',
    enableSorting: true,
  }),
  column.accessor('status', {
    header: 'Status',
    enableSorting: true,
    cell: (cell) => (
      <>
        <StatusBadge status={cell.getValue()} />
        {cell.row.original.cancel_at_period_end && (
          <StatusBadge tone="warning">ends at period end</StatusBadge>
        )}
        {cell.row.original.test_clock_id && <StatusBadge tone="info">test clock</StatusBadge>}
      </>
    ),
  }),
  column.accessor('amount', {
    header: 'Amount',
    enableSorting: true,
    cell: (cell) => (
      <>
        <Money amount={cell.getValue()} currency={cell.row.original.currency} />
        <span className="muted"> / {cell.row.original.recurring_interval}</span>
      </>
    ),
  }),
  column.accessor('current_period_end', {
    header: 'Period ends',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.accessor('started_at', {
    header: 'Started',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} format="date" />,
  }),
];

const filters: TableFilter[] = [
  {
    name: 'status',
    label: 'Status',
    type: 'select',
    options: subscriptionStatuses.map((status) => ({ value: status, label: statusLabels[status] })),
  },
  {
    name: 'active',
    label: 'Live',
    type: 'select',
    options: [
      { value: 'true', label: 'Active or trialing' },
      { value: 'false', label: 'Not active' },
    ],
  },
];

export default function SubscriptionsPage() {
  const [params] = useQueryState();
  const filtered = params.has('status') || params.has('active');
  return (
    <ResourceListPage
      title="Subscriptions"
      actions={
        <>
          <ExportCsvButton path="/v1/subscriptions/export" filename="subscriptions.csv" />
          <Link to="/failed-renewals" className="button">
            Failed renewals
          </Link>
        </>
      }
      source={{ queryKey: subscriptionsKey, fetchPage: subscriptionsApi.list }}
      columns={columns}
      filters={filters}
      defaultSorting="-started_at"
      empty={filtered ? 'No subscriptions match these filters.' : 'No subscriptions yet.'}
    />
  );
}
