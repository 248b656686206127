import {
  type Client,
  ScheduleAlreadyRunning,
  ScheduleOverlapPolicy,
  type ScheduleUpdateOptions,
  WorkflowNotFoundError,
} from '@temporalio/client';
import type { Config } from '../config/env.ts';
import { taskQueues } from '../temporal/task-queues.ts';
import { type UpkeepJob, upkeepScheduleIds, upkeepWorkflowTypes } from './upkeep.ts';
import { workflowIds } from './workflow-ids.ts';

/** What each upkeep schedule is: how often it runs and what its workflow is given. */
function upkeepPlans(
  upkeep: Config['upkeep'],
): Record<UpkeepJob, { every: number; args: unknown[] }> {
  return {
    purgeExpired: { every: upkeep.purgeIntervalSeconds, args: [] },
    expireUploads: { every: upkeep.uploadsIntervalSeconds, args: [] },
    customerReminders: { every: upkeep.remindersIntervalSeconds, args: [] },
    // Each run looks back over two intervals: a run that failed is covered by the next.
    reconcilePayments: {
      every: upkeep.reconciliationIntervalSeconds,
      args: [{ lookbackSeconds: 2 * upkeep.reconciliationIntervalSeconds }],
    },
  };
}

/**
 * Creates the upkeep schedules (processes/upkeep.ts), or brings existing ones to the configured
 * intervals: every worker calls it when it starts, so however many start, each schedule exists
 * once. A schedule an operator paused stays paused. Answers the schedule ids.
 */
export async function ensureUpkeepSchedules(
  temporal: Client,
  upkeep: Config['upkeep'],
  taskQueue: string = taskQueues.main,
): Promise<string[]> {
  const plans = upkeepPlans(upkeep);
  const jobs = Object.keys(plans) as UpkeepJob[];
  for (const job of jobs) {
    const { every, args } = plans[job];
    const scheduleId = upkeepScheduleIds[job];
    const options = {
      spec: { intervals: [{ every: `${every}s` }] },
      action: {
        type: 'startWorkflow' as const,
        workflowType: upkeepWorkflowTypes[job],
        workflowId: scheduleId,
        taskQueue,
        args,
      },
      // A run still going when the next is due makes it skip; after an outage one run catches up.
      policies: { overlap: ScheduleOverlapPolicy.SKIP, catchupWindow: `${every}s` },
    };
    try {
      await temporal.schedule.create({ scheduleId, ...options });
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      await temporal.schedule
        .getHandle(scheduleId)
        .update((previous): ScheduleUpdateOptions => ({ ...previous, ...options }));
    }
  }
  return jobs.map((job) => upkeepScheduleIds[job]);
}

/**
 * Before the schedules, the customer reminders were one workflow that slept an hour between
 * passes for ever (`customer-reminders`); its schedule does that now, so a run left from then
 * is ended.
 */
export async function endReminderLoop(temporal: Client): Promise<void> {
  try {
    await temporal.workflow
      .getHandle(workflowIds.customerReminders())
      .terminate(`replaced by the ${upkeepScheduleIds.customerReminders} schedule`);
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
}
