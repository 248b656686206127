import type { Client } from '@temporalio/client';
import type { BenefitGrantActivities } from '../activities/benefit-grants.ts';
import type { RefundActivities } from '../activities/refunds.ts';
import { eventually } from '../devstack/eventually.ts';
import { refundOutcomeSignal } from '../processes/refund.ts';
import { refund } from './refund.ts';
import { recordOnOwnWorkers } from './replay-recording.ts';

/**
 * A refund's whole path, recorded without database or Stripe: Stripe takes it `pending`, the
 * workflow waits, the webhook's signal says it succeeded, the refund settles and the order's
 * benefits are revoked.
 */
export async function recordSucceededRefund(client: Client): Promise<string> {
  const workflowId = 'replay:refund-succeeded';
  const taskQueue = 'replay-refund-succeeded';
  const processorId = 're_replay';
  let taken: () => void = () => {};
  const takenByStripe = new Promise<void>((resolve) => {
    taken = resolve;
  });
  const activities: RefundActivities & Pick<BenefitGrantActivities, 'requestBenefitRevocations'> = {
    awaitRefundRow: async () => {},
    createStripeRefund: async () => {
      taken();
      return { processorId, status: 'pending', failureReason: null };
    },
    retrieveStripeRefund: async () => ({ processorId, status: 'pending', failureReason: null }),
    settleRefund: async ({ status }) => ({
      status,
      revokeBenefits: true,
      orderId: 'replay-order',
      customerId: 'replay-customer',
      productId: 'replay-product',
    }),
    requestBenefitRevocations: async () => undefined,
  };
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
