import { useQuery } from '@tanstack/react-query';
import { ApiError } from '../api/client';
import {
  entityOfWorkflowId,
  fetchWorkflow,
  type WorkflowInsightWire,
  type WorkflowKind,
  workflowKey,
} from '../pages/workflows/api';
import { Failures, Timeline, WaitingFor } from '../pages/workflows/WorkflowHistory';
import { WorkflowState } from '../pages/workflows/WorkflowState';
import { DateTime } from './DateTime';
import { Details, Section } from './EntityPage';
import { ErrorMessage } from './ErrorMessage';
import { StatusBadge } from './StatusBadge';
import '../pages/workflows/workflows.css';

type WorkflowPanelProps =
  /** The entity the workflow serves, as /v1/workflows/{kind}/{entityId} reads it. */
  | { kind: WorkflowKind; entityId: string }
  /** Its Temporal workflow id (workflows/ids.ts names them; not a benefit grant's). */
  | { workflowId: string };

/** A running workflow's state changes as it works: the panel follows it this often. */
const runningRefreshMs = 10_000;

/**
 * The engineer's view of the workflow behind an entity: where it stands, what it waits for,
 * what failed, and its history, with a link to the Temporal Web UI when one is configured.
 */
export function WorkflowPanel(props: WorkflowPanelProps) {
  const entity = 'workflowId' in props ? entityOfWorkflowId(props.workflowId) : props;
  if (!entity) {
    return (
      <Section title="Workflow">
        <p className="muted">
          The dashboard cannot show workflow{' '}
          <code>{'workflowId' in props && props.workflowId}</code>.
        </p>
      </Section>
    );
  }
  return <WorkflowInsight kind={entity.kind} entityId={entity.entityId} />;
}

function WorkflowInsight({ kind, entityId }: { kind: WorkflowKind; entityId: string }) {
  const insight = useQuery({
    queryKey: workflowKey(kind, entityId),
    queryFn: ({ signal }) => fetchWorkflow(kind, entityId, signal),
    refetchInterval: (query) => (query.state.data?.status === 'running' ? runningRefreshMs : false),
    // A missing workflow stays missing: say so at once rather than after retries.
    retry: (count, error) => !(error instanceof ApiError && error.status === 404) && count < 2,
  });
  const refresh = (
    <button
      type="button"
      className="button button-quiet"
      onClick={() => insight.refetch()}
      disabled={insight.isFetching}
    >
      {insight.isFetching ? 'Refreshing…' : 'Refresh'}
    </button>
  );

  return (
    <Section title="Workflow" actions={refresh}>
      {insight.isPending && <p className="muted">Loading the workflow…</p>}
      {insight.isError &&
        (insight.error instanceof ApiError && insight.error.status === 404 ? (
          <p className="muted" role="note">
            <strong>No workflow found.</strong> {insight.error.message}
          </p>
        ) : (
          <ErrorMessage title="Could not load the workflow" error={insight.error}>
            <button type="button" className="button" onClick={() => insight.refetch()}>
              Try again
            </button>
          </ErrorMessage>
        ))}
      {insight.data && <InsightView insight={insight.data} />}
    </Section>
  );
}

function InsightView({ insight }: { insight: WorkflowInsightWire }) {
  return (
    <div className="workflow-panel">
      <Details
        items={[
          ['Status', <StatusBadge key="status" status={insight.status} />],
          ['Type', <code key="type">{insight.type}</code>],
          [
            'Workflow id',
            <code key="id" className="workflow-id">
              {insight.workflow_id}
            </code>,
          ],
          ['Started', <DateTime key="started" value={insight.start_time} />],
          ['Closed', <DateTime key="closed" value={insight.close_time} />],
          ['History events', insight.history_length],
          [
            'Temporal Web UI',
            insight.web_ui_url ? (
              <a key="web-ui" href={insight.web_ui_url} target="_blank" rel="noreferrer">
                Open run {insight.run_id.slice(0, 8)}…
              </a>
            ) : (
              <span key="web-ui" className="muted">
                not configured
              </span>
            ),
          ],
        ]}
      />
      {insight.state !== null ? (
        <>
          <h3>Current state</h3>
          <WorkflowState kind={insight.kind} state={insight.state} />
        </>
      ) : (
        insight.status === 'running' &&
        insight.kind === 'subscription' && (
          <p className="muted" role="note">
            The workflow did not answer its state query (is its worker running?).
          </p>
        )
      )}
      <h3>Waiting for</h3>
      <WaitingFor insight={insight} />
      <h3>Failures</h3>
      <Failures failures={insight.failures} />
      <h3>Timeline</h3>
      <Timeline insight={insight} />
    </div>
  );
}
