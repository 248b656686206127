import type { UseQueryResult } from '@tanstack/react-query';
import { ApiError } from '../../api/client';
import { DateTime } from '../../components/DateTime';
import { Section } from '../../components/EntityPage';
import { ErrorMessage } from '../../components/ErrorMessage';
import { BilledPeriods } from '../workflows/WorkflowState';
import { nextActionLabels, type WorkflowState } from './api';

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

/** The periods the subscription's workflow billed (or tried to), from its state query. */
export function BilledPeriodsSection({ state }: { state: UseQueryResult<WorkflowState> }) {
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
      {state.isSuccess && <BilledPeriods periods={state.data.periods} />}
    </Section>
  );
}
