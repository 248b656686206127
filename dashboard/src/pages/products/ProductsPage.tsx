import { createColumnHelper } from '@tanstack/react-table';
import { DataTable, type TableFilter } from '../../components/DataTable';
import { DateTime } from '../../components/DateTime';
import { EntityPage } from '../../components/EntityPage';
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
    <EntityPage
      title="Products"
      actions={
        <Link to="/products/new" className="button button-primary">
          New product
        </Link>
      }
    >
      <DataTable
        label="Products"
        queryKey={productsKey}
        columns={columns}
        getRowId={(product) => product.id}
        fetchPage={productsApi.list}
        filters={filters}
        defaultSorting="-created_at"
        empty={
          <>
            No products match. <Link to="/products/new">Create a product</Link>.
          </>
        }
      />
    </EntityPage>
  );
}
