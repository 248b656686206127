import type { Client } from '@temporalio/client';
import { upkeepWorkflowTypes } from '../processes/upkeep.ts';
import { taskQueues } from '../temporal/task-queues.ts';

/** One run of an upkeep job, as its schedule starts it, through the test run's worker process. */
export function recordUpkeep(
  job: keyof typeof upkeepWorkflowTypes,
  args: unknown[] = [],
): (client: Client) => Promise<string> {
  return async (client) => {
    const workflowId = `replay:upkeep-${job}`;
    await client.workflow.execute(upkeepWorkflowTypes[job], {
      workflowId,
      taskQueue: taskQueues.main,
      args,
    });
    return workflowId;
  };
}
