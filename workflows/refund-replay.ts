import type { Client } from '@temporalio/client';
import type { BenefitGrantActivities } from '../activities/benefit-grants.ts';
import type { RefundActivities } from '../activities/refunds.ts';
import { eventually } from '../devstack/eventually.ts';
import { refundOutcomeSignal } from '../processes/refund.ts';
import { refund } from './refund.ts';
import { recordOnOwnWorkers } from './replay-recording.ts';

const processorId = 're_replay';

/**
 * The refund's activities without database or Stripe: Stripe takes it `pending` and, asked
 * again, answers `retrieved`; the settled refund revokes the order's benefits.
 */
function replayRefundActivities(
  retrieved: 'pending' | 'succeeded',
  onTaken: () => void = () => {},
): RefundActivities & Pick<BenefitGrantActivities, 'requestBenefitRevocations'> {
  return {
    awaitRefundRow: async () => {},
    createStripeRefund: async () => {
      onTaken();
      return { processorId, status: 'pending', failureReason: null };
    },
    retrieveStripeRefund: async () => ({ processorId, status: retrieved, failureReason: null }),
    settleRefund: async ({ status }) => ({
      status,
      revokeBenefits: true,
      orderId: 'replay-order',
      customerId: 'replay-customer',
      productId: 'replay-product',
    }),
    requestBenefitRevocations: async () => undefined,
  };
}

/**
 * A refund's whole path, recorded without database or Stripe: Stripe takes it `pending`, the
 * workflow waits, the webhook's signal says it succeeded, the refund settles and the order's
 * benefits are revoked.
 */
export async function recordSucceededRefund(client: Client): Promise<string> {
  const workflowId = 'replay:refund-succeeded';
  const taskQueue = 'replay-refund-succeeded';
  let taken: () => void = () => {};
  const takenByStripe = new Promise<void>((resolve) => {
    taken = resolve;
  });
  const activities = replayRefundActivities('pending', () => taken());
  await recordOnOwnWorkers(client, { taskQueue, activities }, async () => {
    const handle = await client.workflow.start(refund, {
      workflowId,
      taskQueue,
      args: [{ refundId: 'replay-refund' }],
    });
    await takenByStripe;
    // The word comes while the workflow waits for it (its timer started), as it usually does.
    await eventually(
      () => handle.fetchHistory(),
      (history) => (history.events ?? []).some((event) => event.timerStartedEventAttributes),
      { what: 'the refund workflow waiting for the webhook' },
    );
    await handle.signal(refundOutcomeSignal, {
      processorId,
      status: 'succeeded',
      failureReason: null,
    });
    await handle.result();
  });
  return workflowId;
}

/**
 * A refund whose webhook never comes (patched 'refund-asks-stripe-after-a-minute'): after a
 * minute's wait the workflow asks Stripe, which says it succeeded; the refund settles.
 */
export async function recordRefundAskedStripe(client: Client): Promise<string> {
  const workflowId = 'replay:refund-asked-stripe';
  const taskQueue = 'replay-refund-asked-stripe';
  const activities = replayRefundActivities('succeeded');
  await recordOnOwnWorkers(client, { taskQueue, activities }, async () => {
    await client.workflow.execute(refund, {
      workflowId,
      taskQueue,
      args: [{ refundId: 'replay-refund' }],
    });
  });
  return workflowId;
}
