import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../../api/client';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, EntityPageFallback, Section } from '../../components/EntityPage';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { WorkflowPanel } from '../../components/WorkflowPanel';
import { Link, type PageProps } from '../../router';
import { recoveredLabel } from '../finance/recovery';
import { UpdateCardLinkButton } from '../finance/UpdateCardLinkButton';
import { fetchOrders } from '../orders/api';
import { PaidWith } from '../orders/PaidWith';
import { reasonLabels, type Subscription, subscriptionKey, subscriptionsApi } from './api';
import { ChangePlanSection } from './ChangePlanSection';
import { SeatsSection } from './SeatsSection';
import { SubscriptionActions } from './SubscriptionActions';
import { BilledPeriodsSection, firstPeriodOf, NextStep } from './SubscriptionSchedule';

/**
 * Why it ended or will: "Payment failed" with the last attempt's date when dunning gave up on
 * the renewal, else the customer's reason and comment.
 */
function Cancellation({ subscription }: { subscription: Subscription }) {
  if (subscription.cancellation_cause === 'payment_failed') {
    return (
      <span>
        Payment failed
        {subscription.last_payment_attempt_at && (
          <>
            {' '}
            (last attempt <DateTime value={subscription.last_payment_attempt_at} />)
          </>
        )}
      </span>
    );
  }
  const reason = subscription.customer_cancellation_reason;
  const comment = subscription.customer_cancellation_comment;
  if (!reason && !comment) return <>—</>;
  return <>{[reason && reasonLabels[reason], comment].filter(Boolean).join(': ')}</>;
}

export default function SubscriptionPage({ params }: PageProps) {
  const id = params.id ?? '';
  const subscription = useQuery({
    queryKey: subscriptionKey(id),
    queryFn: ({ signal }) => subscriptionsApi.get(id, signal),
  });
  const state = useQuery({
    queryKey: [...subscriptionKey(id), 'workflow'],
    queryFn: ({ signal }) => subscriptionsApi.workflow(id, signal),
    retry: (count, error) => !(error instanceof ApiError && error.status === 404) && count < 2,
  });
  // Oldest first: the first is the checkout's (the first period), the last paid with the card now.
  const orders = useQuery({
    queryKey: [...subscriptionKey(id), 'orders'],
    queryFn: ({ signal }) =>
      fetchOrders({ subscription_id: id, limit: 100, sorting: ['created_at'] }, signal),
  });
  const back = { to: '/subscriptions', label: 'Subscriptions' };

  if (!subscription.isSuccess) {
    return <EntityPageFallback title="Subscription" back={back} query={subscription} />;
  }
  const { data } = subscription;
  const live = data.status === 'active' || data.status === 'trialing';
  const clockTime = state.data?.schedule.testClock?.frozenTime;
  const recovered = recoveredLabel(data.recovered_by);
  const subscriptionNow = () => (clockTime ? new Date(clockTime) : new Date());

  return (
    <EntityPage
      title={`${data.product.name} for ${data.customer.email}`}
      subtitle={
        <>
          <StatusBadge status={data.status} />
          {data.cancel_at_period_end && (
            <StatusBadge tone="warning">ends at period end</StatusBadge>
          )}
          {data.test_clock_id && <StatusBadge tone="info">test clock</StatusBadge>}
          {recovered && <StatusBadge tone="ok">{recovered}</StatusBadge>}{' '}
          <Money amount={data.amount} currency={data.currency} /> every {data.recurring_interval}
          {data.seats !== null && ` for ${data.seats} ${data.seats === 1 ? 'seat' : 'seats'}`}
        </>
      }
      back={back}
      actions={<SubscriptionActions subscription={data} />}
    >
      {(data.status === 'past_due' || data.status === 'unpaid') && (
        <div className="banner">
          <p role="status">
            The last renewal was not paid
            {data.last_payment_decline_reason ? `: ${data.last_payment_decline_reason}` : '.'}{' '}
            <Link to="/failed-renewals">Fix it under failed renewals</Link>, or let the customer pay
            with a new card.
          </p>
          <UpdateCardLinkButton subscriptionId={data.id} />
        </div>
      )}
      <Section title="Period">
        <Details
          items={[
            [
              'Current period',
              <>
                <DateTime value={data.current_period_start} /> →{' '}
                <DateTime value={data.current_period_end} />
              </>,
            ],
            ['Next', <NextStep key="next" state={state} />],
            ['Trial ends', <DateTime key="trial" value={data.trial_end} />],
            ['Started', <DateTime key="started" value={data.started_at} />],
            ['Ended', <DateTime key="ended" value={data.ended_at} />],
          ]}
        />
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
            ...(data.seats === null
              ? []
              : [['Seats', String(data.seats)] satisfies [string, string]]),
            ['Paid with', <PaidWith key="card" orderId={orders.data?.items.at(-1)?.id ?? null} />],
            ['Discount', data.discount?.name ?? 'None'],
            ['Cancellation', <Cancellation key="cancellation" subscription={data} />],
            [
              'Last renewal payment',
              data.last_payment_attempt_at ? (
                <span key="attempt">
                  <DateTime value={data.last_payment_attempt_at} />
                  {data.recovered_at && (
                    <>
                      {' '}
                      · {recovered} on <DateTime value={data.recovered_at} />
                    </>
                  )}
                </span>
              ) : (
                '—'
              ),
            ],
            ['Subscription id', <code key="id">{data.id}</code>],
          ]}
        />
      </Section>
      <BilledPeriodsSection
        state={state}
        firstPeriod={
          orders.data && firstPeriodOf(data, orders.data.items[0], state.data?.periods ?? [])
        }
      />
      {live && data.seats !== null && <SeatsSection subscription={data} now={subscriptionNow} />}
      {live && <ChangePlanSection subscription={data} now={subscriptionNow} />}
      <WorkflowPanel kind="subscription" entityId={data.id} />
    </EntityPage>
  );
}
