import Stripe from 'stripe';
import type { StripeClient } from './client.ts';
import { paymentSource } from './payments.ts';

/**
 * A customer's saved cards at Stripe, as the customer portal manages them: the calls only, no
 * rules (commerce/customer-portal decides who may do what).
 */

const isMissing = (error: unknown) =>
  error instanceof Stripe.errors.StripeInvalidRequestError && error.statusCode === 404;

/** The customer's cards, newest first (Stripe keeps at most a handful per customer). */
export async function listCards(
  stripe: StripeClient,
  stripeCustomerId: string,
): Promise<Stripe.PaymentMethod[]> {
  const page = await stripe.customers.listPaymentMethods(stripeCustomerId, {
    type: 'card',
    limit: 100,
  });
  return page.data;
}

/** One of the customer's payment methods; null when it is not theirs (or does not exist). */
export async function findCustomerPaymentMethod(
  stripe: StripeClient,
  stripeCustomerId: string,
  paymentMethodId: string,
): Promise<Stripe.PaymentMethod | null> {
  try {
    return await stripe.customers.retrievePaymentMethod(stripeCustomerId, paymentMethodId);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/** A confirmation token Stripe still holds; null when unknown. */
export async function findConfirmationToken(
  stripe: StripeClient,
  confirmationTokenId: string,
): Promise<Stripe.ConfirmationToken | null> {
  try {
    return await stripe.confirmationTokens.retrieve(confirmationTokenId);
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/**
 * Saves a card for off-session charges: a SetupIntent confirmed at once with the card or
 * confirmation token, under `idempotencyKey` (a form sent twice saves it once). A card that
 * needs its holder's 3-D Secure step answers `requires_action`; a declined one is answered as
 * its failed SetupIntent, not thrown; a card or token Stripe refuses to use (another
 * customer's, one used up) as `refused` with Stripe's reason.
 */
export async function setUpCard(
  stripe: StripeClient,
  setup: {
    stripeCustomerId: string;
    paymentMethodOrToken: string;
    /** Where a redirecting authentication sends the card holder back to. */
    returnUrl: string;
    idempotencyKey: string;
    metadata: Record<string, string>;
  },
): Promise<Stripe.SetupIntent | { refused: string }> {
  try {
    return await stripe.setupIntents.create(
      {
        customer: setup.stripeCustomerId,
        ...paymentSource(setup.paymentMethodOrToken),
        confirm: true,
        usage: 'off_session',
        return_url: setup.returnUrl,
        metadata: setup.metadata,
        expand: ['payment_method'],
      },
      { idempotencyKey: setup.idempotencyKey },
    );
  } catch (error) {
    if (error instanceof Stripe.errors.StripeCardError && error.setup_intent) {
      return error.setup_intent;
    }
    if (error instanceof Stripe.errors.StripeInvalidRequestError) return { refused: error.message };
    throw error;
  }
}

/** A SetupIntent with its payment method; null when Stripe knows no such intent. */
export async function findSetupIntent(
  stripe: StripeClient,
  setupIntentId: string,
): Promise<Stripe.SetupIntent | null> {
  try {
    return await stripe.setupIntents.retrieve(setupIntentId, { expand: ['payment_method'] });
  } catch (error) {
    if (isMissing(error)) return null;
    throw error;
  }
}

/** The card the customer's invoices (and Stripe's own retries) charge by default. */
export async function setDefaultCard(
  stripe: StripeClient,
  stripeCustomerId: string,
  paymentMethodId: string,
): Promise<void> {
  await stripe.customers.update(stripeCustomerId, {
    invoice_settings: { default_payment_method: paymentMethodId },
  });
}

/**
 * setDefaultCard for a step that must not be stuck on it: a card Stripe refuses as the default
 * (detached since) answers false instead of throwing; a Stripe outage still throws (retried).
 */
export async function setDefaultCardUnlessRefused(
  stripe: StripeClient,
  stripeCustomerId: string,
  paymentMethodId: string,
): Promise<boolean> {
  try {
    await setDefaultCard(stripe, stripeCustomerId, paymentMethodId);
    return true;
  } catch (error) {
    if (error instanceof Stripe.errors.StripeInvalidRequestError) return false;
    throw error;
  }
}

/** Removes a card from its customer: it can never be charged again. */
export async function detachCard(stripe: StripeClient, paymentMethodId: string): Promise<void> {
  await stripe.paymentMethods.detach(paymentMethodId);
}
