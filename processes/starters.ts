import {
  type Client,
  type SignalDefinition,
  type UpdateDefinition,
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
} from '@temporalio/client';
import type { SubscriptionChangeResult } from '../domain/subscription-schedule.ts';
import type { EmailMessage } from '../integrations/mail/transport.ts';
import { taskQueues } from '../temporal/task-queues.ts';
import type { BenefitGrantInput, BenefitGrantRequest } from './benefit-grant.ts';
import { benefitGrantRequest } from './benefit-grant.ts';
import type { CheckoutInput, CheckoutOutcome } from './checkout.ts';
import type { CustomerSignInInput } from './customer-mails.ts';
import type { InvitationInput, InvitationOutcome } from './invitation.ts';
import type {
  PurgeExpiredRecordsInput,
  PurgeExpiredRecordsState,
} from './purge-expired-records.ts';
import type { RefundInput, RefundResult } from './refund.ts';
import { clockAdvancedSignal, type SubscriptionInput } from './subscription-messages.ts';
import type { TestClockAdvance } from './test-clock-advance.ts';
import { type WebhookEndpointInput, webhookEventsQueued } from './webhook-endpoint.ts';
import { workflowIds, workflowTypes } from './workflow-ids.ts';

/**
 * The typed starters: every workflow is started (or signalled with start) here, by its type
 * name with typed arguments, so nothing outside the worker imports workflow code. `taskQueue`:
 * tests pass a queue of their own to reach a worker they started.
 */

type CheckoutWorkflow = (input: CheckoutInput) => Promise<CheckoutOutcome>;
type RefundWorkflow = (input: RefundInput) => Promise<RefundResult>;
type SubscriptionWorkflow = (input: SubscriptionInput) => Promise<void>;
type TestClockAdvanceWorkflow = (advance: TestClockAdvance) => Promise<void>;
type InvitationWorkflow = (input: InvitationInput) => Promise<InvitationOutcome>;
type SendEmailWorkflow = (message: EmailMessage) => Promise<{ messageId: string }>;
type CustomerSignInWorkflow = (input: CustomerSignInInput) => Promise<void>;
type PurgeExpiredRecordsWorkflow = (
  input: PurgeExpiredRecordsInput,
) => Promise<PurgeExpiredRecordsState>;

/** The checkout's workflow, which expires it or sees it paid. */
export function startCheckout(
  temporal: Client,
  input: CheckoutInput,
  taskQueue: string = taskQueues.main,
) {
  return temporal.workflow.start<CheckoutWorkflow>(workflowTypes.checkout, {
    workflowId: workflowIds.checkout(input.checkoutId),
    taskQueue,
    args: [input],
  });
}

/** The refund's workflow, which asks Stripe and settles the refund. */
export function startRefund(temporal: Client, refundId: string, taskQueue = taskQueues.main) {
  return temporal.workflow.start<RefundWorkflow>(workflowTypes.refund, {
    workflowId: workflowIds.refund(refundId),
    taskQueue,
    args: [{ refundId }],
  });
}

/**
 * The workflow that lives the subscription's whole life (`subscription:<id>`); starting it
 * again finds the running one.
 */
