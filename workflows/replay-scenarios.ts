import type { Client } from '@temporalio/client';
import { taskQueues } from '../temporal/task-queues.ts';
import { purgeExpiredRecords } from './purge-expired-records.ts';
import { sendEmail } from './send-email.ts';

/**
 * The runs whose histories are recorded into __fixtures__/histories (`npm run record-histories`)
 * and replayed by the test suite. A new workflow, or a new path through one, adds a scenario.
 */
export const replayScenarios: Record<string, (client: Client) => Promise<string>> = {
  'purge-expired-records': async (client) => {
    const workflowId = 'replay:purge-expired-records';
    await client.workflow.execute(purgeExpiredRecords, {
      workflowId,
      taskQueue: taskQueues.main,
      args: [{ before: '2000-01-01T00:00:00.000Z' }],
    });
    return workflowId;
  },
  'send-email': async (client) => {
    const workflowId = 'replay:send-email';
    await client.workflow.execute(sendEmail, {
      workflowId,
      taskQueue: taskQueues.main,
      args: [
        {
          id: 'replay-send-email',
          to: 'replay@example.com',
          subject: 'Replay',
          text: 'Recorded for the replay test.',
          html: '<p>Recorded for the replay test.</p>',
        },
      ],
    });
    return workflowId;
  },
};
