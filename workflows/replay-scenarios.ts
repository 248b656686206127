import type { Client, WorkflowHandle } from '@temporalio/client';
import type { InvitationActivities } from '../activities/invitations.ts';
import type { EmailMessage, MailActivities } from '../activities/mail/index.ts';
import { answerInvitation } from '../processes/invitation.ts';
import { taskQueues } from '../temporal/task-queues.ts';
import {
  recordBenefitGrant,
  recordBenefitGrantCycled,
  recordBenefitGrantUpdated,
} from './benefit-grant-replay.ts';
import {
  recordAuthenticatedCheckout,
  recordAuthenticatedTrialCheckout,
  recordCheckoutPaidFromBalance,
  recordIncompleteSubscriptionExpired,
  recordIncompleteSubscriptionPaid,
  recordPaidCheckout,
  recordReportedAuthenticationCheckout,
  recordTrialCheckout,
} from './checkout-replay.ts';
import { recordCustomerReminders, recordCustomerSignIn } from './customer-mails-replay.ts';
import { invitation } from './invitation.ts';
import { purgeExpiredRecords } from './purge-expired-records.ts';
import { recordRefundAskedStripe, recordSucceededRefund } from './refund-replay.ts';
import { recordOnOwnWorkers } from './replay-recording.ts';
import { sendEmail } from './send-email.ts';
import {
  recordSubscriptionAuthenticatedRetry,
  recordSubscriptionContinuedAsNew,
  recordSubscriptionDunning,
  recordSubscriptionRenewed,
  recordSubscriptionRenewedWithoutCycle,
  recordSubscriptionRetriesKeepSchedule,
} from './subscription-replay.ts';
import { recordUpkeep } from './upkeep-replay.ts';
import {
  recordWebhookEndpointDelivered,
  recordWebhookEndpointRetried,
} from './webhook-endpoint-replay.ts';

const replayMail = (id: string, to: string): EmailMessage => ({
  id,
  to,
  subject: 'Replay',
  text: 'Recorded for the replay test.',
  html: '<p>Recorded for the replay test.</p>',
});

// The invitation workflow's activities as they answer for a pending invitation, so its paths
// are recorded without database rows.
const replayInvitationActivities: InvitationActivities & MailActivities = {
  invitationMail: async ({ mailId }) => replayMail(mailId, 'invitee@example.com'),
  sendEmail: async () => ({ messageId: '<replay@tollgate.local>' }),
  answerInvitation: async ({ invitationId, action, userId }) => {
    const invitation = {
      id: invitationId,
      organizationId: 'replay-organization',
      email: 'invitee@example.com',
      role: 'member',
      teamId: null,
      status: action === 'accept' ? 'accepted' : action === 'reject' ? 'rejected' : 'canceled',
      expiresAt: new Date('2000-01-03T00:00:00.000Z'),
      inviterId: 'replay-inviter',
    } as const;
    const member = {
      id: 'replay-member',
      organizationId: 'replay-organization',
      userId,
      role: 'member',
      createdAt: new Date('2000-01-01T00:00:00.000Z'),
    };
    return { applied: true, invitation, member: action === 'accept' ? member : null };
  },
  renewInvitation: async () => ({ applied: false }),
  expireInvitation: async ({ mailId }) => replayMail(mailId, 'inviter@example.com'),
};

/**
 * Runs one invitation on a worker of its own, with the activities above, until `drive` has
 * done its part and the workflow ended.
 */
async function recordInvitation(
  client: Client,
  name: string,
  lifetimeSeconds: number,
  drive: (handle: WorkflowHandle<typeof invitation>) => Promise<unknown>,
): Promise<string> {
  const workflowId = `replay:${name}`;
  const taskQueue = `replay-${name}`;
  await recordOnOwnWorkers(
    client,
    { taskQueue, activities: replayInvitationActivities },
    async () => {
      const handle = await client.workflow.start(invitation, {
        workflowId,
        taskQueue,
        args: [
          {
            invitationId: name,
            expiresAt: new Date(Date.now() + lifetimeSeconds * 1000).toISOString(),
            remindBeforeSeconds: 2,
            acceptUrl: `https://tollgate.example/accept-invitation/${name}`,
          },
        ],
      });
      await drive(handle);
      await handle.result();
    },
  );
  return workflowId;
}

/** One mail sent through the test run's worker process. */
async function recordSendEmail(client: Client, name: string): Promise<string> {
  const workflowId = `replay:${name}`;
  await client.workflow.execute(sendEmail, {
    workflowId,
    taskQueue: taskQueues.main,
    args: [replayMail(`replay-${name}`, 'replay@example.com')],
  });
  return workflowId;
}

