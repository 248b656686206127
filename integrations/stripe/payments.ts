import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import Stripe from 'stripe';
import {
  type PaymentAttempt,
  paymentOfIntent,
  recordPaymentOutcome,
} from '../../commerce/payments/service.ts';
import { Customer } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import type { PaymentOutcome } from '../../domain/payments.ts';
import type { StripeClient } from './client.ts';

/** What Stripe answered to a new payment attempt; `processing` waits for the webhook. */
export type PaymentAttemptStatus = PaymentOutcome['status'] | 'processing';

export interface PaymentAttemptResult {
  paymentId: string;
  paymentIntentId: string;
  status: PaymentAttemptStatus;
  declineCode: string | null;
  message: string | null;
  /** The card charged (or being charged): kept on a subscription for its renewals. */
  paymentMethodId: string | null;
  /** `requires_action`: what the buyer's page needs to run the 3-D Secure step (absent before). */
  authentication?: IntentAuthentication | null;
}

/** What Stripe answered to saving a card for later without charging it (a trial's). */
export interface PaymentSetupResult {
  setupIntentId: string;
  /** `requires_action`: the card holder must pass 3-D Secure first (see `authentication`). */
  status: 'succeeded' | 'failed' | 'requires_action';
  paymentMethodId: string | null;
  declineCode: string | null;
  message: string | null;
  authentication?: IntentAuthentication | null;
}

/**
 * A Payment- or SetupIntent waiting for its holder's 3-D Secure step: its client secret (Stripe.js
 * `handleNextAction` runs the step with it), and the address of the challenge when Stripe names
 * one (a redirect, or the Stripe simulator's test page).
 */
export interface IntentAuthentication {
  intentId: string;
  clientSecret: string;
  nextActionUrl: string | null;
}

/** The 3-D Secure step an intent waits for; null when it waits for none. */
export function authenticationOf(
  intent: Stripe.PaymentIntent | Stripe.SetupIntent,
): IntentAuthentication | null {
  if (intent.status !== 'requires_action' || !intent.client_secret) return null;
  const action = intent.next_action;
  const sdkUrl = (action?.use_stripe_sdk as { stripe_js?: unknown } | undefined)?.stripe_js;
  const nextActionUrl =
    action?.redirect_to_url?.url ?? (typeof sdkUrl === 'string' ? sdkUrl : null);
  return { intentId: intent.id, clientSecret: intent.client_secret, nextActionUrl };
}

/**
 * The same attempt always gets the same Payment id (a name-based UUID of its idempotency key),
 * so a retried activity finds the row and the PaymentIntent of its first run.
 */
