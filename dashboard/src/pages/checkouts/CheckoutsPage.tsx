import { createColumnHelper } from '@tanstack/react-table';
import type { TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { Money } from '../../components/Money';
import { ResourceListPage } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link, useQueryState } from '../../router';
import { CustomerFilter, isFiltered } from '../customers/CustomerFilter';
import { useProductOptions } from '../orders/OrdersPage';
import { type Checkout, checkoutStatusOptions, checkoutsApi, checkoutsKey } from './api';

const column = createColumnHelper<Checkout>();

// Column ids are the API's sorting names.
const columns = [
  column.accessor('created_at', {
    header: 'Created',
    enableSorting: true,
    cell: (cell) => (
      <Link to={`/checkouts/${cell.row.original.id}`}>
        <DateTime value={cell.getValue()} />
      </Link>
    ),
  }),
  column.accessor('status', {
    header: 'Status',
    enableSorting: true,
    cell: (cell) => <StatusBadge status={cell.getValue()} />,
  }),
  column.accessor((checkout) => checkout.product.name, { id: 'product', header: 'Product' }),
  column.accessor('customer_email', {
    header: 'Customer',
    cell: (cell) => {
      const { customer_id: customerId } = cell.row.original;
      const email = cell.getValue() ?? '—';
      return customerId ? <Link to={`/customers/${customerId}`}>{email}</Link> : email;
    },
  }),
  column.accessor('total_amount', {
    id: 'amount',
    header: 'Total',
    cell: (cell) => <Money amount={cell.getValue()} currency={cell.row.original.currency} />,
  }),
  column.accessor('expires_at', {
    header: 'Expires',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
];

/** Every checkout, open or done: where a sale stands before it is an order. */
export default function CheckoutsPage() {
  const [params] = useQueryState();
  const customerId = params.get('customer_id');
  const products = useProductOptions();
  const filters: TableFilter[] = [
    { name: 'status', label: 'Status', type: 'select', options: checkoutStatusOptions },
    { name: 'product_id', label: 'Product', type: 'select', options: products },
  ];
  return (
    <ResourceListPage
      title="Checkouts"
      source={{ queryKey: checkoutsKey, fetchPage: checkoutsApi.list }}
      scope={customerId ? { customer_id: customerId } : undefined}
      columns={columns}
      filters={filters}
      toolbar={<CustomerFilter />}
      defaultSorting="-created_at"
      empty={isFiltered(params) ? 'No checkouts match these filters.' : 'No checkouts yet.'}
    />
  );
}
