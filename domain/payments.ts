/** What Stripe finally said of one payment attempt (see processes/payment-outcome.ts). */
export type PaymentOutcomeStatus = 'succeeded' | 'failed' | 'requires_action';

/**
 * What Stripe finally said about one payment attempt, sent by the Stripe webhook endpoint to
 * the workflow named in the PaymentIntent's `metadata.workflow_id` (a checkout, a renewal).
 */
export interface PaymentOutcome {
  /** Our Payment row. */
  paymentId: string;
  paymentIntentId: string;
  status: PaymentOutcomeStatus;
  /** Stripe's decline code (e.g. `insufficient_funds`), or its error code when it has none. */
  declineCode: string | null;
  /** The processor's message for the buyer. */
  message: string | null;
  cardBrand: string | null;
  cardLast4: string | null;
}
