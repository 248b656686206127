import { defineSignal } from '@temporalio/workflow';
import type { RefundOutcome, RefundStatus } from '../domain/refunds.ts';

/** The input of the refund workflow (`refund:<id>`, workflows/refund.ts). */
export interface RefundInput {
  refundId: string;
}

/** How a refund's workflow ended: the refund's final status, or its row never committed. */
export type RefundResult = RefundStatus | 'never_created';

/**
 * Stripe's word on the refund, sent by the Stripe webhook endpoint to the workflow named in the
 * refund's `metadata.workflow_id`.
 */
export const refundOutcomeSignal = defineSignal<[RefundOutcome]>('refundOutcome');
