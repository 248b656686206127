import {
  ActivityFailure,
  ApplicationFailure,
  condition,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
} from '@temporalio/workflow';
import type { BenefitGrantActivities } from '../activities/benefit-grants.ts';
import type { RefundActivities } from '../activities/refunds.ts';
import type { RefundOutcome } from '../domain/refunds.ts';
import { type RefundInput, type RefundResult, refundOutcomeSignal } from '../processes/refund.ts';
import { awaitingCommitOptions, stepOptions } from './activity-options.ts';

type FinalOutcome = RefundOutcome & { status: 'succeeded' | 'failed' | 'canceled' };

const isFinal = (outcome: RefundOutcome | undefined): outcome is FinalOutcome =>
  outcome?.status === 'succeeded' || outcome?.status === 'failed' || outcome?.status === 'canceled';

/**
 * The Stripe calls, which may hang: activities of their own, each with its own timeout. Every
 * step is idempotent (the Stripe call under the refund's idempotency key) and retried until
 * Stripe or the database answers again.
 */
const stripeCalls = proxyActivities<RefundActivities>(stepOptions);

/** One transaction each: local activities, run within the workflow task that reaches them. */
const steps = proxyLocalActivities<RefundActivities & BenefitGrantActivities>(stepOptions);

// The workflow starts just before the refund's transaction commits: its row is awaited about
// half a minute; a refund whose transaction rolled back never appears, and the workflow ends.
const committed = proxyLocalActivities<RefundActivities>(awaitingCommitOptions);

/**
 * A refund Stripe has not decided yet is asked about again when the webhook is late: after a
 * minute, then twice as long each time up to an hour. A webhook lost on its way (a process killed
 * mid-delivery) then costs a minute, not ten. Runs begun before this change wait ten minutes each
 * time (their histories replay so).
 */
const asksStripeSooner = 'refund-asks-stripe-after-a-minute';
const firstWebhookWaitMs = 60_000;
const longestWebhookWaitMs = 3_600_000;
const oldWebhookWaitMs = 600_000;

/**
 * The life of one refund (`refund:<id>`): Stripe is asked to give the money back; a refund Stripe
 * has not decided yet waits for the webhook's word, asking Stripe itself when it is long in
 * coming. The outcome settles the refund and its order; a succeeded refund that asked for it
 * then revokes the benefits the order gave.
 */
export async function refund({ refundId }: RefundInput): Promise<RefundResult> {
  try {
    await committed.awaitRefundRow({ refundId });
  } catch (error) {
    if (error instanceof ActivityFailure || error instanceof ApplicationFailure) {
      return 'never_created';
    }
    throw error;
  }
  let signalled: RefundOutcome | undefined;
  setHandler(refundOutcomeSignal, (outcome) => {
    signalled = outcome;
  });

  let outcome = await stripeCalls.createStripeRefund({ refundId });
  const asksSooner = patched(asksStripeSooner);
  let webhookWaitMs = asksSooner ? firstWebhookWaitMs : oldWebhookWaitMs;
  while (!isFinal(outcome)) {
    if (await condition(() => isFinal(signalled), webhookWaitMs)) {
      outcome = signalled as FinalOutcome;
    } else if (outcome.processorId) {
      outcome = await stripeCalls.retrieveStripeRefund({ processorId: outcome.processorId });
      if (asksSooner) webhookWaitMs = Math.min(webhookWaitMs * 2, longestWebhookWaitMs);
    }
  }

  const settled = await steps.settleRefund({
    refundId,
    status: outcome.status,
    failureReason: outcome.failureReason,
  });
  if (settled.status === 'succeeded' && settled.revokeBenefits) {
    await steps.requestBenefitRevocations({
      customerId: settled.customerId,
      productId: settled.productId,
      orderId: settled.orderId,
    });
  }
  return settled.status;
}
