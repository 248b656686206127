import { useQuery } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { useState } from 'react';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, EntityPageFallback, Section } from '../../components/EntityPage';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { WorkflowPanel } from '../../components/WorkflowPanel';
import { Link, type PageProps } from '../../router';
import { RefundForm } from '../refunds/RefundForm';
import { RefundsTable } from '../refunds/RefundsTable';
import { billingReasonLabels, fetchOrder } from './api';
import { InvoiceAction } from './InvoiceAction';
import { OrderItems } from './OrderItems';
import { PaidWith } from './PaidWith';
import { useRefundable } from './useRefundable';

export default function OrderPage({ params }: PageProps) {
  const id = params.id ?? '';
  const order = useQuery({
    queryKey: ['order', id],
    queryFn: ({ signal }) => fetchOrder(id, signal),
  });
  const refundable = useRefundable(id, order.data);
  const [refunding, setRefunding] = useState(false);
  const back = { to: '/orders', label: 'Orders' };

  if (!order.isSuccess) return <EntityPageFallback title="Order" back={back} query={order} />;
  const { data } = order;
  const canRefund = data.paid && data.status !== 'refunded' && (refundable?.amount ?? 0) > 0;
  // A checkout's order shows its checkout workflow; a renewal's, its subscription's.
  const workflow = data.checkout_id
    ? ({ kind: 'checkout', entityId: data.checkout_id } as const)
    : data.subscription_id
      ? ({ kind: 'subscription', entityId: data.subscription_id } as const)
      : null;
  const money = (amount: number) => <Money amount={amount} currency={data.currency} />;

  return (
    <EntityPage
      title={`Order ${data.invoice_number}`}
      subtitle={
        <>
          <StatusBadge status={data.status} /> {billingReasonLabels[data.billing_reason]} ·{' '}
          <DateTime value={data.created_at} />
        </>
      }
      back={back}
      actions={
        <>
          <InvoiceAction order={data} />
          {canRefund && !refunding && (
            <button
              type="button"
              className="button button-danger"
              onClick={() => setRefunding(true)}
            >
              Refund
            </button>
          )}
        </>
      }
    >
      {refunding && refundable && (
        <Section title="Refund">
          <RefundForm
            order={data}
            refundable={refundable.amount}
            onDone={() => setRefunding(false)}
          />
        </Section>
      )}
      <Section title="Amounts">
        <Details
          items={[
            ['Subtotal', money(data.subtotal_amount)],
            [
              'Discount',
              <>
                {money(-data.discount_amount)}
                {data.discount && ` (${data.discount.name})`}
              </>,
            ],
            ['Net', money(data.net_amount)],
            ['Tax', money(data.tax_amount)],
            ['Total', money(data.total_amount)],
            // The customer's balance paid this much of the total; the card the rest.
            ...(data.from_balance_amount > 0
              ? [
                  ['Balance used', money(-data.from_balance_amount)] satisfies [string, ReactNode],
                  ['Charged', money(data.total_amount - data.from_balance_amount)] satisfies [
                    string,
                    ReactNode,
                  ],
                ]
              : []),
            [
              'Refunded',
              <>
                {money(data.refunded_amount)} + {money(data.refunded_tax_amount)} tax
              </>,
            ],
            [
              'Refundable',
              refundable ? (
                <>
                  {money(Math.max(refundable.amount, 0))}
                  {refundable.pending.length > 0 && ` (${refundable.pending.length} pending)`}
                </>
              ) : (
                '…'
              ),
            ],
          ]}
        />
      </Section>
      <Section title="Items">
        <OrderItems order={data} />
      </Section>
      <Section title="Details">
        <Details
          items={[
            [
              'Customer',
              <Link key="customer" to={`/customers/${data.customer_id}`}>
                {data.customer.email}
              </Link>,
            ],
            [
              'Product',
              <Link key="product" to={`/products/${data.product_id}`}>
                {data.product.name}
              </Link>,
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
            ['Paid with', <PaidWith key="card" orderId={data.id} />],
            ['Billed to', data.billing_name ?? '—'],
            ['Order id', <code key="id">{data.id}</code>],
          ]}
        />
      </Section>
      <Section
        title="Refunds"
        actions={<Link to={`/refunds?order_id=${data.id}`}>All in the refunds list</Link>}
      >
        <RefundsTable
          scope={{ order_id: data.id }}
          urlPrefix="refunds."
          empty="No refunds of this order."
        />
      </Section>
      {workflow && <WorkflowPanel {...workflow} />}
    </EntityPage>
  );
}
