import { createColumnHelper } from '@tanstack/react-table';
import type { ReactNode } from 'react';
import { DataTable, type TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Money } from '../../components/Money';
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

interface OrdersTableProps {
  /** Query parameters every page request carries (`customer_id` on a customer's page). */
  scope?: Record<string, string>;
  filters?: readonly TableFilter[];
  urlPrefix?: string;
  empty?: string;
  /** Filters the page keeps itself (the customer picker), shown with the others. */
  toolbar?: ReactNode;
}

/** Orders, a server page at a time: fast with any number of them. */
export function OrdersTable({ scope = {}, filters, urlPrefix, empty, toolbar }: OrdersTableProps) {
  return (
    <DataTable
      label="Orders"
      queryKey={['orders', scope]}
      // A customer's orders need no customer column.
      columns={scope.customer_id ? columns.filter((shown) => shown.id !== 'customer') : columns}
      getRowId={(order) => order.id}
      fetchPage={(query, signal) => fetchOrders({ ...query, ...scope }, signal)}
      filters={filters}
      defaultSorting="-created_at"
      urlPrefix={urlPrefix}
      toolbar={toolbar}
      empty={empty ?? 'No orders yet.'}
    />
  );
}
