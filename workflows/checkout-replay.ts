import type { Client, WorkflowHandle } from '@temporalio/client';
import type { BenefitGrantActivities } from '../activities/benefit-grants.ts';
import type { CheckoutActivities, ConfirmedCheckout } from '../activities/checkouts.ts';
import type {
  PaymentActivities,
  PaymentAttemptResult,
  PaymentSetupResult,
} from '../activities/payments.ts';
import { type CheckoutInput, confirmCheckoutUpdate } from '../processes/checkout.ts';
import {
  authenticationEndedSignal,
  paymentOutcomeSignal,
  setupOutcomeSignal,
} from '../processes/payment-outcome.ts';
import { checkout } from './checkout.ts';
import { recordOnOwnWorkers } from './replay-recording.ts';

const checkoutId = 'replay-checkout';

const confirmed: ConfirmedCheckout = {
  checkoutId,
  organizationId: 'replay-organization',
  customerId: 'replay-customer',
  productId: 'replay-product',
  productPriceId: 'replay-price',
  discountId: null,
  amount: 2500,
  discountAmount: 0,
  netAmount: 2500,
  totalAmount: 2500,
  currency: 'usd',
  isPaymentRequired: true,
  isPaymentSetupRequired: false,
  isRecurring: false,
  confirmationTokenId: 'pm_card_visa',
};

/** A monthly plan with a trial: nothing to pay now, the card saved for the renewals. */
const trialConfirmed: ConfirmedCheckout = {
  ...confirmed,
  productId: 'replay-plan',
  isPaymentRequired: false,
  isPaymentSetupRequired: true,
  isRecurring: true,
};

const charge = (attempt: number, status: PaymentAttemptResult['status']) => ({
  paymentId: `replay-payment-${attempt}`,
  paymentIntentId: `pi_replay_${attempt}`,
  status,
  declineCode: status === 'failed' ? 'generic_decline' : null,
  message: status === 'failed' ? 'Your card was declined.' : null,
  paymentMethodId: status === 'failed' ? null : 'pm_card_visa',
});

const setup = (attempt: number, status: PaymentSetupResult['status']): PaymentSetupResult => ({
  setupIntentId: `seti_replay_${attempt}`,
  status,
  paymentMethodId: status === 'failed' ? null : 'pm_card_visa',
  declineCode: status === 'failed' ? 'generic_decline' : null,
  message: status === 'failed' ? 'Your card was declined.' : null,
});

/** A monthly plan bought through a checkout the seller created by API: charged at once. */
const planConfirmed: ConfirmedCheckout = {
  ...confirmed,
  productId: 'replay-plan',
  isRecurring: true,
  opensIncompleteSubscription: true,
};

/** What completing the checkout answers: its order, and the subscription it started (if any). */
const completedAs = (checkout: ConfirmedCheckout, subscriptionId: string | null) => ({
  organizationId: checkout.organizationId,
  customerId: checkout.customerId,
  productId: checkout.productId,
  orderId: 'replay-order',
  subscriptionId,
});

/** Stripe's word that a payment succeeded, on the Visa card ending `cardLast4`. */
const succeededOutcome = (
  { paymentId, paymentIntentId }: { paymentId: string; paymentIntentId: string },
  cardLast4: string,
) => ({
  paymentId,
  paymentIntentId,
  status: 'succeeded' as const,
  declineCode: null,
  message: null,
  cardBrand: 'visa',
  cardLast4,
});

type ReplayCheckoutActivities = CheckoutActivities &
  Pick<
    PaymentActivities,
    | 'ensureStripeCustomer'
    | 'createCheckoutPayment'
    | 'setUpCheckoutPaymentMethod'
    | 'cancelCheckoutPayment'
    | 'cancelCheckoutSetup'
    | 'checkCheckoutPayment'
    | 'checkCheckoutSetup'
  > &
  Pick<BenefitGrantActivities, 'requestBenefitGrants' | 'grantCheckoutBenefits'>;

/**
 * Records one checkout on workers of its own with activities that need no database or Stripe:
 * the first card is declined (charge or setup), `drive` confirms again once it was.
 */
