import { defineUpdate } from '@temporalio/workflow';
import type { ConfirmedCheckout } from '../commerce/checkouts/confirm.ts';
import type { CheckoutConfirmation } from '../commerce/checkouts/schemas.ts';

/** The input of the checkout workflow (`checkout:<id>`, workflows/checkout.ts). */
export interface CheckoutInput {
  checkoutId: string;
  /** ISO instant; the checkout row holds the same one. */
  expiresAt: string;
  /**
   * How long a payment (or card setup) waits for its buyer's 3-D Secure step before it is
   * canceled; the workflow's default when absent (and in checkouts started before it was set).
   */
  authenticationTimeoutSeconds?: number;
  /**
   * How long an `incomplete` subscription the checkout made waits for its first payment; the
   * domain's 23 hours when absent (a deployment's tests shorten it).
   */
  incompleteSubscriptionSeconds?: number;
}

export type CheckoutOutcome = 'succeeded' | 'expired';

/**
 * The buyer's confirm. Its handler applies it through an activity (one transaction that
 * validates the fields, matches the customer and redeems the discount), so a refusal comes back
 * to the caller as the API error (see refusalFromWorkflowFailure).
 */
export const confirmCheckoutUpdate = defineUpdate<ConfirmedCheckout, [CheckoutConfirmation]>(
  'confirmCheckout',
);
