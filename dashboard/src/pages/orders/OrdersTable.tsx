import { createColumnHelper } from '@tanstack/react-table';
import { DateTime } from '../../components/DateTime';
import { Money } from '../../components/Money';
import { ResourceTable, type TableOptions } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link } from '../../router';
import { billingReasonLabels, fetchOrders, type Order } from './api';
import './sales.css';

const column = createColumnHelper<Order>();

// Column ids are the API's sorting names (`sorting=-amount` sorts by total).
const columns = [
  column.accessor('invoice_number', {
    header: 'Order',
    enableSorting: true,
    cell: (cell) => <Link to={`/orders/${cell.row.original.id}`}>{cell.getValue()}</Link>,
  }),
  column.accessor('created_at', {
    header: 'Date',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
  column.accessor((order) => order.customer.email, {
    id: 'customer',
    header: 'Customer',
    enableSorting: true,
    cell: (cell) => (
      <Link to={`/customers/${cell.row.original.customer_id}`}>{cell.getValue()}</Link>
    ),
  }),
  column.accessor((order) => order.product.name, {
    id: 'product',
    header: 'Product',
    enableSorting: true,
  }),
  column.accessor('billing_reason', {
    header: 'Type',
    cell: (cell) => billingReasonLabels[cell.getValue()] ?? cell.getValue(),
  }),
  column.accessor('status', {
    header: 'Status',
    enableSorting: true,
    cell: (cell) => <StatusBadge status={cell.getValue()} />,
  }),
  column.accessor('total_amount', {
    id: 'amount',
    header: 'Total',
    enableSorting: true,
    cell: (cell) => <Money amount={cell.getValue()} currency={cell.row.original.currency} />,
  }),
];

/** The orders table, narrowed to `scope` (a customer's orders): for ResourceTable or a list page. */
export const ordersTable = (scope: Record<string, string> = {}) => ({
  label: 'Orders',
  source: { queryKey: ['orders'], fetchPage: fetchOrders },
  scope,
  // A customer's orders need no customer column.
  columns: scope.customer_id ? columns.filter((shown) => shown.id !== 'customer') : columns,
  defaultSorting: '-created_at',
  empty: 'No orders yet.',
});

/** Orders, a server page at a time: fast with any number of them. */
export function OrdersTable({ scope, ...options }: TableOptions) {
  return <ResourceTable {...ordersTable(scope)} {...options} />;
}
