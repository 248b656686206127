import type { TableFilter } from '../../components/DataTable';
import { ResourceListPage } from '../../components/ResourceListPage';
import { Link, useQueryState } from '../../router';
import { CustomerFilter, isFiltered } from '../customers/CustomerFilter';
import { refundsTable } from './RefundsTable';

const filters: TableFilter[] = [
  {
    name: 'succeeded',
    label: 'Outcome',
    type: 'select',
    options: [
      { value: 'true', label: 'Succeeded' },
      { value: 'false', label: 'Not succeeded (pending, failed, canceled)' },
    ],
  },
];

export default function RefundsPage() {
  const [params, setParams] = useQueryState();
  const customerId = params.get('customer_id');
  const orderId = params.get('order_id');
  const scope = {
    ...(customerId && { customer_id: customerId }),
    ...(orderId && { order_id: orderId }),
  };
  return (
    <ResourceListPage
      title="Refunds"
      {...refundsTable(scope)}
      filters={filters}
      toolbar={
        <>
          <CustomerFilter />
          {orderId && (
            <span className="filter-chip">
              Order: <Link to={`/orders/${orderId}`}>{orderId.slice(0, 8)}</Link>{' '}
              <button
                type="button"
                className="button"
                onClick={() => setParams({ order_id: null, page: null })}
              >
                Clear<span className="visually-hidden"> order filter</span>
              </button>
            </span>
          )}
        </>
      }
      empty={isFiltered(params) ? 'No refunds match these filters.' : 'No refunds yet.'}
    />
  );
}
