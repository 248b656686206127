import type { TableFilter } from '../../components/DataTable';
import { ResourceListPage } from '../../components/ResourceListPage';
import { useQueryState } from '../../router';
import { isFiltered } from '../customers/CustomerFilter';
import { paymentMethodOptions, paymentStatusOptions } from './api';
import { IdFilterChip } from './IdFilterChip';
import { paymentsTable } from './PaymentsTable';

const filters: TableFilter[] = [
  { name: 'status', label: 'Status', type: 'select', options: paymentStatusOptions },
  { name: 'method', label: 'Method', type: 'select', options: paymentMethodOptions },
  // Polar filters payments by the customer's email, not by customer id.
  { name: 'customer_email', label: 'Customer email', type: 'search' },
];

/** Every attempt to take money (checkouts and renewals), paid or declined. */
export default function PaymentsPage() {
  const [params] = useQueryState();
  const orderId = params.get('order_id');
  const checkoutId = params.get('checkout_id');
  const scope = {
    ...(orderId && { order_id: orderId }),
    ...(checkoutId && { checkout_id: checkoutId }),
  };
  return (
    <ResourceListPage
      title="Payments"
      {...paymentsTable(scope)}
      filters={filters}
      toolbar={
        <>
          <IdFilterChip name="order_id" label="Order" pathPrefix="/orders/" />
          <IdFilterChip name="checkout_id" label="Checkout" pathPrefix="/checkouts/" />
        </>
      }
      empty={isFiltered(params) ? 'No payments match these filters.' : 'No payments yet.'}
    />
  );
}
