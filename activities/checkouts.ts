import type { Client } from '@temporalio/client';
import { type ConfirmedCheckout, confirmCheckout } from '../commerce/checkouts/confirm.ts';
import {
  awaitCheckoutAuthentication,
  type CheckoutAuthentication,
  type CompletedCheckout,
  completeCheckout,
  expireCheckout,
  failCheckoutPayment,
  openIncompleteSubscription,
} from '../commerce/checkouts/outcomes.ts';
import type { CheckoutConfirmation } from '../commerce/checkouts/schemas.ts';
import { sendDefaultCardToStripe } from '../commerce/customer-portal/service.ts';
import { expireIncompleteSubscription } from '../commerce/subscriptions/service.ts';
import { Checkout, type CheckoutPaymentError } from '../db/entities/checkout.ts';
import type { Orm } from '../db/orm.ts';
import type { StripeClient } from '../integrations/stripe/client.ts';
import { recordOrderTaxTransaction } from '../integrations/stripe/tax-transactions.ts';
import { toActivityFailure } from '../processes/activity-errors.ts';
import { startSubscription } from '../processes/starters.ts';

export type { CompletedCheckout, ConfirmedCheckout };

/** The buyer's confirm as the workflow hands it to its activity. */
export interface ConfirmCheckoutInput {
  checkoutId: string;
  /** Names this confirm: a retry finds its own work done. */
  confirmId: string;
  confirmation: CheckoutConfirmation;
}

/** The checkout whose time is up. */
export interface ExpireCheckoutInput {
  checkoutId: string;
}

/** A confirmed checkout's settlement: its payment, and the card kept for renewals. */
export interface CompleteCheckoutInput {
  checkoutId: string;
  paymentId: string | null;
  /** Absent from histories recorded before cards were kept. */
  paymentMethodId?: string | null;
}

/** The checkout whose payment (or card setup) waits for the buyer's 3-D Secure step. */
export interface AwaitCheckoutAuthenticationInput {
  checkoutId: string;
  authentication: CheckoutAuthentication;
}

/** The checkout whose payment was declined, with the processor's reason. */
export interface FailCheckoutPaymentInput {
  checkoutId: string;
  paymentError: CheckoutPaymentError;
}

/** The checkout whose first payment was not made at once. */
export interface OpenIncompleteSubscriptionInput {
  checkoutId: string;
}

/** The `incomplete` subscription whose time to be paid is up. */
export interface ExpireIncompleteSubscriptionInput {
  subscriptionId: string;
}

/** The subscription a checkout made, and the task queue its workflow runs on. */
export interface StartCheckoutSubscriptionInput {
  subscriptionId: string;
  taskQueue: string;
}

/**
 * The steps of the checkout workflow that change the checkout, each one transaction of the
 * checkouts and orders services, each safe to run again; and the start of the subscription it
 * made. `publicUrl`: checkouts and orders carry links to the hosted pages, under the API's
 * public URL.
 */
export function createCheckoutActivities(
  { orm, temporal, stripe }: { orm: Orm; temporal: Client; stripe: StripeClient },
  publicUrl: string,
) {
  return {
    /** The buyer's confirm (see confirmCheckout); a refusal fails the update with its API error. */
    async confirmCheckout({
      checkoutId,
      confirmId,
      confirmation,
    }: ConfirmCheckoutInput): Promise<ConfirmedCheckout> {
      try {
        return await confirmCheckout(
          orm.em.fork(),
          checkoutId,
          confirmation,
          confirmId,
          publicUrl,
          stripe,
        );
      } catch (error) {
        return toActivityFailure(error);
      }
    },

    /**
     * Expires the checkout if it is still open when its time is up. The workflow starts before
     * the creating transaction commits: a row not there yet fails the attempt, to be retried.
     */
    async expireCheckout({ checkoutId }: ExpireCheckoutInput): Promise<void> {
      const em = orm.em.fork();
      if (!(await em.count(Checkout, { id: checkoutId }))) {
        throw new Error(`checkout ${checkoutId} is not (yet) in the database`);
      }
      await expireCheckout(em, checkoutId, publicUrl);
    },

    /**
     * The paid (or free) checkout's order, subscription and success (see completeCheckout);
     * `paymentMethodId`: the card saved for the subscription's renewals, told to Stripe as the
     * customer's default when it became theirs.
     */
    async completeCheckout({
      checkoutId,
      paymentId,
      paymentMethodId = null,
    }: CompleteCheckoutInput): Promise<CompletedCheckout> {
      const { taxTransactionOwed, ...done } = await completeCheckout(
        orm.em.fork(),
        checkoutId,
        paymentId,
        publicUrl,
        paymentMethodId,
      );
      // After the commit (no Stripe call in a transaction); a retry finds the order and tells
      // Stripe again. Stripe Tax records the tax the order collected (once, by the order's id).
      if (taxTransactionOwed) await recordOrderTaxTransaction({ orm, stripe }, done.orderId);
      if (done.subscriptionId && paymentMethodId) {
        await sendDefaultCardToStripe(
          { em: orm.em.fork(), stripe },
          done.customerId,
          paymentMethodId,
        );
      }
      return done;
    },

    /**
     * Starts the workflow of the subscription the checkout made, on `taskQueue` (the checkout
     * workflow's own); a second start finds it running.
     */
    async startCheckoutSubscription({
      subscriptionId,
      taskQueue,
    }: StartCheckoutSubscriptionInput): Promise<void> {
      await startSubscription(temporal, subscriptionId, taskQueue);
    },

    /** The buyer's page is told to run the 3-D Secure step (see awaitCheckoutAuthentication). */
    awaitCheckoutAuthentication({
      checkoutId,
      authentication,
    }: AwaitCheckoutAuthenticationInput): Promise<void> {
      return awaitCheckoutAuthentication(orm.em.fork(), checkoutId, authentication, publicUrl);
    },

    /**
     * The `incomplete` subscription the checkout's first payment leaves when it is not made at
     * once (see openIncompleteSubscription): its id, or null when the checkout makes none.
     */
    openIncompleteSubscription({
      checkoutId,
    }: OpenIncompleteSubscriptionInput): Promise<string | null> {
      return openIncompleteSubscription(orm.em.fork(), checkoutId, publicUrl);
    },

    /** The unpaid `incomplete` subscription expires (see expireIncompleteSubscription). */
    expireIncompleteSubscription({
      subscriptionId,
    }: ExpireIncompleteSubscriptionInput): Promise<void> {
      return expireIncompleteSubscription(orm.em.fork(), subscriptionId, publicUrl);
    },

    /** The checkout failed with the processor's reason; its buyer may confirm again. */
    failCheckoutPayment({ checkoutId, paymentError }: FailCheckoutPaymentInput): Promise<void> {
      return failCheckoutPayment(orm.em.fork(), checkoutId, paymentError, publicUrl);
    },
  };
}

export type CheckoutActivities = ReturnType<typeof createCheckoutActivities>;
