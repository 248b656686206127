import type { WorkflowExecutionInfo } from '@temporalio/client';
import { z } from 'zod';
import { isoDateTimeOrNull } from '../wire.ts';
import type { PendingTimer, TimelineEvent, WorkflowFailure } from './history.ts';

/** The entities whose life a workflow runs, as /v1/workflows names them. */
export const workflowKinds = [
  'checkout',
  'subscription',
  'refund',
  'benefit_grant',
  'webhook_endpoint',
  'invitation',
] as const;
export type WorkflowKind = (typeof workflowKinds)[number];

/** Temporal's execution statuses, as the API answers and filters them. */
export const workflowStatuses = [
  'running',
  'completed',
  'failed',
  'canceled',
  'terminated',
  'continued_as_new',
  'timed_out',
] as const;
export type WorkflowStatus = (typeof workflowStatuses)[number];

/** Each status as Temporal's visibility queries spell it (`ExecutionStatus = 'Running'`). */
export const visibilityStatusNames: Record<WorkflowStatus, string> = {
  running: 'Running',
  completed: 'Completed',
  failed: 'Failed',
  canceled: 'Canceled',
  terminated: 'Terminated',
  continued_as_new: 'ContinuedAsNew',
  timed_out: 'TimedOut',
};

export const workflowKindParams = z.object({ kind: z.enum(workflowKinds), entityId: z.uuid() });
export const workflowListQuery = z.object({ type: z.enum(workflowKinds) }).loose();
export const workflowStatusInput = z.enum(workflowStatuses);

/** `CONTINUED_AS_NEW` → `continued_as_new`; Temporal's `CANCELLED` is spelled as Polar does. */
const statusWire = (name: string) => (name === 'CANCELLED' ? 'canceled' : name.toLowerCase());

/** A workflow run in a list: which entity it serves, and where it stands. */
export function workflowSummaryWire(
  kind: WorkflowKind,
  entityId: string,
  info: Pick<
    WorkflowExecutionInfo,
    | 'workflowId'
    | 'runId'
    | 'type'
    | 'status'
    | 'startTime'
    | 'closeTime'
    | 'historyLength'
    | 'taskQueue'
  >,
) {
  return {
    kind,
    entity_id: entityId,
    workflow_id: info.workflowId,
    run_id: info.runId,
    type: info.type,
    status: statusWire(info.status.name),
    start_time: isoDateTimeOrNull(info.startTime),
    close_time: isoDateTimeOrNull(info.closeTime),
    history_length: info.historyLength,
    task_queue: info.taskQueue,
  };
}
export type WorkflowSummaryWire = ReturnType<typeof workflowSummaryWire>;

/** An activity the server has scheduled and not seen finish (local activities never are). */
export interface PendingActivityWire {
  activity_id: string;
  activity_type: string;
  attempt: number;
  scheduled_time: string | null;
  last_started_time: string | null;
  last_failure: string | null;
}

/** What a workflow is doing, what it waits for, what it did and what failed (the dashboard panel). */
export interface WorkflowInsightWire extends WorkflowSummaryWire {
  /** The workflow's own state query (subscriptions), while it runs; else null. */
  state: unknown;
  waiting_for: {
    activities: PendingActivityWire[];
    timers: PendingTimer[];
    /** The signals and updates its handlers take now (absent when it is not running). */
    signals?: string[];
    updates?: string[];
  };
  /** The last events of the run's history, oldest first; `timeline_omitted` earlier ones left out. */
  timeline: TimelineEvent[];
  timeline_omitted: number;
  failures: WorkflowFailure[];
  /** This run's page in the Temporal Web UI, when TEMPORAL_UI_URL is set. */
  web_ui_url: string | null;
}
