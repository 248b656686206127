import Stripe from 'stripe';
import {
  recordRefundProcessorId,
  refundChargeOf,
  refundOutcomeOf,
  type SettledRefund,
  settleRefund,
} from '../commerce/refunds/service.ts';
import { Refund } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import type { RefundOutcome } from '../domain/refunds.ts';
import type { StripeClient } from '../integrations/stripe/client.ts';
import { workflowIds } from '../processes/workflow-ids.ts';

export type { SettledRefund };

/** The steps of the refund workflow: Stripe's refund, asked and read, and its settlement. */
export function createRefundActivities({ orm, stripe }: { orm: Orm; stripe: StripeClient }) {
  return {
    /** The refund's row, committed by the API just after it started this workflow. */
    async awaitRefundRow({ refundId }: { refundId: string }): Promise<void> {
      if (!(await orm.em.fork().count(Refund, { id: refundId }))) {
        throw new Error(`refund ${refundId} is not (yet) in the database`);
      }
    },

    /**
     * Asks Stripe to give the refund's amount and tax back to the card of the order's payment,
     * under the refund's idempotency key (a retry gets the first answer, never a second refund);
     * Stripe's id is kept on the refund. Stripe refusing the refund outright (the charge refunded
     * already, say) is an outcome, `failed`, which frees the refund's amount.
     */
    async createStripeRefund({ refundId }: { refundId: string }): Promise<RefundOutcome> {
      const charge = await refundChargeOf(orm.em.fork(), refundId);
      let refund: Stripe.Refund;
      try {
        refund = await stripe.refunds.create(
          {
            payment_intent: charge.paymentIntentId,
            amount: charge.amount,
            metadata: {
              refund_id: refundId,
              workflow_id: workflowIds.refund(refundId),
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
    },

    /** Stripe's refund as it is now: the fallback when its webhook event does not come. */
    async retrieveStripeRefund({ processorId }: { processorId: string }): Promise<RefundOutcome> {
      return refundOutcomeOf(await stripe.refunds.retrieve(processorId));
    },

    /** Applies Stripe's final word to the refund and its order (see settleRefund). */
    settleRefund({
      refundId,
      status,
      failureReason,
    }: {
      refundId: string;
      status: 'succeeded' | 'failed' | 'canceled';
      failureReason: string | null;
    }): Promise<SettledRefund> {
      return settleRefund(orm.em.fork(), refundId, { status, failureReason });
    },
  };
}

export type RefundActivities = ReturnType<typeof createRefundActivities>;
