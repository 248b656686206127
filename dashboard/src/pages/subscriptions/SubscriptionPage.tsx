import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../../api/client';
import { DateTime } from '../../components/DateTime';
import { Details, EntityPage, EntityPageFallback, Section } from '../../components/EntityPage';
import { Money } from '../../components/Money';
import { StatusBadge } from '../../components/StatusBadge';
import { WorkflowPanel } from '../../components/WorkflowPanel';
import { Link, type PageProps } from '../../router';
import { reasonLabels, subscriptionKey, subscriptionsApi } from './api';
import { ChangePlanSection } from './ChangePlanSection';
import { SubscriptionActions } from './SubscriptionActions';
import { BilledPeriodsSection, NextStep } from './SubscriptionSchedule';

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
  const back = { to: '/subscriptions', label: 'Subscriptions' };

  if (!subscription.isSuccess) {
    return <EntityPageFallback title="Subscription" back={back} query={subscription} />;
  }
  const { data } = subscription;
  const live = data.status === 'active' || data.status === 'trialing';
  const clockTime = state.data?.schedule.testClock?.frozenTime;
  const reason = data.customer_cancellation_reason;

  return (
    <EntityPage
      title={`${data.product.name} for ${data.customer.email}`}
      subtitle={
        <>
          <StatusBadge status={data.status} />
          {data.cancel_at_period_end && (
            <StatusBadge tone="warning">ends at period end</StatusBadge>
          )}{' '}
          <Money amount={data.amount} currency={data.currency} /> every {data.recurring_interval}
        </>
      }
      back={back}
      actions={<SubscriptionActions subscription={data} />}
    >
      {(data.status === 'past_due' || data.status === 'unpaid') && (
        <p className="banner" role="status">
          The last renewal was not paid.{' '}
          <Link to="/failed-renewals">Fix it under failed renewals</Link>.
        </p>
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
            ['Discount', data.discount?.name ?? 'None'],
            [
              'Cancellation',
              reason || data.customer_cancellation_comment
                ? [reason && reasonLabels[reason], data.customer_cancellation_comment]
                    .filter(Boolean)
                    .join(': ')
                : '—',
            ],
            ['Subscription id', <code key="id">{data.id}</code>],
          ]}
        />
      </Section>
      <BilledPeriodsSection state={state} />
      {live && (
        <ChangePlanSection
          subscription={data}
          now={() => (clockTime ? new Date(clockTime) : new Date())}
        />
      )}
      <WorkflowPanel kind="subscription" entityId={data.id} />
    </EntityPage>
  );
}
