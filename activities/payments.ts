import { Checkout } from '../db/entities/index.ts';
import type { Orm } from '../db/orm.ts';
import type { PaymentOutcome } from '../domain/payments.ts';
import type { StripeClient } from '../integrations/stripe/client.ts';
import {
  cancelWaitingPayment,
  cancelWaitingSetup,
  chargeAttempt,
  currentPaymentOutcome,
  currentSetupResult,
  type IntentAuthentication,
  type PaymentAttemptResult,
  type PaymentSetupResult,
  paymentIdOf,
  setUpOffSessionCard,
  stripeCustomerFor,
} from '../integrations/stripe/payments.ts';
import { workflowIds } from '../processes/workflow-ids.ts';

// The workflows know these answers' types through their activities.
export type { IntentAuthentication, PaymentAttemptResult, PaymentSetupResult };

/** A checkout's PaymentIntent waiting for its buyer's 3-D Secure step. */
export interface WaitingCheckoutPayment {
  checkoutId: string;
  paymentId: string;
  paymentIntentId: string;
}

/** A checkout's SetupIntent waiting for its card holder's 3-D Secure step. */
export interface WaitingCheckoutSetup {
  checkoutId: string;
  setupIntentId: string;
}

/** The card a checkout's buyer confirmed with, for attempt `attempt` (its idempotency key). */
interface CheckoutCardAttempt {
  checkoutId: string;
  /** `pm_…` or `ctoken_…`. */
  paymentMethodOrToken: string;
  attempt: number;
}

/** The activities that take money through Stripe. */
export function createPaymentActivities({ orm, stripe }: { orm: Orm; stripe: StripeClient }) {
  /** The checkout, its product, and its customer's Stripe customer (ensureStripeCustomer made it). */
  async function checkoutWithStripeCustomer(checkoutId: string) {
    const checkout = await orm.em
      .fork()
      .findOneOrFail(Checkout, { id: checkoutId }, { populate: ['customer', 'product'] });
    const stripeCustomerId = checkout.customer?.stripeCustomerId;
    if (!stripeCustomerId) {
      throw new Error(`checkout ${checkoutId} has no Stripe customer: ensureStripeCustomer first`);
    }
    return { checkout, stripeCustomerId };
  }

  return {
    /** The customer's Stripe customer, created once (see stripeCustomerFor). */
    ensureStripeCustomer({ customerId }: { customerId: string }): Promise<string> {
      return stripeCustomerFor({ orm, stripe }, customerId);
    },

    /**
     * Charges the checkout's total, less what the balance pays, to its customer
     * (ensureStripeCustomer first): attempt
     * `attempt` of the checkout, idempotent per attempt; a retry by the buyer is a new attempt.
     */
    async createCheckoutPayment({
      checkoutId,
      paymentMethodOrToken,
      attempt,
    }: CheckoutCardAttempt): Promise<PaymentAttemptResult> {
      const { checkout, stripeCustomerId } = await checkoutWithStripeCustomer(checkoutId);
      const idempotencyKey = `checkout:${checkoutId}:attempt:${attempt}`;
      return chargeAttempt(
        { orm, stripe },
        {
          paymentId: paymentIdOf(idempotencyKey),
          idempotencyKey,
          organizationId: checkout.organization.id,
          checkoutId,
          workflowId: workflowIds.checkout(checkoutId),
          // What the customer's balance does not pay (the checkout's hold of it).
          amount: checkout.totalAmount - checkout.fromBalanceAmount,
          currency: checkout.currency,
          stripeCustomerId,
          paymentMethodOrToken,
          saveForOffSession: checkout.product.recurringInterval !== null,
        },
      );
    },

    /**
     * Saves the card of a checkout that charges nothing now (a trial) for the renewals: a
     * SetupIntent for off-session use, confirmed at once (ensureStripeCustomer first), idempotent
     * per attempt. A declined card, or one that needs its holder's authentication, fails.
     */
    async setUpCheckoutPaymentMethod({
      checkoutId,
      paymentMethodOrToken,
      attempt,
    }: CheckoutCardAttempt): Promise<PaymentSetupResult> {
      const { checkout, stripeCustomerId } = await checkoutWithStripeCustomer(checkoutId);
      return setUpOffSessionCard(stripe, {
        stripeCustomerId,
        paymentMethodOrToken,
        idempotencyKey: `checkout:${checkoutId}:setup:${attempt}`,
        workflowId: workflowIds.checkout(checkoutId),
        organizationId: checkout.organization.id,
        checkoutId,
      });
    },

    /**
     * Asks Stripe how the checkout's PaymentIntent stands once the buyer's page reported the
     * 3-D Secure step done; a decided outcome is recorded on the Payment (null: undecided).
     */
    checkCheckoutPayment({
      paymentId,
      paymentIntentId,
    }: WaitingCheckoutPayment): Promise<PaymentOutcome | null> {
      return currentPaymentOutcome({ orm, stripe }, { paymentId, paymentIntentId });
    },

    /** Asks Stripe how the checkout's SetupIntent stands once the buyer's page reported. */
    checkCheckoutSetup({ setupIntentId }: WaitingCheckoutSetup): Promise<PaymentSetupResult> {
      return currentSetupResult(stripe, setupIntentId);
    },

    /**
     * Cancels the checkout's PaymentIntent whose 3-D Secure step was not done in time, its
     * Payment failed; answers its outcome (succeeded, when it was paid meanwhile).
     */
    cancelCheckoutPayment({
      checkoutId,
      paymentId,
      paymentIntentId,
    }: WaitingCheckoutPayment): Promise<PaymentOutcome | null> {
      return cancelWaitingPayment(
        { orm, stripe },
        {
          paymentId,
          paymentIntentId,
          idempotencyKey: `checkout:${checkoutId}:cancel:${paymentId}`,
        },
      );
    },

    /**
     * Cancels the checkout's SetupIntent whose 3-D Secure step was not done in time; answers
     * the card saved when it was authenticated meanwhile.
     */
    cancelCheckoutSetup({
      checkoutId,
      setupIntentId,
    }: WaitingCheckoutSetup): Promise<PaymentSetupResult> {
      return cancelWaitingSetup(stripe, {
        setupIntentId,
        idempotencyKey: `checkout:${checkoutId}:cancel:${setupIntentId}`,
      });
    },
  };
}

export type PaymentActivities = ReturnType<typeof createPaymentActivities>;
