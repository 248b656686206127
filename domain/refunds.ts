/**
 * The words of a refund, shared by the entity, the API's input schema and the dashboard's refund
 * form (this module has no server-only imports, so the browser bundles it).
 */
export const refundStatuses = ['pending', 'succeeded', 'failed', 'canceled'] as const;
export type RefundStatus = (typeof refundStatuses)[number];

export const refundReasons = [
  'duplicate',
  'fraudulent',
  'customer_request',
  'service_disruption',
  'satisfaction_guarantee',
  'other',
] as const;
export type RefundReason = (typeof refundReasons)[number];

/** A Stripe refund's status (https://docs.stripe.com/api/refunds/object#refund_object-status). */
export type StripeRefundStatus =
  | 'pending'
  | 'requires_action'
  | 'succeeded'
  | 'failed'
  | 'canceled';

/** What Stripe said of a refund: at its creation, in a webhook event, or when asked again. */
export interface RefundOutcome {
  /** Stripe's refund id (`re_…`); null when Stripe refused to create it. */
  processorId: string | null;
  status: StripeRefundStatus;
  /** Stripe's `failure_reason` (or the refusal's code) of a failed refund. */
  failureReason: string | null;
}
