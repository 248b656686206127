import {
  ActivityFailure,
  allHandlersFinished,
  condition,
  currentUpdateInfo,
  patched,
  proxyActivities,
  proxyLocalActivities,
  setHandler,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { BenefitGrantActivities } from '../activities/benefit-grants.ts';
import type {
  CheckoutActivities,
  CompletedCheckout,
  ConfirmedCheckout,
} from '../activities/checkouts.ts';
import type {
  IntentAuthentication,
  PaymentActivities,
  PaymentAttemptResult,
  PaymentSetupResult,
} from '../activities/payments.ts';
import type { PaymentOutcome } from '../domain/payments.ts';
import { incompleteSubscriptionLifetimeMs } from '../domain/subscription-schedule.ts';
import {
  type CheckoutInput,
  type CheckoutOutcome,
  confirmCheckoutUpdate,
} from '../processes/checkout.ts';
import {
  authenticationEndedSignal,
  paymentOutcomeSignal,
  type SetupOutcome,
  setupOutcomeSignal,
} from '../processes/payment-outcome.ts';
import { commerceRefusal } from '../processes/workflow-refusals.ts';
import { awaitingCommitOptions, callerWaitingOptions, stepOptions } from './activity-options.ts';

// A confirm has a buyer waiting for its answer: a local activity (no round trip through the
// server), a few quick attempts, then the failure.
const confirms = proxyLocalActivities<CheckoutActivities>(callerWaitingOptions);

/**
 * The charge (or the card's setup): a Stripe call that may hang, as an activity of its own with
 * its own timeout. It and every later step are retried until Stripe or the database answers
 * again; each is idempotent (the charge under its attempt's idempotency key), so a retry never
 * charges twice.
 */
const payments = proxyActivities<PaymentActivities>(stepOptions);

// The other steps are short (one transaction, or one Stripe call once per customer): local
// activities, run within the workflow task that reaches them, with no round trip through the
// server per step.
const steps = proxyLocalActivities<CheckoutActivities & PaymentActivities & BenefitGrantActivities>(
  stepOptions,
);

// Expiry waits about half a minute for a checkout row still being committed; a workflow whose
// checkout never committed then ends (the API answers an open checkout past its time as expired).
const expirations = proxyLocalActivities<CheckoutActivities>(awaitingCommitOptions);

/** How long a payment Stripe has not decided yet (processing) is waited for. */
const paymentOutcomeTimeout = '30 minutes';

/** How long a buyer's 3-D Secure step is waited for, unless the checkout's input says. */
const defaultAuthenticationTimeoutMs = 30 * 60_000;

/** What the buyer reads when they did not pass the 3-D Secure step in time. */
const authenticationTimedOut = {
  declineCode: 'authentication_timeout',
  message: 'The card was not authenticated in time. Please try again.',
};

/**
 * A recurring checkout created through the API whose first payment is not made at once leaves an
 * `incomplete` subscription, expired when still unpaid 23 hours later. Checkouts begun before
 * this change make none (their histories replay so).
 */
const incompleteSubscriptions = 'incomplete-subscriptions';

/** What a confirmed checkout was settled with: its payment, and the card kept for renewals. */
interface Settlement {
  paymentId: string | null;
  paymentMethodId: string | null;
}

/**
 * The life of one checkout (`checkout:<id>`): open until the buyer confirms or it expires. A
 * confirmed checkout is charged unless nothing is due; a recurring one with nothing due now (a
 * trial) has its card saved instead. A card that asks for 3-D Secure waits, until a deadline,
 * for its buyer to pass the step on the page. A declined card fails the checkout, which the buyer
 * may confirm again with another card until it expires. Paid (or free), it becomes an order in one
 * transaction; its subscription's workflow starts, and the product's benefits are granted.
 */
export async function checkout({
  checkoutId,
  expiresAt,
  authenticationTimeoutSeconds,
  incompleteSubscriptionSeconds,
}: CheckoutInput): Promise<CheckoutOutcome> {
  const confirmations: ConfirmedCheckout[] = [];
  const outcomes = new Map<string, PaymentOutcome>();
  const setupOutcomes = new Map<string, SetupOutcome>();
  const authenticationTimeoutMs = authenticationTimeoutSeconds
    ? authenticationTimeoutSeconds * 1000
    : defaultAuthenticationTimeoutMs;
  /** How many times the buyer's page said a 3-D Secure step ended. */
  let authenticationReports = 0;
  /** Expiry began or the checkout succeeded: confirms are refused before reaching the history. */
  let closed = false;
  /** The `incomplete` subscription the first payment left, and when it expires unpaid (ms). */
  let incomplete: { subscriptionId: string; expiresAt: number } | null = null;

  /** A confirm's local activity is under way: another confirm meanwhile is refused. */
  let confirming = false;

  setHandler(
    confirmCheckoutUpdate,
    async (confirmation) => {
      // The update's id names this confirm: a retried activity finds it applied.
      const confirmId = currentUpdateInfo()?.id ?? '';
      confirming = true;
      try {
        const confirmed = await confirms.confirmCheckout({ checkoutId, confirmId, confirmation });
        confirmations.push(confirmed);
        return confirmed;
      } finally {
        confirming = false;
      }
    },
    {
      // Validators do not run on replay, and a refused update leaves no history: refusing here
      // changes nothing recorded. Two confirms under way at once were replayed in another order
      // of commands than recorded (a nondeterminism that left checkouts stuck in the soak).
      validator: (_confirmation) => {
        if (closed || confirming) {
          throw commerceRefusal('NotOpenCheckout');
        }
      },
    },
  );

  // The Stripe webhook's word on a payment; a redelivered event changes nothing.
  setHandler(paymentOutcomeSignal, (outcome) => {
    outcomes.set(outcome.paymentId, outcome);
  });
  // The same for a card being saved that waited for its holder's 3-D Secure step.
  setHandler(setupOutcomeSignal, (outcome) => {
    setupOutcomes.set(outcome.setupIntentId, outcome);
  });
  setHandler(authenticationEndedSignal, () => {
    authenticationReports += 1;
  });

  /**
   * Tells the buyer's page to run the 3-D Secure step, then waits for its end until the
   * deadline: the webhook's outcome (`heard`), or Stripe's answer (`ask`) when the buyer's page
   * says the step ended (a lost or late webhook then costs the buyer nothing). Null once the
   * deadline passed undecided.
   */
  async function authenticationEnd<T>(
    authentication: IntentAuthentication,
    heard: () => T | undefined,
    ask: () => Promise<T | null>,
  ): Promise<T | null> {
    // Counted from before the page can know of the step: no word of its end is missed.
    let reports = authenticationReports;
    await steps.awaitCheckoutAuthentication({ checkoutId, authentication });
    const deadline = Date.now() + authenticationTimeoutMs;
    for (;;) {
      const woken = await condition(
        () => heard() !== undefined || authenticationReports > reports,
        Math.max(deadline - Date.now(), 1),
      );
      if (!woken) return null;
      reports = authenticationReports;
      const outcome = heard() ?? (await ask());
      if (outcome) return outcome;
    }
  }

  /**
   * A charge waiting for its buyer's 3-D Secure step: the buyer's page is told how to run it,
   * then the webhook's outcome is waited for until the deadline; past it the PaymentIntent is
   * canceled (one paid meanwhile, its event not heard of yet, counts as paid).
   */
  async function authenticatedOutcome(
    charge: PaymentAttemptResult,
    authentication: NonNullable<PaymentAttemptResult['authentication']>,
  ) {
    const waiting = {
      checkoutId,
      paymentId: charge.paymentId,
      paymentIntentId: charge.paymentIntentId,
    };
    const decided = (outcome: PaymentOutcome | null | undefined) =>
      outcome?.status === 'succeeded' || outcome?.status === 'failed' ? outcome : undefined;
    const ended = await authenticationEnd(
      authentication,
      () => decided(outcomes.get(charge.paymentId)),
      async () => decided(await payments.checkCheckoutPayment(waiting)) ?? null,
    );
    if (ended) return ended;
    const canceled = await payments.cancelCheckoutPayment(waiting);
    if (canceled?.status === 'succeeded') return canceled;
    return { status: 'failed' as const, paymentId: charge.paymentId, ...authenticationTimedOut };
  }

  /** Stripe's final answer on a charge: at once, or from the webhook within the timeout. */
  async function paymentOutcome(charge: PaymentAttemptResult) {
    if (charge.status === 'succeeded' || charge.status === 'failed') return charge;
    if (
      charge.status === 'requires_action' &&
      charge.authentication &&
      patched('checkout-authentication')
    ) {
      return authenticatedOutcome(charge, charge.authentication);
    }
    const decided = () => {
      const status = outcomes.get(charge.paymentId)?.status;
      return status === 'succeeded' || status === 'failed';
    };
    if (await condition(decided, paymentOutcomeTimeout)) {
      return outcomes.get(charge.paymentId) as PaymentOutcome;
    }
    return {
      status: 'failed' as const,
      paymentId: charge.paymentId,
      declineCode: 'payment_timeout',
      message: 'The payment was not completed in time.',
    };
  }

  /** Waits for a confirm until the expiry; null when the checkout expired unconfirmed. */
  async function nextConfirmation(): Promise<ConfirmedCheckout | null> {
    const expiry = Date.parse(expiresAt);
    const confirmed = () => confirmations.length > 0;
    if (!(await condition(confirmed, Math.max(expiry - Date.now(), 1)))) {
      closed = true;
      try {
        await expirations.expireCheckout({ checkoutId });
      } catch (error) {
        if (!(error instanceof ActivityFailure)) throw error;
      }
      // A confirm that committed before the expiry is still carried out.
      await condition(allHandlersFinished);
    }
    return confirmations.shift() ?? null;
  }

  /** The checkout failed with the processor's reason: the buyer may confirm again. */
  async function declined(
    { declineCode, message }: { declineCode: string | null; message: string | null },
    fallback: string,
  ): Promise<null> {
    await steps.failCheckoutPayment({
      checkoutId,
      paymentError: { code: declineCode ?? 'payment_failed', message: message ?? fallback },
    });
    return null;
  }

  /**
   * Charges the checkout's total: attempt `attempt` (its idempotency key). Answers the payment
   * and its card once it succeeded; a decline fails the checkout (null).
   */
  async function pay(confirmed: ConfirmedCheckout, attempt: number): Promise<Settlement | null> {
    await steps.ensureStripeCustomer({ customerId: confirmed.customerId });
    const charge = await payments.createCheckoutPayment({
      checkoutId,
      paymentMethodOrToken: confirmed.confirmationTokenId ?? '',
      attempt,
    });
    if (
      charge.status !== 'succeeded' &&
      !incomplete &&
      confirmed.opensIncompleteSubscription &&
      patched(incompleteSubscriptions)
    ) {
      await openIncompleteSubscription();
    }
    const outcome = await paymentOutcome(charge);
    if (outcome.status !== 'succeeded') return declined(outcome, 'The payment failed.');
    // Histories recorded before cards were kept carry no paymentMethodId.
    return { paymentId: charge.paymentId, paymentMethodId: charge.paymentMethodId ?? null };
  }

  /**
   * Saves the card for the renewals without charging it (attempt `attempt`): answers it once
   * Stripe set it up; a declined card fails the checkout as a declined charge does (null).
   */
  async function saveCard(
    confirmed: ConfirmedCheckout,
    attempt: number,
  ): Promise<Settlement | null> {
    await steps.ensureStripeCustomer({ customerId: confirmed.customerId });
    const setup = await payments.setUpCheckoutPaymentMethod({
      checkoutId,
      paymentMethodOrToken: confirmed.confirmationTokenId ?? '',
      attempt,
    });
    const saved = await setupOutcome(setup);
    if (saved.status !== 'succeeded') return declined(saved, 'Your card could not be saved.');
    return { paymentId: null, paymentMethodId: saved.paymentMethodId };
  }

  /**
   * How saving the card ended: at once, or (a card that asks for 3-D Secure) once the buyer's
   * page ran the step and the webhook said so, until the deadline; past it the SetupIntent is
   * canceled (one authenticated meanwhile counts as saved).
   */
  async function setupOutcome(
    setup: PaymentSetupResult,
  ): Promise<SetupOutcome | PaymentSetupResult> {
    const { authentication } = setup;
    // No patch needed: no recorded setup answered requires_action before this step existed.
    if (setup.status !== 'requires_action' || !authentication) return setup;
    const waiting = { checkoutId, setupIntentId: setup.setupIntentId };
    const ended = await authenticationEnd<SetupOutcome | PaymentSetupResult>(
      authentication,
      () => setupOutcomes.get(setup.setupIntentId),
      async () => {
        const now = await payments.checkCheckoutSetup(waiting);
        return now.status === 'requires_action' ? null : now;
      },
    );
    if (ended) return ended;
    const canceled = await payments.cancelCheckoutSetup(waiting);
    return canceled.status === 'succeeded' ? canceled : { ...canceled, ...authenticationTimedOut };
  }

  /** The first payment waits or was declined: the subscription exists, `incomplete`. */
  async function openIncompleteSubscription() {
    const subscriptionId = await steps.openIncompleteSubscription({ checkoutId });
    const lifetimeMs = incompleteSubscriptionSeconds
      ? incompleteSubscriptionSeconds * 1000
      : incompleteSubscriptionLifetimeMs;
    if (subscriptionId) incomplete = { subscriptionId, expiresAt: Date.now() + lifetimeMs };
  }

  /** The checkout expired unpaid: its `incomplete` subscription expires when its time is up. */
  async function expireIncompleteSubscription() {
    if (!incomplete) return;
    await sleep(Math.max(incomplete.expiresAt - Date.now(), 1));
    await steps.expireIncompleteSubscription({ subscriptionId: incomplete.subscriptionId });
  }

  let attempts = 0;
  let completed: CompletedCheckout | undefined;
  while (!completed) {
    const confirmed = await nextConfirmation();
    if (!confirmed) {
      await expireIncompleteSubscription();
      return 'expired';
    }
    let settled: Settlement | null = { paymentId: null, paymentMethodId: null };
    if (confirmed.isPaymentRequired) {
      attempts += 1;
      settled = await pay(confirmed, attempts);
    } else if (confirmed.isPaymentSetupRequired && patched('save-card-without-charge')) {
      attempts += 1;
      settled = await saveCard(confirmed, attempts);
    }
    if (settled) completed = await steps.completeCheckout({ checkoutId, ...settled });
  }

  closed = true;
  const { subscriptionId } = completed;
  if (subscriptionId && patched('start-subscription-workflow')) {
    // On this workflow's own task queue: the worker that runs checkouts runs subscriptions.
    await steps.startCheckoutSubscription({ subscriptionId, taskQueue: workflowInfo().taskQueue });
  }
  if (patched('grant-benefits-in-the-checkout')) {
    // Without a grant workflow each for benefits the database alone gives: two workflow tasks
    // and an activity task fewer per benefit.
    await steps.grantCheckoutBenefits(completed);
  } else {
    await steps.requestBenefitGrants(completed);
  }
  await condition(allHandlersFinished);
  return 'succeeded';
}
