import { useQuery } from '@tanstack/react-query';
import type { TableFilter } from '../../components/DataTable';
import { ExportCsvButton } from '../../components/ExportCsvButton';
import { ResourceListPage } from '../../components/ResourceListPage';
import { useQueryState } from '../../router';
import { CustomerFilter, isFiltered } from '../customers/CustomerFilter';
import { productsApi, productsKey } from '../products/api';
import { ordersTable } from './OrdersTable';

const billingTypes = [
  { value: 'one_time', label: 'One-time' },
  { value: 'recurring', label: 'Recurring' },
];

/** The products to filter by: the first hundred by name (a select stays usable at that size). */
export function useProductOptions() {
  const products = useQuery({
    queryKey: [...productsKey, 'options'],
    queryFn: ({ signal }) => productsApi.list({ page: 1, limit: 100, sorting: ['name'] }, signal),
  });
  return (products.data?.items ?? []).map((product) => ({
    value: product.id,
    label: product.name,
  }));
}

export default function OrdersPage() {
  const [params] = useQueryState();
  const customerId = params.get('customer_id');
  const products = useProductOptions();
  const filters: TableFilter[] = [
    { name: 'product_id', label: 'Product', type: 'select', options: products },
    { name: 'product_billing_type', label: 'Billing', type: 'select', options: billingTypes },
  ];
  return (
    <ResourceListPage
      title="Orders"
      actions={<ExportCsvButton path="/v1/orders/export" filename="orders.csv" />}
      {...ordersTable(customerId ? { customer_id: customerId } : {})}
      filters={filters}
      toolbar={<CustomerFilter />}
      empty={isFiltered(params) ? 'No orders match these filters.' : 'No orders yet.'}
    />
  );
}
