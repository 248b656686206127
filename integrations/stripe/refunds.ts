import Stripe from 'stripe';
import {
  recordRefundProcessorId,
  refundChargeOf,
  refundOutcomeOf,
} from '../../commerce/refunds/service.ts';
import type { Orm } from '../../db/orm.ts';
import type { RefundOutcome } from '../../domain/refunds.ts';
import type { StripeClient } from './client.ts';

/**
 * Asks Stripe to give the refund's amount and tax (less its part for the customer's balance)
 * back to the card of the order's payment,
 * under the refund's idempotency key (a retry gets the first answer, never a second refund);
 * Stripe's id is kept on the refund, and its metadata names the workflow (`workflowId`) the
 * Stripe webhook signals. Stripe refusing the refund outright (the charge refunded already,
 * say) is an outcome, `failed`, which frees the refund's amount.
 */
export async function requestStripeRefund(
  { orm, stripe }: { orm: Orm; stripe: StripeClient },
  refundId: string,
  workflowId: string,
): Promise<RefundOutcome> {
  const charge = await refundChargeOf(orm.em.fork(), refundId);
  // All of it goes back to the customer's balance: nothing to ask Stripe, settled at once.
  if (!charge.paymentIntentId)
    return { processorId: null, status: 'succeeded', failureReason: null };
  let refund: Stripe.Refund;
  try {
    refund = await stripe.refunds.create(
      {
        payment_intent: charge.paymentIntentId,
        amount: charge.amount,
        metadata: {
          refund_id: refundId,
          workflow_id: workflowId,
          organization_id: charge.organizationId,
        },
      },
      { idempotencyKey: `refund:${refundId}` },
    );
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError) {
      return {
        processorId: null,
        status: 'failed',
        failureReason: error.code ?? error.message,
      };
    }
    // Anything else (5xx, timeouts, credentials being fixed) is asked again: a refund the
    // workflow gave up on would hold its amount of the order for good.
    throw error;
  }
  await recordRefundProcessorId(orm.em.fork(), refundId, refund.id);
  return refundOutcomeOf(refund);
}

/** Stripe's refund `processorId` as it is now. */
export async function readStripeRefund(
  stripe: StripeClient,
  processorId: string,
): Promise<RefundOutcome> {
  return refundOutcomeOf(await stripe.refunds.retrieve(processorId));
}
