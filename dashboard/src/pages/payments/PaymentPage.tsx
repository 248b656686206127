import { useQuery } from '@tanstack/react-query';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, EntityPageFallback, Section } from '../../components/EntityPage';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { Link, type PageProps } from '../../router';
import { checkoutsApi } from '../checkouts/api';
import { fetchOrder } from '../orders/api';
import { type Payment, paymentsApi } from './api';
import { PaymentMethod } from './PaymentMethod';

const back = { to: '/payments', label: 'Payments' };

export default function PaymentPage({ params }: PageProps<'/payments/:id'>) {
  const { id } = params;
  const payment = useQuery({
    queryKey: ['payments', id],
    queryFn: ({ signal }) => paymentsApi.get(id, signal),
  });
  const customer = useCustomerOf(payment.data);

  if (!payment.isSuccess) return <EntityPageFallback title="Payment" back={back} query={payment} />;
  const { data } = payment;
  const declined = data.decline_reason ?? data.decline_message;
  return (
    <EntityPage
      title={<Money amount={data.amount} currency={data.currency} />}
      subtitle={
        <>
          <StatusBadge status={data.status} /> Payment · <DateTime value={data.created_at} />
        </>
      }
      back={back}
    >
      {declined && (
        <div className="error-message" role="status">
          Declined: {data.decline_reason?.replaceAll('_', ' ')}
          {data.decline_message && ` — ${data.decline_message}`}
        </div>
      )}
      <Section title="Details">
        <Details
          items={[
            ['Amount', <Money key="amount" amount={data.amount} currency={data.currency} />],
            ['Status', <StatusBadge key="status" status={data.status} />],
            ['Method', <PaymentMethod key="method" payment={data} />],
            ['Decline reason', data.decline_reason?.replaceAll('_', ' ') ?? '—'],
            ['Decline message', data.decline_message ?? '—'],
            [
              'Order',
              data.order_id ? (
                <Link key="order" to={`/orders/${data.order_id}`}>
                  {data.order_id}
                </Link>
              ) : (
                '—'
              ),
            ],
            [
              'Checkout',
              data.checkout_id ? (
                <Link key="checkout" to={`/checkouts/${data.checkout_id}`}>
                  {data.checkout_id}
                </Link>
              ) : (
                '—'
              ),
            ],
            [
              'Customer',
              customer ? (
                <Link key="customer" to={`/customers/${customer.id}`}>
                  {customer.email ?? customer.id}
                </Link>
              ) : (
                '—'
              ),
            ],
            [
              'Stripe PaymentIntent',
              <code key="intent">{data.processor_metadata?.intent_id ?? '—'}</code>,
            ],
            ['Payment id', <code key="id">{data.id}</code>],
          ]}
        />
      </Section>
      {data.order_id && (
        <p>
          <Link to={`/payments?order_id=${data.order_id}`}>Every payment of this order</Link>
        </p>
      )}
    </EntityPage>
  );
}

/** The payer: a payment names no customer, its order or else its checkout does. */
function useCustomerOf(payment: Payment | undefined) {
  const orderId = payment?.order_id;
  const checkoutId = payment?.checkout_id;
  const order = useQuery({
    queryKey: ['order', orderId],
    queryFn: ({ signal }) => fetchOrder(orderId ?? '', signal),
    enabled: Boolean(orderId),
  });
  const checkout = useQuery({
    queryKey: ['checkouts', checkoutId],
    queryFn: ({ signal }) => checkoutsApi.get(checkoutId ?? '', signal),
    enabled: !orderId && Boolean(checkoutId),
  });
  if (order.data) return { id: order.data.customer_id, email: order.data.customer.email };
  const customerId = checkout.data?.customer_id;
  return customerId ? { id: customerId, email: checkout.data?.customer_email } : null;
}
