import {
  ActivityFailure,
  ApplicationFailure,
  condition,
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

/** How long the webhook's word is awaited before Stripe is asked; then asked again as often. */
const webhookWait = '10 minutes';

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
  while (!isFinal(outcome)) {
    if (await condition(() => isFinal(signalled), webhookWait)) {
      outcome = signalled as FinalOutcome;
    } else if (outcome.processorId) {
      outcome = await stripeCalls.retrieveStripeRefund({ processorId: outcome.processorId });
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