export function startSubscription(
  temporal: Client,
  subscriptionId: string,
  taskQueue: string = taskQueues.main,
) {
  return temporal.workflow.start<SubscriptionWorkflow>(workflowTypes.subscription, {
    workflowId: workflowIds.subscription(subscriptionId),
    taskQueue,
    args: [{ subscriptionId }],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

/**
 * Sends the subscription's workflow an update, starting the workflow when it does not run, and
 * answers what the update returns.
 */
export function updateSubscription<Arg, Result = SubscriptionChangeResult>(
  temporal: Client,
  subscriptionId: string,
  update: UpdateDefinition<Result, [Arg]>,
  arg: Arg,
): Promise<Result> {
  return temporal.workflow.executeUpdateWithStart(update, {
    args: [arg],
    startWorkflowOperation: new WithStartWorkflowOperation<SubscriptionWorkflow>(
      workflowTypes.subscription,
      {
        workflowId: workflowIds.subscription(subscriptionId),
        taskQueue: taskQueues.main,
        args: [{ subscriptionId }],
        workflowIdConflictPolicy: 'USE_EXISTING',
      },
    ),
  });
}

/** Tells the subscription's workflow its test clock moved, starting it when it does not run. */
export function signalClockAdvanced(
  temporal: Client,
  subscriptionId: string,
  advance: TestClockAdvance,
  taskQueue: string = taskQueues.main,
) {
  const workflowId = workflowIds.subscription(subscriptionId);
  const input: SubscriptionInput = { subscriptionId };
  const start = { workflowId, taskQueue, input };
  return signalWithStart(temporal, workflowTypes.subscription, start, clockAdvancedSignal, advance);
}

/**
 * The advance of a test clock to its new time (one workflow per clock and time). An advance
 * retried after its transaction failed to commit joins the workflow the failed attempt started,
 * which still waits for that commit, instead of failing on it.
 */
export function startTestClockAdvance(temporal: Client, advance: TestClockAdvance) {
  return temporal.workflow.start<TestClockAdvanceWorkflow>(workflowTypes.testClockAdvance, {
    workflowId: workflowIds.testClockAdvance(advance.testClockId, new Date(advance.frozenTime)),
    taskQueue: taskQueues.main,
    args: [advance],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

/**
 * Signals the grant workflow of a customer and benefit, starting it when none runs (one
 * workflow per customer × benefit: several orders granting a benefit meet in the same one).
 */
export function requestGrantChange(
  temporal: Client,
  input: BenefitGrantInput,
  request: BenefitGrantRequest,
  taskQueue: string = taskQueues.main,
) {
  const workflowId = workflowIds.benefitGrant(input.customerId, input.benefitId);
  const start = { workflowId, taskQueue, input };
  return signalWithStart(temporal, workflowTypes.benefitGrant, start, benefitGrantRequest, request);
}

/** The invitation's workflow: its mails, reminder, answers and expiry. */
export function startInvitation(temporal: Client, input: InvitationInput) {
  return temporal.workflow.start<InvitationWorkflow>(workflowTypes.invitation, {
    workflowId: workflowIds.invitation(input.invitationId),
    taskQueue: taskQueues.main,
    args: [input],
  });
}

/** Sends one mail through the sendEmail workflow, named by the mail's id (`email:<id>`). */
export function sendEmail(temporal: Client, message: EmailMessage) {
  return temporal.workflow.start<SendEmailWorkflow>(workflowTypes.sendEmail, {
    workflowId: workflowIds.email(message.id),
    taskQueue: taskQueues.main,
    args: [message],
  });
}

/**
 * Mails a sign-in link to the customer at `input.email`, if there is one: the request's caller
 * learns nothing either way (the lookup happens in the workflow).
 */
export function startCustomerSignIn(temporal: Client, input: CustomerSignInInput) {
  return temporal.workflow.start<CustomerSignInWorkflow>(workflowTypes.customerSignIn, {
    workflowId: workflowIds.customerSignIn(input.requestId),
    taskQueue: taskQueues.main,
    args: [input],
  });
}

/**
 * Sends a customer mail through the sendEmail workflow, once for good: a mail whose workflow ran
 * before (however long ago Temporal still remembers it) is not sent again, and that is no error.
 */
export async function sendCustomerEmail(temporal: Client, message: EmailMessage): Promise<void> {
  try {
    await temporal.workflow.start<SendEmailWorkflow>(workflowTypes.sendEmail, {
      workflowId: workflowIds.email(message.id),
      taskQueue: taskQueues.main,
      args: [message],
      workflowIdReusePolicy: 'REJECT_DUPLICATE',
    });
  } catch (error) {
    if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
  }
}

/** The purge of records expired before `before`; a retried request joins the running one. */
export function startPurgeExpiredRecords(temporal: Client, before: Date) {
  return temporal.workflow.start<PurgeExpiredRecordsWorkflow>(workflowTypes.purgeExpiredRecords, {
    workflowId: workflowIds.purgeExpiredRecords(before),
    taskQueue: taskQueues.main,
    args: [{ before: before.toISOString() }],
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
}

/** Tells an endpoint's delivery workflow it has events, starting it when it does not run. */
export function wakeWebhookEndpoint(
  temporal: Client,
  input: WebhookEndpointInput,
  taskQueue: string,
) {
  const start = { workflowId: workflowIds.webhookEndpoint(input.endpointId), taskQueue, input };
  return signalWithStart(temporal, workflowTypes.webhookEndpoint, start, webhookEventsQueued);
}

/**
 * Signals workflow `workflowId`, starting it with `input` first when it does not run. The
 * exported starters type `input`; here it is any workflow's.
 */
function signalWithStart<Args extends unknown[]>(
  temporal: Client,
  workflowType: string,
  { workflowId, taskQueue, input }: { workflowId: string; taskQueue: string; input: unknown },
  signal: SignalDefinition<Args>,
  ...signalArgs: Args
) {
  return temporal.workflow.signalWithStart(workflowType, {
    workflowId,
    taskQueue,
    args: [input],
    signal: signal as SignalDefinition<unknown[]>,
    signalArgs,
  });
}
