import { setTimeout as sleep } from 'node:timers/promises';
import type { Client } from '@temporalio/client';
import type { CustomerMailActivities } from '../activities/customer-mails.ts';
import type { MailActivities } from '../activities/mail/index.ts';
import { customerReminders } from './customer-reminders.ts';
import { customerSignIn } from './customer-sign-in.ts';
import { recordOnOwnWorkers } from './replay-recording.ts';

// The customer mail workflows' activities as they answer with a customer found and reminders
// due, so their paths are recorded without database rows.
const replayActivities: CustomerMailActivities & MailActivities = {
  customerSignInMail: async ({ requestId, email }) => ({
    id: `customer-sign-in:${requestId}`,
    to: email,
    subject: 'Sign in to Replay',
    text: 'Recorded for the replay test.',
    html: '<p>Recorded for the replay test.</p>',
  }),
  sendCustomerReminders: async () => 2,
  sendEmail: async () => ({ messageId: '<replay@tollgate.local>' }),
};

/** A sign-in link asked for by a customer's address: looked up, then mailed. */
export async function recordCustomerSignIn(client: Client): Promise<string> {
  const workflowId = 'replay:customer-sign-in';
  const taskQueue = 'replay-customer-sign-in';
  await recordOnOwnWorkers(client, { taskQueue, activities: replayActivities }, () =>
    client.workflow.execute(customerSignIn, {
      workflowId,
      taskQueue,
      args: [
        {
          requestId: 'replay-request',
          organizationId: 'replay-organization',
          email: 'customer@example.com',
          returnTo: '/portal/subscriptions/replay-subscription',
        },
      ],
    }),
  );
  return workflowId;
}

/** The reminders' first pass, then canceled while waiting for the next (it runs for ever). */
export async function recordCustomerReminders(client: Client): Promise<string> {
  const workflowId = 'replay:customer-reminders';
  const taskQueue = 'replay-customer-reminders';
  await recordOnOwnWorkers(client, { taskQueue, activities: replayActivities }, async () => {
    const handle = await client.workflow.start(customerReminders, { workflowId, taskQueue });
    for (;;) {
      const { events } = await handle.fetchHistory();
      if (events?.some((event) => event.timerStartedEventAttributes)) break;
      await sleep(100);
    }
    await handle.cancel();
    await handle.result().catch(() => undefined);
  });
  return workflowId;
}
