import { defineSignal } from '@temporalio/workflow';
import type { PaymentOutcome } from '../domain/payments.ts';

/** Stripe's word on a payment, for the workflow its PaymentIntent names (a checkout, a renewal). */
export const paymentOutcomeSignal = defineSignal<[PaymentOutcome]>('paymentOutcome');

/** How the 3-D Secure step of a card being saved (a trial's SetupIntent) ended. */
export interface SetupOutcome {
  setupIntentId: string;
  status: 'succeeded' | 'failed';
  paymentMethodId: string | null;
  declineCode: string | null;
  message: string | null;
}

/** Stripe's word on a SetupIntent that waited for its holder, for the workflow it names. */
export const setupOutcomeSignal = defineSignal<[SetupOutcome]>('setupOutcome');

/**
 * The buyer's page says the 3-D Secure step ended (Stripe.js finished, or the buyer came back
 * from the challenge): the checkout's workflow asks Stripe at once rather than wait for the
 * webhook.
 */
export const authenticationEndedSignal = defineSignal('authenticationEnded');
