import { createColumnHelper } from '@tanstack/react-table';
import type { TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { ResourceListPage } from '../../components/ResourceListPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link } from '../../router';
import { type Product, productsApi, productsKey } from './api';
import { billingLabel, PriceList } from './prices';
import './products.css';

const column = createColumnHelper<Product>();

const columns = [
  column.accessor('name', {
    header: 'Name',
    enableSorting: true,
    cell: (cell) => {
      const product = cell.row.original;
      const thumbnail = product.medias[0];
      return (
        <span className="product-name">
          {thumbnail && <img src={thumbnail.public_url} alt="" className="product-thumbnail" />}
          <Link to={`/products/${product.id}`}>{cell.getValue()}</Link>
          {product.is_archived && <StatusBadge tone="neutral">archived</StatusBadge>}
        </span>
      );
    },
  }),
  column.accessor('recurring_interval', {
    header: 'Billing',
    cell: (cell) => billingLabel(cell.getValue()),
  }),
  // Sorting by `price_amount` orders by the static price's amount, as Polar does.
  column.accessor('prices', {
    id: 'price_amount',
    header: 'Prices',
    enableSorting: true,
    cell: (cell) => <PriceList prices={cell.getValue()} />,
  }),
  column.accessor('created_at', {
    header: 'Created',
    enableSorting: true,
    cell: (cell) => <DateTime value={cell.getValue()} />,
  }),
];

const yesNo = (yes: string, no: string) => [
  { value: 'false', label: no },
  { value: 'true', label: yes },
];

const filters: TableFilter[] = [
  { name: 'query', label: 'Search names', type: 'search' },
  { name: 'is_archived', label: 'Status', type: 'select', options: yesNo('Archived', 'Live') },
  {
    name: 'is_recurring',
    label: 'Billing',
    type: 'select',
    options: yesNo('Recurring', 'One-time'),
  },
];

export default function ProductsPage() {
  return (
    <ResourceListPage
      title="Products"
      create={{ to: '/products/new', noun: 'product' }}
      source={{ queryKey: productsKey, fetchPage: productsApi.list }}
      columns={columns}
      filters={filters}
      defaultSorting="-created_at"
    />
  );
}
