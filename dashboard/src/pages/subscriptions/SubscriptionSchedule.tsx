import type { UseQueryResult } from '@tanstack/react-query';
import { ApiError } from '../../api/client';
import { DateTime } from '../../components/DateTime';
import { Section } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import type { Order } from '../orders/api';
import { BilledPeriods } from '../workflows/WorkflowState';
import { nextActionLabels, type Subscription, type WorkflowState } from './api';

/** The subscription's workflow has finished (an ended subscription): nothing is scheduled. */
const finished = (state: UseQueryResult<WorkflowState>) =>
  state.error instanceof ApiError && state.error.status === 404;

/** What the subscription's workflow does next, and when (by its test clock when it has one). */
export function NextStep({ state }: { state: UseQueryResult<WorkflowState> }) {
  if (state.isPending) return <span className="muted">Loading…</span>;
  if (state.isError) {
    return <span className="muted">{finished(state) ? 'Nothing' : 'Unknown (see below)'}</span>;
  }
  const { nextAction, schedule } = state.data;
  return (
    <>
      {nextActionLabels[nextAction.kind]} {nextAction.at && <DateTime value={nextAction.at} />}
      {schedule.testClock && (
        <div className="muted">
          Test clock at <DateTime value={schedule.testClock.frozenTime} />
        </div>
      )}
    </>
  );
}

type BilledPeriod = WorkflowState['periods'][number];

/**
 * The first period, paid at checkout (or free in a trial) before the subscription's workflow
 * started: the workflow bills renewals only, so its list begins with the second period. It
 * runs from the start to the first renewal (or, before any, to the current period's end).
 */
export function firstPeriodOf(
  subscription: Pick<Subscription, 'started_at' | 'created_at' | 'current_period_end'>,
  firstOrder: Pick<Order, 'id' | 'billing_reason' | 'paid' | 'total_amount'> | undefined,
  renewals: BilledPeriod[],
): BilledPeriod {
  const order = firstOrder?.billing_reason === 'subscription_create' ? firstOrder : undefined;
  return {
    start: subscription.started_at ?? subscription.created_at,
    end: renewals[0]?.start ?? subscription.current_period_end ?? subscription.created_at,
    orderId: order?.id ?? null,
    status: !order || order.total_amount === 0 ? 'free' : order.paid ? 'paid' : 'failed',
  };
}

/**
 * The periods the subscription billed (or tried to): the first one, then those of its
 * workflow's state query.
 */
export function BilledPeriodsSection({
  state,
  firstPeriod,
}: {
  state: UseQueryResult<WorkflowState>;
  firstPeriod: BilledPeriod | undefined;
}) {
  const renewals = state.data?.periods ?? [];
  const periods =
    firstPeriod && renewals[0]?.start !== firstPeriod.start ? [firstPeriod, ...renewals] : renewals;
  return (
    <Section title="Billed periods">
      {state.isPending && <p className="muted">Loading…</p>}
      {state.isError &&
        (finished(state) ? (
          <p className="muted">No workflow runs for this subscription any more.</p>
        ) : (
          <ErrorMessage title="Could not read the billed periods" error={state.error}>
            <button type="button" className="button" onClick={() => state.refetch()}>
              Try again
            </button>
          </ErrorMessage>
        ))}
      {state.isSuccess && <BilledPeriods periods={periods} />}
    </Section>
  );
}
