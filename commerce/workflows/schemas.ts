import type { WorkflowExecutionInfo } from '@temporalio/client';
import { z } from 'zod';
import { dateTimeWireSchema, isoDateTimeOrNull } from '../wire.ts';

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
export const workflowSummaryWireSchema = z
  .object({
    kind: z.enum(workflowKinds),
    entity_id: z.uuid(),
    workflow_id: z.string(),
    run_id: z.string(),
    type: z.string(),
    /** One of `workflowStatuses` (Temporal's status, lower-cased). */
    status: z.string(),
    start_time: dateTimeWireSchema.nullable(),
    close_time: dateTimeWireSchema.nullable(),
    history_length: z.int(),
    task_queue: z.string(),
  })
  .meta({ id: 'WorkflowSummary' });
export type WorkflowSummaryWire = z.input<typeof workflowSummaryWireSchema>;

/** A page of workflows; `truncated` when more matched than Temporal was asked for. */
export const workflowListWireSchema = z.object({
  items: z.array(workflowSummaryWireSchema),
  pagination: z.object({ total_count: z.int(), max_page: z.int() }),
  truncated: z.boolean(),
});

/** An activity the server has scheduled and not seen finish (local activities never are). */
const pendingActivityWireSchema = z.object({
  activity_id: z.string(),
  activity_type: z.string(),
  attempt: z.int(),
  scheduled_time: z.string().nullable(),
  last_started_time: z.string().nullable(),
  last_failure: z.string().nullable(),
});
export type PendingActivityWire = z.input<typeof pendingActivityWireSchema>;

/** What a workflow is doing, what it waits for, what it did and what failed (the dashboard panel). */
export const workflowInsightWireSchema = workflowSummaryWireSchema
  .extend({
    /** The workflow's own state query (subscriptions), while it runs; else null. */
    state: z.unknown(),
    waiting_for: z.object({
      activities: z.array(pendingActivityWireSchema),
      timers: z.array(
        z.object({ timer_id: z.string(), started_at: z.string(), fires_at: z.string() }),
      ),
      /** The signals and updates its handlers take now (absent when it is not running). */
      signals: z.array(z.string()).optional(),
      updates: z.array(z.string()).optional(),
    }),
    /** The last events of the run's history, oldest first; `timeline_omitted` earlier ones left out. */
    timeline: z.array(
      z.object({ event_id: z.int(), time: z.string(), type: z.string(), summary: z.string() }),
    ),
    timeline_omitted: z.int(),
    failures: z.array(
      z.object({
        event_id: z.int().nullable(),
        time: z.string().nullable(),
        source: z.enum(['activity', 'local_activity', 'workflow_task', 'workflow']),
        activity_type: z.string().nullable(),
        attempt: z.int().nullable(),
        message: z.string(),
      }),
    ),
    /** This run's page in the Temporal Web UI, when TEMPORAL_UI_URL is set. */
    web_ui_url: z.string().nullable(),
  })
  .meta({ id: 'WorkflowInsight' });
export type WorkflowInsightWire = z.input<typeof workflowInsightWireSchema>;

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
): WorkflowSummaryWire {
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
