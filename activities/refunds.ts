import { type SettledRefund, settleRefund } from '../commerce/refunds/service.ts';
import { Refund } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import type { RefundOutcome } from '../domain/refunds.ts';
import type { StripeClient } from '../integrations/stripe/client.ts';
import { readStripeRefund, requestStripeRefund } from '../integrations/stripe/refunds.ts';
import { reverseRefundTax } from '../integrations/stripe/tax-transactions.ts';
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

    /** Asks Stripe for the refund (see requestStripeRefund). */
    createStripeRefund({ refundId }: { refundId: string }): Promise<RefundOutcome> {
      return requestStripeRefund({ orm, stripe }, refundId, workflowIds.refund(refundId));
    },

    /** Stripe's refund as it is now: the fallback when its webhook event does not come. */
    retrieveStripeRefund({ processorId }: { processorId: string }): Promise<RefundOutcome> {
      return readStripeRefund(stripe, processorId);
    },

    /**
     * Applies Stripe's final word to the refund and its order (see settleRefund); a succeeded
     * refund then reverses its share of the order's Stripe Tax transaction (a retry settles
     * nothing twice and Stripe answers the same reversal).
     */
    async settleRefund({
      refundId,
      status,
      failureReason,
    }: {
      refundId: string;
      status: 'succeeded' | 'failed' | 'canceled';
      failureReason: string | null;
    }): Promise<SettledRefund> {
      const settled = await settleRefund(orm.em.fork(), refundId, { status, failureReason });
      if (settled.status === 'succeeded') await reverseRefundTax({ orm, stripe }, refundId);
      return settled;
    },
  };
}

export type RefundActivities = ReturnType<typeof createRefundActivities>;