async function recordCheckout(
  client: Client,
  name: string,
  activities: Omit<ReplayCheckoutActivities, 'failCheckoutPayment'>,
  drive: (handle: WorkflowHandle<typeof checkout>, declinedOnce: Promise<void>) => Promise<void>,
  input: Omit<CheckoutInput, 'checkoutId' | 'expiresAt'> & { expiresInSeconds?: number } = {},
): Promise<string> {
  const { expiresInSeconds = 3600, ...timeouts } = input;
  const workflowId = `replay:${name}`;
  const taskQueue = `replay-${name}`;
  let declined: () => void = () => {};
  const declinedOnce = new Promise<void>((resolve) => {
    declined = resolve;
  });
  await recordOnOwnWorkers(
    client,
    { taskQueue, activities: { ...activities, failCheckoutPayment: async () => declined() } },
    async () => {
      const handle = await client.workflow.start(checkout, {
        workflowId,
        taskQueue,
        args: [
          {
            checkoutId,
            expiresAt: new Date(Date.now() + expiresInSeconds * 1000).toISOString(),
            ...timeouts,
          },
        ],
      });
      await drive(handle, declinedOnce);
      await handle.result();
    },
  );
  return workflowId;
}

const confirmBody = { customer_email: 'buyer@example.com', confirmation_token_id: 'pm_card_visa' };

/** What every recorded checkout answers alike. */
const commonActivities = {
  expireCheckout: async () => undefined,
  ensureStripeCustomer: async () => 'cus_replay',
  requestBenefitGrants: async () => undefined,
  grantCheckoutBenefits: async () => undefined,
  awaitCheckoutAuthentication: async () => undefined,
  cancelCheckoutPayment: async () => null,
  cancelCheckoutSetup: async () => setup(0, 'failed'),
  checkCheckoutPayment: async () => null,
  checkCheckoutSetup: async () => setup(0, 'requires_action'),
  openIncompleteSubscription: async () => 'replay-subscription',
  expireIncompleteSubscription: async () => undefined,
};

/** What a card that asks for 3-D Secure answers: the step the buyer's page runs. */
const authentication = (intentId: string) => ({
  intentId,
  clientSecret: `${intentId}_secret_replay`,
  nextActionUrl: `http://127.0.0.1/_simulator/3ds/${intentId}`,
});

/**
 * A paid checkout's whole path: a confirm whose card is declined at once, a second confirm whose
 * charge waits for the webhook's outcome (a signal), then the order and the benefit grants.
 */
export function recordPaidCheckout(client: Client, name = 'checkout-paid'): Promise<string> {
  return recordCheckout(
    client,
    name,
    {
      ...commonActivities,
      confirmCheckout: async () => confirmed,
      completeCheckout: async () => completedAs(confirmed, null),
      createCheckoutPayment: async ({ attempt }) =>
        charge(attempt, attempt === 1 ? 'failed' : 'processing'),
      setUpCheckoutPaymentMethod: async ({ attempt }) => setup(attempt, 'succeeded'),
      startCheckoutSubscription: async () => undefined,
    },
    async (handle, declinedOnce) => {
      await handle.executeUpdate(confirmCheckoutUpdate, { args: [confirmBody] });
      await declinedOnce;
      await handle.executeUpdate(confirmCheckoutUpdate, { args: [confirmBody] });
      await handle.signal(paymentOutcomeSignal, succeededOutcome(charge(2, 'succeeded'), '4242'));
    },
  );
}

/**
 * A trial's checkout: a card whose setup is declined, a second card saved without a charge,
 * then the order of nothing with its subscription, whose workflow starts, and the grants.
 */
export function recordTrialCheckout(client: Client): Promise<string> {
  return recordCheckout(
    client,
    'checkout-trial-subscription',
    {
      ...commonActivities,
      confirmCheckout: async () => trialConfirmed,
      completeCheckout: async () => completedAs(trialConfirmed, 'replay-subscription'),
      createCheckoutPayment: async ({ attempt }) => charge(attempt, 'succeeded'),
      setUpCheckoutPaymentMethod: async ({ attempt }) =>
        setup(attempt, attempt === 1 ? 'failed' : 'succeeded'),
      startCheckoutSubscription: async () => undefined,
    },
    async (handle, declinedOnce) => {
      await handle.executeUpdate(confirmCheckoutUpdate, { args: [confirmBody] });
      await declinedOnce;
      await handle.executeUpdate(confirmCheckoutUpdate, { args: [confirmBody] });
    },
  );
}