async function recordPurge(client: Client, name: string): Promise<string> {
  const workflowId = `replay:${name}`;
  await client.workflow.execute(purgeExpiredRecords, {
    workflowId,
    taskQueue: taskQueues.main,
    args: [{ before: '2000-01-01T00:00:00.000Z' }],
  });
  return workflowId;
}

/** A scenario's recorded workflow: its id (the latest run's history), or one run of it. */
export type RecordedWorkflow = string | { workflowId: string; runId: string };

/**
 * The runs whose histories are recorded into __fixtures__/histories (`npm run record-histories`)
 * and replayed by the test suite. A new workflow, or a new path through one, adds a scenario.
 */
export const replayScenarios: Record<string, (client: Client) => Promise<RecordedWorkflow>> = {
  'purge-expired-records': (client) => recordPurge(client, 'purge-expired-records'),
  // Recorded again after patched('delete-abandoned-uploads'): the purge's new step.
  'purge-expired-records-with-uploads': (client) =>
    recordPurge(client, 'purge-expired-records-with-uploads'),
  // Recorded again after patched('delete-customer-records'): the customer portal's records.
  'purge-expired-records-with-customer-records': (client) =>
    recordPurge(client, 'purge-expired-records-with-customer-records'),
  'send-email': (client) => recordSendEmail(client, 'send-email'),
  // Recorded again once payloads were encrypted (temporal/payload-codec.ts): the replay test
  // decrypts this one, and reads the others, recorded before, as they are.
  'send-email-encrypted': (client) => recordSendEmail(client, 'send-email-encrypted'),
  'invitation-accepted': (client) =>
    recordInvitation(client, 'invitation-accepted', 60, (handle) =>
      handle.executeUpdate(answerInvitation, {
        args: [{ action: 'accept', userId: 'replay-user', membershipLimit: 100 }],
      }),
    ),
  // Mailed, reminded 2 s before expiry, expired after 4 s, inviter told.
  'invitation-expired': (client) =>
    recordInvitation(client, 'invitation-expired', 4, async () => undefined),
  'checkout-paid': (client) => recordPaidCheckout(client),
  // After patched('grant-benefits-in-the-checkout'): the grants a local activity of its own.
  'checkout-paid-granting-benefits': (client) =>
    recordPaidCheckout(client, 'checkout-paid-granting-benefits'),
  'checkout-trial-subscription': recordTrialCheckout,
  'checkout-authenticated': recordAuthenticatedCheckout,
  'checkout-authenticated-trial': recordAuthenticatedTrialCheckout,
  'checkout-authentication-reported': recordReportedAuthenticationCheckout,
  'checkout-incomplete-subscription-paid': recordIncompleteSubscriptionPaid,
  'checkout-incomplete-subscription-expired': recordIncompleteSubscriptionExpired,
  // A returning customer's balance pays the whole purchase: no charge, no card (issue 22).
  'checkout-paid-from-balance': recordCheckoutPaidFromBalance,
  'customer-sign-in': recordCustomerSignIn,
  'customer-reminders': recordCustomerReminders,
  'refund-succeeded': recordSucceededRefund,
  // After patched('refund-asks-stripe-after-a-minute'): no webhook; Stripe asked after 60 s.
  'refund-asked-stripe': recordRefundAskedStripe,
  'benefit-grant': recordBenefitGrant,
  'benefit-grant-cycled': recordBenefitGrantCycled,
  'benefit-grant-updated': recordBenefitGrantUpdated,
  'webhook-endpoint-delivered': recordWebhookEndpointDelivered,
  'webhook-endpoint-retried': recordWebhookEndpointRetried,
  'subscription-renewed': recordSubscriptionRenewed,
  'subscription-dunning': recordSubscriptionDunning,
  'subscription-renewed-without-cycle': recordSubscriptionRenewedWithoutCycle,
  // After patched('retries-outside-schedule-keep-it'): finance's and the customer's retries.
  'subscription-retries-keep-schedule': recordSubscriptionRetriesKeepSchedule,
  'subscription-authenticated-retry': recordSubscriptionAuthenticatedRetry,
  // After patched('continue-as-new-in-a-task-of-its-own'): twelve renewals, then the next run.
  'subscription-continued-as-new': recordSubscriptionContinuedAsNew,
  // The periodic jobs the upkeep schedules start (processes/upkeep-schedules.ts).
  'upkeep-purge-expired': recordUpkeep('purgeExpired'),
  'upkeep-expire-uploads': recordUpkeep('expireUploads'),
  'upkeep-customer-reminders': recordUpkeep('customerReminders'),
  'upkeep-reconcile-payments': recordUpkeep('reconcilePayments', [{ lookbackSeconds: 172_800 }]),
};
