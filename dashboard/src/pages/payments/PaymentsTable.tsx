import { createColumnHelper } from '@tanstack/react-table';
import { DateTime } from '../../components/DateTime';
import { Money } from '../../components/Money';
import { ResourceTable, type TableOptions } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link } from '../../router';
import { type Payment, paymentsApi, paymentsKey } from './api';
import { PaymentMethod } from './PaymentMethod';
import '../orders/sales.css';

const column = createColumnHelper<Payment>();

const shortLink = (path: string, id: string | null | undefined) =>
  id ? (
    <Link to={`${path}${id}`} title={id}>
      {id.slice(0, 8)}
    </Link>
  ) : (
    <span className="muted">—</span>
  );

// Column ids are the API's sorting names.
const columns = [
  column.accessor('created_at', {
    header: 'Date',
    enableSorting: true,
    cell: (cell) => (
      <Link to={`/payments/${cell.row.original.id}`}>
        <DateTime value={cell.getValue()} />
      </Link>
    ),
  }),
  column.accessor('status', {
    header: 'Status',
    enableSorting: true,
    cell: (cell) => <StatusBadge status={cell.getValue()} />,
  }),
  column.accessor('amount', {
    header: 'Amount',
    enableSorting: true,
    cell: (cell) => <Money amount={cell.getValue()} currency={cell.row.original.currency} />,
  }),
  column.accessor('method', {
    header: 'Method',
    enableSorting: true,
    cell: (cell) => <PaymentMethod payment={cell.row.original} />,
  }),
  column.accessor('decline_reason', {
    header: 'Decline reason',
    cell: (cell) => cell.getValue()?.replaceAll('_', ' ') ?? '',
  }),
  column.accessor('order_id', {
    header: 'Order',
    cell: (cell) => shortLink('/orders/', cell.getValue()),
  }),
  column.accessor('checkout_id', {
    header: 'Checkout',
    cell: (cell) => shortLink('/checkouts/', cell.getValue()),
  }),
];

/** The payments table, narrowed to `scope` (a checkout's payments): for a list page or a section. */
export const paymentsTable = (scope: Record<string, string> = {}) => ({
  label: 'Payments',
  source: { queryKey: paymentsKey, fetchPage: paymentsApi.list },
  scope,
  // The order or checkout the table is scoped to goes without saying.
  columns: columns.filter((shown) => !(shown.id && shown.id in scope)),
  defaultSorting: '-created_at',
  empty: 'No payments yet.',
});

export function PaymentsTable({ scope, ...options }: TableOptions) {
  return <ResourceTable {...paymentsTable(scope)} {...options} />;
}
