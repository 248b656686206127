import { createColumnHelper } from '@tanstack/react-table';
import { DateTime } from '../../components/DateTime';
import { Money } from '../../components/Money';
import { ResourceTable, type TableOptions } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link } from '../../router';
import { fetchRefunds, type Refund, reasonLabels } from './api';
import { CreditNoteLinks } from './CreditNoteLinks';
import '../orders/sales.css';

const column = createColumnHelper<Refund>();
const shortId = (id: string) => id.slice(0, 8);

const columns = [
  column.accessor('created_at', {
    header: 'Date',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.accessor('amount', {
    header: 'Amount',
    enableSorting: true,
    cell: (cell) => <Money amount={cell.getValue()} currency={cell.row.original.currency} />,
  }),
  column.accessor('tax_amount', {
    header: 'Tax',
    cell: (cell) => <Money amount={cell.getValue()} currency={cell.row.original.currency} />,
  }),
  column.accessor('status', {
    header: 'Status',
    cell: (cell) => <StatusBadge status={cell.getValue()} />,
  }),
  column.accessor('reason', {
    header: 'Reason',
    cell: (cell) => reasonLabels[cell.getValue()] ?? cell.getValue(),
  }),
  column.accessor('revoke_benefits', {
    header: 'Benefits',
    cell: (cell) => (cell.getValue() ? 'Revoked' : 'Kept'),
  }),
  column.accessor('credit_note_number', {
    header: 'Credit note',
    cell: (cell) => <CreditNoteLinks refund={cell.row.original} />,
  }),
  column.accessor('order_id', {
    id: 'order_id',
    header: 'Order',
    cell: (cell) => (
      <Link to={`/orders/${cell.getValue()}`} title={cell.getValue()}>
        {shortId(cell.getValue())}
      </Link>
    ),
  }),
  column.accessor('customer_id', {
    id: 'customer_id',
    header: 'Customer',
    cell: (cell) => (
      <Link to={`/customers/${cell.getValue()}`} title={cell.getValue()}>
        {shortId(cell.getValue())}
      </Link>
    ),
  }),
];

/** The refunds table, narrowed to `scope` (an order's refunds): for ResourceTable or a list page. */
export const refundsTable = (scope: Record<string, string> = {}) => ({
  label: 'Refunds',
  source: { queryKey: ['refunds'], fetchPage: fetchRefunds },
  scope,
  // The order or customer the table is scoped to goes without saying.
  columns: columns.filter((shown) => !(shown.id && shown.id in scope)),
  defaultSorting: '-created_at',
  empty: 'No refunds yet.',
});

export function RefundsTable({ scope, ...options }: TableOptions) {
  return <ResourceTable {...refundsTable(scope)} {...options} />;
}
