/** The parts of the workflow panel read from a run's history: its waits, failures and timeline. */
import { useState } from 'react';
import { DateTime } from '../../components/DateTime';
import type { WorkflowInsightWire } from './api';

/** Most timelines are short; long ones (a subscription's years of renewals) open on their end. */
const recentEvents = 50;

export function WaitingFor({ insight }: { insight: WorkflowInsightWire }) {
  const { activities, timers, signals = [], updates = [] } = insight.waiting_for;
  const handlers = [
    ...signals.filter(Boolean).map((name) => `signal ${name}`),
    ...updates.filter(Boolean).map((name) => `update ${name}`),
  ];
  if (insight.status !== 'running') {
    return <p className="muted">Nothing: the workflow is {insight.status.replaceAll('_', ' ')}.</p>;
  }
  return (
    <ul className="workflow-waits">
      {activities.map((activity) => (
        <li key={activity.activity_id}>
          Activity <code>{activity.activity_type}</code>, attempt {activity.attempt}
          {activity.scheduled_time && (
            <>
              , scheduled <DateTime value={activity.scheduled_time} />
            </>
          )}
          {activity.last_failure && (
            <span className="workflow-error"> — last attempt failed: {activity.last_failure}</span>
          )}
        </li>
      ))}
      {timers.map((timer) => (
        <li key={timer.timer_id}>
          Timer {timer.timer_id} fires <DateTime value={timer.fires_at} />
        </li>
      ))}
      {activities.length === 0 && timers.length === 0 && (
        <li>No activity or timer: it waits for a message or a condition.</li>
      )}
      {handlers.length > 0 && <li>Accepts {handlers.join(', ')}</li>}
    </ul>
  );
}

const sourceLabels: Record<WorkflowInsightWire['failures'][number]['source'], string> = {
  activity: 'Activity',
  local_activity: 'Local activity',
  workflow_task: 'Workflow task',
  workflow: 'Workflow',
};

export function Failures({ failures }: { failures: WorkflowInsightWire['failures'] }) {
  if (failures.length === 0) return <p className="muted">No failures.</p>;
  return (
    <ul className="workflow-failures">
      {failures.map((failure) => (
        // Failures of pending activities have no event id.
        <li key={failure.event_id ?? `pending-${failure.activity_type}-${failure.attempt}`}>
          <strong>
            {sourceLabels[failure.source]}
            {failure.activity_type && (
              <>
                {' '}
                <code>{failure.activity_type}</code>
              </>
            )}
            {failure.attempt !== null && `, attempt ${failure.attempt}`}
          </strong>{' '}
          <DateTime value={failure.time} />
          <p className="workflow-error">{failure.message}</p>
        </li>
      ))}
    </ul>
  );
}

export function Timeline({ insight }: { insight: WorkflowInsightWire }) {
  const [showAll, setShowAll] = useState(false);
  const { timeline, timeline_omitted: omitted } = insight;
  const hidden = showAll ? 0 : Math.max(timeline.length - recentEvents, 0);
  const shown = timeline.slice(hidden);
  return (
    <>
      {omitted + hidden > 0 && (
        <p className="muted">
          {omitted + hidden} earlier events not shown.{' '}
          {hidden > 0 && (
            <button type="button" className="button button-quiet" onClick={() => setShowAll(true)}>
              Show {hidden} more
            </button>
          )}
        </p>
      )}
      <ol className="workflow-timeline" aria-label="History events, oldest first">
        {shown.map((event) => (
          <li key={event.event_id} className={`event-${event.type}`}>
            <span className="event-id">#{event.event_id}</span>
            <DateTime value={event.time} format="seconds" />
            <span>{event.summary}</span>
          </li>
        ))}
      </ol>
    </>
  );
}
