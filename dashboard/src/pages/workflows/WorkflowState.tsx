import type { SubscriptionWorkflowState } from '../../../../processes/subscription-messages.ts';
import { DateTime } from '../../components/DateTime';
import { Details } from '../../components/EntityPage';
import { StatusBadge } from '../../components/StatusBadge';
import { Link } from '../../router';
import { nextActionLabels } from '../subscriptions/api';
import type { WorkflowKind } from './api';

/** A running workflow's answer to its state query: a subscription's schedule, else raw JSON. */
export function WorkflowState({ kind, state }: { kind: WorkflowKind; state: unknown }) {
  if (kind === 'subscription')
    return <SubscriptionState state={state as SubscriptionWorkflowState} />;
  return <pre className="workflow-json">{JSON.stringify(state, null, 2)}</pre>;
}

function SubscriptionState({ state }: { state: SubscriptionWorkflowState }) {
  const { schedule, nextAction, periods } = state;
  const error = schedule.lastPaymentError;
  return (
    <>
      <Details
        items={[
          [
            'Next action',
            <>
              {nextActionLabels[nextAction.kind]} <DateTime value={nextAction.at} />
            </>,
          ],
          ['Status', <StatusBadge key="status" status={schedule.status} />],
          [
            'Current period',
            <>
              <DateTime value={schedule.currentPeriodStart} /> →{' '}
              <DateTime value={schedule.currentPeriodEnd} />
            </>,
          ],
          ['Trial ends', <DateTime key="trial" value={schedule.trialEnd} />],
          ['Cancels at period end', schedule.cancelAtPeriodEnd ? 'Yes' : 'No'],
          ['Past due since', <DateTime key="past-due" value={schedule.pastDueAt} />],
          ['Payment attempts', schedule.dunningAttempts],
          ['Next payment attempt', <DateTime key="retry" value={schedule.nextPaymentAttemptAt} />],
          ['Last payment error', error ? `${error.message} (${error.code})` : '—'],
          [
            'Clock',
            schedule.testClock ? (
              <>
                Test clock at <DateTime value={schedule.testClock.frozenTime} />
              </>
            ) : (
              'Real time'
            ),
          ],
        ]}
      />
      <h4>Billed periods</h4>
      <BilledPeriods periods={periods} />
    </>
  );
}

/** The periods a subscription workflow billed (or tried to), oldest first, with their orders. */
export function BilledPeriods({ periods }: { periods: SubscriptionWorkflowState['periods'] }) {
  return periods.length === 0 ? (
    <p className="muted">No period billed yet.</p>
  ) : (
    <table className="data-table">
      <caption className="visually-hidden">Billed periods</caption>
      <thead>
        <tr>
          <th scope="col">Start</th>
          <th scope="col">End</th>
          <th scope="col">Outcome</th>
          <th scope="col">Order</th>
        </tr>
      </thead>
      <tbody>
        {periods.map((period) => (
          <tr key={period.start}>
            <td>
              <DateTime value={period.start} />
            </td>
            <td>
              <DateTime value={period.end} />
            </td>
            <td>
              <StatusBadge status={period.status} />
            </td>
            <td>
              {period.orderId ? (
                <Link to={`/orders/${period.orderId}`}>View order</Link>
              ) : (
                <span className="muted">—</span>
              )}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
