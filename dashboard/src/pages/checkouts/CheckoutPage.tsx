import { useQuery } from '@tanstack/react-query';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, EntityPageFallback, Section } from '../../components/EntityPage';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { WorkflowPanel } from '../../components/WorkflowPanel';
import { Link, type PageProps } from '../../router';
import { OrdersTable } from '../orders/OrdersTable';
import { PaymentsTable } from '../payments/PaymentsTable';
import { checkoutsApi } from './api';

const back = { to: '/checkouts', label: 'Checkouts' };

export default function CheckoutPage({ params }: PageProps<'/checkouts/:id'>) {
  const { id } = params;
  const checkout = useQuery({
    queryKey: ['checkouts', id],
    queryFn: ({ signal }) => checkoutsApi.get(id, signal),
  });
  if (!checkout.isSuccess) {
    return <EntityPageFallback title="Checkout" back={back} query={checkout} />;
  }
  const { data } = checkout;
  const money = (amount: number | null) =>
    amount === null ? '—' : <Money amount={amount} currency={data.currency} />;
  return (
    <EntityPage
      title={`Checkout of ${data.product.name}`}
      subtitle={
        <>
          <StatusBadge status={data.status} /> <DateTime value={data.created_at} />
        </>
      }
      back={back}
    >
      {data.payment_error && (
        <div className="error-message" role="status">
          Last payment attempt failed: {data.payment_error.message}
        </div>
      )}
      <Section title="Amounts">
        <Details
          items={[
            ['Amount', money(data.amount)],
            ['Discount', money(-data.discount_amount)],
            ['Net', money(data.net_amount)],
            ['Tax', money(data.tax_amount)],
            ['Total', money(data.total_amount)],
          ]}
        />
      </Section>
      <Section title="Details">
        <Details
          items={[
            ['Status', <StatusBadge key="status" status={data.status} />],
            [
              'Product',
              <Link key="product" to={`/products/${data.product_id}`}>
                {data.product.name}
              </Link>,
            ],
            [
              'Customer',
              data.customer_id ? (
                <Link key="customer" to={`/customers/${data.customer_id}`}>
                  {data.customer_email ?? data.customer_id}
                </Link>
              ) : (
                (data.customer_email ?? '—')
              ),
            ],
            [
              'Subscription',
              data.subscription_id ? (
                <Link key="subscription" to={`/subscriptions/${data.subscription_id}`}>
                  {data.subscription_id}
                </Link>
              ) : (
                '—'
              ),
            ],
            ['Expires', <DateTime key="expires" value={data.expires_at} />],
            [
              'Buyer’s page',
              <a key="url" href={data.url} target="_blank" rel="noreferrer">
                {data.url}
              </a>,
            ],
            ['Checkout id', <code key="id">{data.id}</code>],
          ]}
        />
      </Section>
      <Section title="Order">
        <OrdersTable
          scope={{ checkout_id: data.id }}
          urlPrefix="orders."
          empty="This checkout has made no order."
        />
      </Section>
      <Section
        title="Payments"
        actions={<Link to={`/payments?checkout_id=${data.id}`}>All in the payments list</Link>}
      >
        <PaymentsTable
          scope={{ checkout_id: data.id }}
          urlPrefix="payments."
          empty="No payment attempts of this checkout."
        />
      </Section>
      <WorkflowPanel kind="checkout" entityId={data.id} />
    </EntityPage>
  );
}