/**
 * A checkout paid after 3-D Secure: the first card's step is never done, so its PaymentIntent is
 * canceled at the deadline and the checkout fails; the buyer confirms again, passes the step, and
 * the webhook's outcome (a signal) settles the order.
 */
export function recordAuthenticatedCheckout(client: Client): Promise<string> {
  return recordCheckout(
    client,
    'checkout-authenticated',
    {
      ...commonActivities,
      confirmCheckout: async () => confirmed,
      completeCheckout: async () => completedAs(confirmed, null),
      createCheckoutPayment: async ({ attempt }) => ({
        ...charge(attempt, 'requires_action'),
        authentication: authentication(`pi_replay_${attempt}`),
      }),
      setUpCheckoutPaymentMethod: async ({ attempt }) => setup(attempt, 'succeeded'),
      startCheckoutSubscription: async () => undefined,
    },
    async (handle, declinedOnce) => {
      await handle.executeUpdate(confirmCheckoutUpdate, { args: [confirmBody] });
      await declinedOnce;
      await handle.executeUpdate(confirmCheckoutUpdate, { args: [confirmBody] });
      await handle.signal(paymentOutcomeSignal, succeededOutcome(charge(2, 'succeeded'), '3220'));
    },
    { authenticationTimeoutSeconds: 1 },
  );
}

/**
 * A trial whose card asks for 3-D Secure: the first setup's step fails (the webhook's outcome,
 * a signal), the second passes, and the subscription starts.
 */
export function recordAuthenticatedTrialCheckout(client: Client): Promise<string> {
  const waiting = (attempt: number): PaymentSetupResult => ({
    ...setup(attempt, 'requires_action'),
    authentication: authentication(`seti_replay_${attempt}`),
  });
  return recordCheckout(
    client,
    'checkout-authenticated-trial',
    {
      ...commonActivities,
      confirmCheckout: async () => trialConfirmed,
      completeCheckout: async () => completedAs(trialConfirmed, 'replay-subscription'),
      createCheckoutPayment: async ({ attempt }) => charge(attempt, 'succeeded'),
      setUpCheckoutPaymentMethod: async ({ attempt }) => waiting(attempt),
      startCheckoutSubscription: async () => undefined,
    },
    async (handle, declinedOnce) => {
      const outcome = (attempt: number, status: 'succeeded' | 'failed') =>
        handle.signal(setupOutcomeSignal, {
          setupIntentId: `seti_replay_${attempt}`,
          status,
          paymentMethodId: status === 'succeeded' ? 'pm_card_threeDSecure2Required' : null,
          declineCode: status === 'failed' ? 'setup_intent_authentication_failure' : null,
          message: status === 'failed' ? 'Authentication failed.' : null,
        });
      await handle.executeUpdate(confirmCheckoutUpdate, { args: [confirmBody] });
      await outcome(1, 'failed');
      await declinedOnce;
      await handle.executeUpdate(confirmCheckoutUpdate, { args: [confirmBody] });
      await outcome(2, 'succeeded');
    },
  );
}

/**
 * A checkout paid after 3-D Secure whose webhook never came: the buyer's page says the step
 * ended, once too early (Stripe still waits) and once done, and the workflow asks Stripe each
 * time; the second answer settles the order.
 */
