import type { Client } from '@temporalio/client';
import {
  type ConfirmedCheckout,
  confirmCheckout,
  expireCheckout,
} from '../commerce/checkouts/service.ts';
import {
  type CompletedCheckout,
  completeCheckout,
  failCheckoutPayment,
} from '../commerce/orders/service.ts';
import { Checkout, type CheckoutPaymentError } from '../db/entities/checkout.ts';
import type { Orm } from '../db/orm.ts';
import { toActivityFailure } from '../processes/activity-errors.ts';
import { startSubscriptionWorkflow } from './subscriptions.ts';

export type { CompletedCheckout, ConfirmedCheckout };

/** The confirm request's body as the route received it: it crosses the workflow as plain JSON. */
export type CheckoutConfirmation = Record<string, unknown>;

/**
 * The steps of the checkout workflow that change the checkout, each one transaction of the
 * checkouts and orders services, each safe to run again; and the start of the subscription it
 * made. `publicUrl`: checkouts and orders carry links to the hosted pages, under the API's
 * public URL.
 */
export function createCheckoutActivities(
  { orm, temporal }: { orm: Orm; temporal: Client },
  publicUrl: string,
) {
  return {
    /** The buyer's confirm (see confirmCheckout); a refusal fails the update with its API error. */
    async confirmCheckout({
      checkoutId,
      confirmId,
      confirmation,
    }: {
      checkoutId: string;
      /** Names this confirm: a retry finds its own work done. */
      confirmId: string;
      confirmation: CheckoutConfirmation;
    }): Promise<ConfirmedCheckout> {
      try {
        return await confirmCheckout(orm.em.fork(), checkoutId, confirmation, confirmId, publicUrl);
      } catch (error) {
        return toActivityFailure(error);
      }
    },

    /**
     * Expires the checkout if it is still open when its time is up. The workflow starts before
     * the creating transaction commits: a row not there yet fails the attempt, to be retried.
     */
    async expireCheckout({ checkoutId }: { checkoutId: string }): Promise<void> {
      const em = orm.em.fork();
      if (!(await em.count(Checkout, { id: checkoutId }))) {
        throw new Error(`checkout ${checkoutId} is not (yet) in the database`);
      }
      await expireCheckout(em, checkoutId, publicUrl);
    },

    /**
     * The paid (or free) checkout's order, subscription and success (see completeCheckout);
     * `paymentMethodId`: the card saved for the subscription's renewals.
     */
    completeCheckout({
      checkoutId,
      paymentId,
      paymentMethodId = null,
    }: {
      checkoutId: string;
      paymentId: string | null;
      paymentMethodId?: string | null;
    }): Promise<CompletedCheckout> {
      return completeCheckout(orm.em.fork(), checkoutId, paymentId, publicUrl, paymentMethodId);
    },

    /**
     * Starts the workflow of the subscription the checkout made, on `taskQueue` (the checkout
     * workflow's own); a second start finds it running.
     */
    async startCheckoutSubscription({
      subscriptionId,
      taskQueue,
    }: {
      subscriptionId: string;
      taskQueue: string;
    }): Promise<void> {
      await startSubscriptionWorkflow(temporal, subscriptionId, taskQueue);
    },

    /** The checkout failed with the processor's reason; its buyer may confirm again. */
    failCheckoutPayment({
      checkoutId,
      paymentError,
    }: {
      checkoutId: string;
      paymentError: CheckoutPaymentError;
    }): Promise<void> {
      return failCheckoutPayment(orm.em.fork(), checkoutId, paymentError, publicUrl);
    },
  };
}

export type CheckoutActivities = ReturnType<typeof createCheckoutActivities>;