export function paymentIdOf(idempotencyKey: string): string {
  const hex = createHash('sha256').update(`payment:${idempotencyKey}`).digest('hex');
  const variant = ((Number.parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-8${hex.slice(13, 16)}-${variant}${hex.slice(18, 20)}-${hex.slice(20, 32)}`;
}

/**
 * Stripe refused the call itself (bad parameters, a key reused with other parameters, wrong
 * credentials): asking again gets the same answer, so the workflow hears of it at once.
 */
const refusedForGood = (error: unknown) =>
  error instanceof Stripe.errors.StripeInvalidRequestError ||
  error instanceof Stripe.errors.StripeIdempotencyError ||
  error instanceof Stripe.errors.StripeAuthenticationError ||
  error instanceof Stripe.errors.StripePermissionError;

/** A Stripe error that is no card's answer: non-retryable when refused for good, else as it is. */
function rethrowStripeError(error: unknown): never {
  if (refusedForGood(error)) {
    throw ApplicationFailure.nonRetryable(
      (error as Error).message,
      (error as Error).constructor.name,
    );
  }
  throw error;
}

/** `pm_…` or `ctoken_…` as the parameter a Payment- or SetupIntent takes it in. */
export const paymentSource = (paymentMethodOrToken: string) =>
  paymentMethodOrToken.startsWith('ctoken_')
    ? { confirmation_token: paymentMethodOrToken }
    : { payment_method: paymentMethodOrToken };

const paymentMethodIdOf = (method: string | Stripe.PaymentMethod | null) =>
  typeof method === 'string' ? method : (method?.id ?? null);

/**
 * One charge of a saved or just-entered card: a confirmed PaymentIntent under the attempt's
 * idempotency key (Stripe answers a retry with the first attempt's PaymentIntent, never a second
 * charge), then its Payment row written once with Stripe's answer (see recordPaymentOutcome: an
 * event that came first wrote it, and the answer updates it). The PaymentIntent's metadata names
 * the workflow the Stripe webhook signals with the outcome, and the Payment it writes. A decline
 * is an answer, not an error; Stripe's 5xx and timeouts throw, for the activity's retry policy.
 */
export async function chargeAttempt(
  { orm, stripe }: { orm: Orm; stripe: StripeClient },
  attempt: PaymentAttempt & {
    idempotencyKey: string;
    stripeCustomerId: string;
    /** `pm_…` (a payment method) or `ctoken_…` (a confirmation token from Stripe Elements). */
    paymentMethodOrToken: string;
    /** Keep the card for later off-session charges (renewals of recurring products). */
    saveForOffSession: boolean;
    /** A charge of a saved card without its holder (a renewal): no 3-D Secure step possible. */
    offSession?: boolean;
  },
): Promise<PaymentAttemptResult> {
  const source = paymentSource(attempt.paymentMethodOrToken);
  let paymentIntent: Stripe.PaymentIntent;
  try {
    paymentIntent = await stripe.paymentIntents.create(
      {
        amount: attempt.amount,
        currency: attempt.currency,
        customer: attempt.stripeCustomerId,
        ...source,
        confirm: true,
        off_session: attempt.offSession ?? false,
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        ...(attempt.saveForOffSession ? { setup_future_usage: 'off_session' as const } : {}),
        metadata: {
          workflow_id: attempt.workflowId,
          payment_id: attempt.paymentId,
          organization_id: attempt.organizationId,
          ...(attempt.checkoutId ? { checkout_id: attempt.checkoutId } : {}),
        },
        expand: ['payment_method'],
      },
      { idempotencyKey: attempt.idempotencyKey },
    );
  } catch (error) {
    // A declined card is a 402 carrying the PaymentIntent with its last_payment_error.
    if (error instanceof Stripe.errors.StripeCardError && error.payment_intent) {
      paymentIntent = error.payment_intent;
    } else {
      rethrowStripeError(error);
    }
  }
  const recorded = await recordPaymentOutcome(orm.em.fork(), attempt, paymentIntent);
  const outcome = recorded?.outcome ?? null;
  return {
    paymentId: attempt.paymentId,
    paymentIntentId: paymentIntent.id,
    status: outcome?.status ?? 'processing',
    declineCode: outcome?.declineCode ?? null,
    message: outcome?.message ?? null,
    paymentMethodId: paymentMethodIdOf(paymentIntent.payment_method),
    authentication: outcome?.status === 'requires_action' ? authenticationOf(paymentIntent) : null,
  };
}

/**
 * Gives up on a PaymentIntent still waiting for its buyer (3-D Secure not done in time): canceled
 * under `idempotencyKey`, its outcome recorded on the Payment. One that succeeded meanwhile (an
 * event not heard of yet) cannot be canceled: its success is recorded and answered instead.
 */
export async function cancelWaitingPayment(
  { orm, stripe }: { orm: Orm; stripe: StripeClient },
  {
    paymentId,
    paymentIntentId,
    idempotencyKey,
  }: {
    paymentId: string;
    paymentIntentId: string;
    idempotencyKey: string;
  },
): Promise<PaymentOutcome | null> {
  let paymentIntent: Stripe.PaymentIntent;
  try {
    paymentIntent = await stripe.paymentIntents.cancel(
      paymentIntentId,
      { cancellation_reason: 'abandoned' },
      { idempotencyKey },
    );
  } catch (error) {
    const unexpectedState =
      error instanceof Stripe.errors.StripeInvalidRequestError &&
      error.code === 'payment_intent_unexpected_state';
    if (!unexpectedState) rethrowStripeError(error);
    paymentIntent = await stripe.paymentIntents.retrieve(paymentIntentId, {
      expand: ['payment_method'],
    });
  }
  const recorded = await recordPaymentOutcome(
    orm.em.fork(),
    paymentOfIntent(paymentId, paymentIntent),
    paymentIntent,
  );
  return recorded?.outcome ?? null;
}

/**
 * What Stripe says of a PaymentIntent now (the buyer's page reported its 3-D Secure step done),
 * recorded on its Payment as the webhook's event would be; null while still undecided.
 */
export async function currentPaymentOutcome(
  { orm, stripe }: { orm: Orm; stripe: StripeClient },
  { paymentId, paymentIntentId }: { paymentId: string; paymentIntentId: string },
): Promise<PaymentOutcome | null> {
  const paymentIntent = await stripe.paymentIntents
    .retrieve(paymentIntentId, { expand: ['payment_method'] })
    .catch(rethrowStripeError);
  const recorded = await recordPaymentOutcome(
    orm.em.fork(),
    paymentOfIntent(paymentId, paymentIntent),
    paymentIntent,
  );
  return recorded?.outcome ?? null;
}

/** What Stripe says of a SetupIntent now (see setupResultOf). */
export async function currentSetupResult(
  stripe: StripeClient,
  setupIntentId: string,
): Promise<PaymentSetupResult> {
  return setupResultOf(await stripe.setupIntents.retrieve(setupIntentId).catch(rethrowStripeError));
}

/**
 * Gives up on a SetupIntent still waiting for its card holder: canceled under `idempotencyKey`.
 * One that succeeded meanwhile is answered as saved.
 */
export async function cancelWaitingSetup(
  stripe: StripeClient,
  { setupIntentId, idempotencyKey }: { setupIntentId: string; idempotencyKey: string },
): Promise<PaymentSetupResult> {
  let setupIntent: Stripe.SetupIntent;
  try {
    setupIntent = await stripe.setupIntents.cancel(
      setupIntentId,
      { cancellation_reason: 'abandoned' },
      { idempotencyKey },
    );
  } catch (error) {
    const unexpectedState =
      error instanceof Stripe.errors.StripeInvalidRequestError &&
      error.code === 'setup_intent_unexpected_state';
    if (!unexpectedState) rethrowStripeError(error);
    setupIntent = await stripe.setupIntents.retrieve(setupIntentId);
  }
  return setupResultOf(setupIntent);
}

/**
 * A charge of a subscription's saved card off-session (a renewal, a plan change's difference)
 * under `idempotencyKey`; the Stripe webhook signals the subscription's workflow, `workflowId`.
 */
export function chargeSubscriptionCard(
  deps: { orm: Orm; stripe: StripeClient },
  charge: {
    workflowId: string;
    organizationId: string;
    idempotencyKey: string;
    amount: number;
    currency: string;
    stripeCustomerId: string;
    paymentMethodId: string;
  },
): Promise<PaymentAttemptResult> {
  return chargeAttempt(deps, {
    paymentId: paymentIdOf(charge.idempotencyKey),
    idempotencyKey: charge.idempotencyKey,
    organizationId: charge.organizationId,
    checkoutId: null,
    workflowId: charge.workflowId,
    amount: charge.amount,
    currency: charge.currency,
    stripeCustomerId: charge.stripeCustomerId,
    paymentMethodOrToken: charge.paymentMethodId,
    saveForOffSession: false,
    offSession: true,
  });
}

/**
 * The customer's Stripe customer, created once (idempotency key per customer) and kept on
 * Customer.stripeCustomerId.
 */
export async function stripeCustomerFor(
  { orm, stripe }: { orm: Orm; stripe: StripeClient },
  customerId: string,
): Promise<string> {
  const em = orm.em.fork();
  const customer = await em.findOneOrFail(Customer, { id: customerId });
  if (customer.stripeCustomerId) return customer.stripeCustomerId;
  const created = await stripe.customers.create(
    {
      email: customer.email,
      ...(customer.name ? { name: customer.name } : {}),
      metadata: { customer_id: customer.id, organization_id: customer.organization.id },
    },
    { idempotencyKey: `customer:${customer.id}` },
  );
  const stored = await em.nativeUpdate(
    Customer,
    { id: customerId, stripeCustomerId: null },
    { stripeCustomerId: created.id },
  );
  if (stored === 1) return created.id;
  // Set meanwhile (another run at once): that one is kept.
  const kept = await em.fork().findOneOrFail(Customer, { id: customerId });
  return kept.stripeCustomerId ?? created.id;
}

/**
 * Saves a checkout's card for off-session charges without charging it (a trial): a SetupIntent
 * confirmed at once under `idempotencyKey`, its metadata naming the checkout's workflow. A
 * declined card fails; one that needs its holder's authentication answers `requires_action`.
 */
export async function setUpOffSessionCard(
  stripe: StripeClient,
  setup: {
    stripeCustomerId: string;
    /** `pm_…` or `ctoken_…`. */
    paymentMethodOrToken: string;
    idempotencyKey: string;
    workflowId: string;
    organizationId: string;
    checkoutId: string;
  },
): Promise<PaymentSetupResult> {
  let setupIntent: Stripe.SetupIntent;
  try {
    setupIntent = await stripe.setupIntents.create(
      {
        customer: setup.stripeCustomerId,
        ...paymentSource(setup.paymentMethodOrToken),
        confirm: true,
        usage: 'off_session',
        automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        metadata: {
          workflow_id: setup.workflowId,
          organization_id: setup.organizationId,
          checkout_id: setup.checkoutId,
        },
      },
      { idempotencyKey: setup.idempotencyKey },
    );
  } catch (error) {
    if (error instanceof Stripe.errors.StripeCardError && error.setup_intent) {
      setupIntent = error.setup_intent;
    } else {
      rethrowStripeError(error);
    }
  }
  return setupResultOf(setupIntent);
}

/**
 * What a SetupIntent's state means for the card: saved, waiting for its holder's 3-D Secure step
 * (the SetupIntent's webhook event tells how that ends), or failed with Stripe's reason.
 */
export function setupResultOf(setupIntent: Stripe.SetupIntent): PaymentSetupResult {
  const paymentMethodId = paymentMethodIdOf(setupIntent.payment_method);
  const answered = { setupIntentId: setupIntent.id, declineCode: null, message: null };
  if (setupIntent.status === 'succeeded') {
    return { ...answered, status: 'succeeded', paymentMethodId };
  }
  const authentication = authenticationOf(setupIntent);
  if (authentication) {
    return { ...answered, status: 'requires_action', paymentMethodId, authentication };
  }
  if (setupIntent.status === 'canceled') {
    return {
      ...answered,
      status: 'failed',
      paymentMethodId: null,
      declineCode: 'canceled',
      message: 'The card was not authenticated in time.',
    };
  }
  const setupError = setupIntent.last_setup_error;
  return {
    ...answered,
    status: 'failed',
    paymentMethodId: null,
    declineCode: setupError?.decline_code ?? setupError?.code ?? 'setup_failed',
    message: setupError?.message ?? 'Your card could not be saved.',
  };
}