export function recordReportedAuthenticationCheckout(client: Client): Promise<string> {
  let checks = 0;
  let told: () => void = () => {};
  const pageTold = new Promise<void>((resolve) => {
    told = resolve;
  });
  return recordCheckout(
    client,
    'checkout-authentication-reported',
    {
      ...commonActivities,
      awaitCheckoutAuthentication: async () => told(),
      confirmCheckout: async () => confirmed,
      completeCheckout: async () => completedAs(confirmed, null),
      createCheckoutPayment: async ({ attempt }) => ({
        ...charge(attempt, 'requires_action'),
        authentication: authentication(`pi_replay_${attempt}`),
      }),
      checkCheckoutPayment: async ({ paymentId, paymentIntentId }) => {
        checks += 1;
        if (checks === 1) return null;
        return succeededOutcome({ paymentId, paymentIntentId }, '3220');
      },
      setUpCheckoutPaymentMethod: async ({ attempt }) => setup(attempt, 'succeeded'),
      startCheckoutSubscription: async () => undefined,
    },
    async (handle) => {
      await handle.executeUpdate(confirmCheckoutUpdate, { args: [confirmBody] });
      await pageTold;
      // Each word waits for the workflow to have asked Stripe about the one before.
      for (const expected of [1, 2]) {
        await handle.signal(authenticationEndedSignal);
        while (checks < expected) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
  );
}

/**
 * A plan's checkout created by API whose first card asks for 3-D Secure: the subscription is
 * made `incomplete`, the step is never done (the PaymentIntent canceled at the deadline), the
 * buyer confirms again with a card charged at once, and the same subscription starts.
 */
export function recordIncompleteSubscriptionPaid(client: Client): Promise<string> {
  return recordCheckout(
    client,
    'checkout-incomplete-subscription-paid',
    {
      ...commonActivities,
      confirmCheckout: async () => planConfirmed,
      completeCheckout: async () => completedAs(planConfirmed, 'replay-subscription'),
      createCheckoutPayment: async ({ attempt }) =>
        attempt === 1
          ? { ...charge(1, 'requires_action'), authentication: authentication('pi_replay_1') }
          : charge(attempt, 'succeeded'),
      setUpCheckoutPaymentMethod: async ({ attempt }) => setup(attempt, 'succeeded'),
      startCheckoutSubscription: async () => undefined,
    },
    async (handle, declinedOnce) => {
      await handle.executeUpdate(confirmCheckoutUpdate, { args: [confirmBody] });
      await declinedOnce;
      await handle.executeUpdate(confirmCheckoutUpdate, { args: [confirmBody] });
    },
    { authenticationTimeoutSeconds: 1 },
  );
}

/**
 * A plan's checkout created by API whose card is declined: the subscription is made
 * `incomplete`, the checkout expires unpaid, and the subscription expires once its time is up.
 */
export function recordIncompleteSubscriptionExpired(client: Client): Promise<string> {
  return recordCheckout(
    client,
    'checkout-incomplete-subscription-expired',
    {
      ...commonActivities,
      confirmCheckout: async () => planConfirmed,
      completeCheckout: async () => completedAs(planConfirmed, 'replay-subscription'),
      createCheckoutPayment: async ({ attempt }) => charge(attempt, 'failed'),
      setUpCheckoutPaymentMethod: async ({ attempt }) => setup(attempt, 'succeeded'),
      startCheckoutSubscription: async () => undefined,
    },
    async (handle, declinedOnce) => {
      await handle.executeUpdate(confirmCheckoutUpdate, { args: [confirmBody] });
      await declinedOnce;
    },
    { expiresInSeconds: 2, incompleteSubscriptionSeconds: 4 },
  );
}

/** A one-time purchase the customer's balance pays whole: nothing to charge, no card asked. */
const paidFromBalance: ConfirmedCheckout = {
  ...confirmed,
  isPaymentRequired: false,
  confirmationTokenId: null,
};

/**
 * A returning customer's checkout whose balance pays its whole total: confirmed, then the order
 * at once, with neither a charge nor a card saved, and the grants.
 */
export function recordCheckoutPaidFromBalance(client: Client): Promise<string> {
  return recordCheckout(
    client,
    'checkout-paid-from-balance',
    {
      ...commonActivities,
      confirmCheckout: async () => paidFromBalance,
      completeCheckout: async () => completedAs(paidFromBalance, null),
      createCheckoutPayment: async ({ attempt }) => charge(attempt, 'succeeded'),
      setUpCheckoutPaymentMethod: async ({ attempt }) => setup(attempt, 'succeeded'),
      startCheckoutSubscription: async () => undefined,
    },
    async (handle) => {
      await handle.executeUpdate(confirmCheckoutUpdate, {
        args: [{ customer_email: 'buyer@example.com' }],
      });
    },
  );
}
