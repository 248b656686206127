import { useQuery } from '@tanstack/react-query';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, EntityPageFallback, Section } from '../../components/EntityPage';
import { Link, type PageProps } from '../../router';
import { OrdersTable } from '../orders/OrdersTable';
import { RefundsTable } from '../refunds/RefundsTable';
import { fetchCustomerState } from './api';
import { CustomerBalanceSection } from './CustomerBalance';
import { CustomerStateSections } from './CustomerState';

export default function CustomerPage({ params }: PageProps) {
  const id = params.id ?? '';
  const state = useQuery({
    queryKey: ['customer', id, 'state'],
    queryFn: ({ signal }) => fetchCustomerState(id, signal),
  });
  const back = { to: '/customers', label: 'Customers' };

  if (!state.isSuccess) return <EntityPageFallback title="Customer" back={back} query={state} />;
  const customer = state.data;
  return (
    <EntityPage title={customer.name ?? customer.email} subtitle={customer.email} back={back}>
      <Section title="Details">
        <Details
          items={[
            [
              'Email',
              customer.email_verified ? customer.email : `${customer.email} (not verified)`,
            ],
            ['Name', customer.name ?? '—'],
            ['External id', customer.external_id ?? '—'],
            ['Customer since', <DateTime key="created" value={customer.created_at} />],
            ['Customer id', <code key="id">{customer.id}</code>],
          ]}
        />
      </Section>
      <CustomerStateSections state={customer} />
      <CustomerBalanceSection state={customer} />
      <Section
        title="Orders"
        actions={<Link to={`/orders?customer_id=${customer.id}`}>All in the orders list</Link>}
      >
        <OrdersTable scope={{ customer_id: customer.id }} urlPrefix="orders." empty="No orders." />
      </Section>
      <Section
        title="Refunds"
        actions={<Link to={`/refunds?customer_id=${customer.id}`}>All in the refunds list</Link>}
      >
        <RefundsTable
          scope={{ customer_id: customer.id }}
          urlPrefix="refunds."
          empty="No refunds."
        />
      </Section>
    </EntityPage>
  );
}
