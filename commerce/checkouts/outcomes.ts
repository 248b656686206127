import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { businessMetrics } from '../../core/metrics.ts';
import type { CheckoutPaymentError } from '../../db/entities/checkout.ts';
import {
  Checkout,
  Customer,
  Order,
  OrderItem,
  Payment,
  Subscription,
} from '../../db/entities/index.ts';
import { planLabel } from '../../domain/prices.ts';
import { recordOrderDebit } from '../customers/balance.ts';
import { recordCustomerStateChange } from '../customers/state.ts';
import { orderWire } from '../orders/schemas.ts';
import { nextInvoiceNumber } from '../orders/service.ts';
import { appendEvent } from '../outbox.ts';
import type { ProductWire } from '../products/service.ts';
import {
  activateSubscriptionFromCheckout,
  startSubscriptionFromCheckout,
} from '../subscriptions/service.ts';
import { releaseDiscountRedemption } from './discounts.ts';
import { offerBeforeLock, recordChange, serializeCheckout } from './views.ts';

/** How MikroORM names the checkouts table in a query of checkouts (its first letter, 0). */
const checkoutAlias = 'c0';

/** The checkout a workflow step changes, locked for the caller's transaction. */
const lockedCheckout = (tx: EntityManager, checkoutId: string) =>
  tx.findOneOrFail(Checkout, { id: checkoutId }, { lockMode: LockMode.PESSIMISTIC_WRITE });

/** A succeeded checkout: its order, and what the benefit grants need. */
export interface CompletedCheckout {
  organizationId: string;
  customerId: string;
  productId: string;
  orderId: string;
  subscriptionId: string | null;
  /**
   * The product's live benefits, as the completion read them (so the grants need not read them
   * again); absent from histories recorded before, and from a completion run again.
   */
  benefitIds?: string[];
}

/**
 * What completeCheckout answers: the succeeded checkout, and whether its order may still owe
 * Stripe Tax its transaction (a checkout priced by Stripe Tax; see recordOrderTaxTransaction,
 * which has nothing to record otherwise).
 */
export interface CheckoutCompletion extends CompletedCheckout {
  taxTransactionOwed: boolean;
}

const completed = (
  order: Order,
  checkout: Checkout,
  offer?: Map<string, ProductWire>,
): CheckoutCompletion => {
  const product = offer?.get(order.product.id);
  return {
    organizationId: order.organization.id,
    customerId: order.customer.id,
    productId: order.product.id,
    orderId: order.id,
    subscriptionId: order.subscription?.id ?? null,
    ...(product && { benefitIds: product.benefits.map((benefit) => benefit.id) }),
    taxTransactionOwed:
      !order.stripeTaxTransactionId &&
      Boolean(order.stripeTaxCalculationId ?? checkout.stripeTaxCalculationId),
  };
};

/**
 * The paid order of a confirmed checkout, with its item, the checkout's amounts (nothing for a
 * trial, until the first renewal), what the customer's balance paid of them (the checkout's
 * hold) and billing details, and the organization's next invoice number: from then until the
 * commit the organization's row is locked.
 */
async function createOrderOf(
  tx: EntityManager,
  checkout: Checkout,
  subscription: Subscription | null,
) {
  const trialing = subscription?.status === 'trialing';
  const amounts = trialing
    ? { subtotal: 0, discount: 0, net: 0, tax: 0, taxLines: [], total: 0, fromBalance: 0 }
    : {
        subtotal: checkout.amount,
        discount: checkout.discountAmount,
        net: checkout.netAmount,
        tax: checkout.taxAmount ?? 0,
        taxLines: checkout.taxLines,
        total: checkout.totalAmount,
        fromBalance: checkout.fromBalanceAmount,
      };
  const organizationId = checkout.organization.id;
  const order = tx.create(Order, {
    organization: organizationId,
    customer: checkout.customer as NonNullable<Checkout['customer']>,
    product: checkout.product,
    discount: checkout.discount ?? null,
    subscription,
    checkoutId: checkout.id,
    status: 'paid',
    billingReason: subscription ? 'subscription_create' : 'purchase',
    subtotalAmount: amounts.subtotal,
    discountAmount: amounts.discount,
    netAmount: amounts.net,
    taxAmount: amounts.tax,
    taxLines: amounts.taxLines,
    totalAmount: amounts.total,
    fromBalanceAmount: amounts.fromBalance,
    currency: checkout.currency,
    billingName: checkout.customerBillingName ?? checkout.customerName ?? null,
    billingAddress: checkout.customerBillingAddress ?? null,
    // A subscription's first order pays for its first period (its trial, when it has one).
    billingPeriodStart: subscription?.currentPeriodStart ?? null,
    billingPeriodEnd: subscription?.currentPeriodEnd ?? null,
    invoiceNumber: await nextInvoiceNumber(tx, organizationId),
    metadata: checkout.metadata,
    customFieldData: checkout.customFieldData,
  });
  // Named as a renewal names it: a seat-based plan with its seats (`Team plan (5 seats)`).
  const plan = planLabel(checkout.product.name, checkout.seats ?? null);
  const item = tx.create(OrderItem, {
    order,
    label: trialing ? `${plan} (trial)` : plan,
    amount: amounts.subtotal,
    taxAmount: amounts.tax,
    seats: checkout.seats ?? null,
    productPrice: checkout.productPrice,
  });
  return { order, item };
}

/**
 * The subscription a paid checkout of a recurring product bills: the `incomplete` one its first
 * payment left (see openIncompleteSubscription), started now, or a new one; null for a one-time
 * product.
 */
async function subscriptionOnPayment(tx: EntityManager, checkout: Checkout, publicUrl: string) {
  if (checkout.product.recurringInterval == null) return null;
  // The subscription's terms depend on the price's kind (seat-based or not).
  await tx.populate(checkout, ['productPrice']);
  const waiting = checkout.subscription
    ? await tx.findOneOrFail(Subscription, checkout.subscription.id)
    : null;
  if (waiting?.status === 'incomplete') {
    return activateSubscriptionFromCheckout(tx, waiting, checkout, publicUrl);
  }
  return startSubscriptionFromCheckout(tx, checkout, publicUrl);
}

/**
 * A confirmed checkout paid (or owing nothing), made an order in one transaction: the paid order
 * with its item and the checkout's amounts and billing details, its invoice number, the payment
 * linked to it, the balance it held debited (an order_debit of its `from_balance_amount`); for a
 * recurring product the subscription with its first period, charged on `paymentMethodId` (the
 * card the checkout saved) at renewal, the card the customer's default when they had none; the
 * checkout succeeded. Records order.created, order.paid, checkout.updated (and the
 * subscription's events). Run twice, the second run finds the order by its checkout and answers
 * it.
 */
export async function completeCheckout(
  em: EntityManager,
  checkoutId: string,
  paymentId: string | null,
  publicUrl: string,
  paymentMethodId: string | null = null,
): Promise<CheckoutCompletion> {
  let completedNow = false;
  // What the order and the checkout's event show of its products, read before the lock.
  const db = em.fork();
  const offered = await offerBeforeLock(db, checkoutId, publicUrl);
  const done = await db.transactional(async (tx) => {
    // Locked first: of two runs at once, the second waits and then finds the order. Its
    // customer (the order's and the events') read with it, not locked.
    const checkout = await tx.findOneOrFail(
      Checkout,
      { id: checkoutId },
      {
        lockMode: LockMode.PESSIMISTIC_WRITE,
        lockTableAliases: [checkoutAlias],
        populate: ['customer'],
      },
    );
    // The order and the checkout's success are written together: a succeeded checkout has it.
    if (checkout.status === 'succeeded' && checkout.order) {
      return completed(await tx.findOneOrFail(Order, checkout.order.id), checkout);
    }
    if (checkout.status !== 'confirmed' || !checkout.customer) {
      throw new Error(`checkout ${checkoutId} is ${checkout.status}, not confirmed`);
    }
    // What the order and the checkout's event show of them, read before the invoice number is
    // taken: from then until the commit the organization's row is locked, and every checkout of
    // the organization completing meanwhile waits for it. The offer read before the lock loaded
    // the checkout's product, which the populate then skips (as the checkout's event then skips
    // its price, listed with the product).
    const offer = await offered.forLocked(tx, checkout);
    await tx.populate(checkout, ['product', 'discount']);
    const organizationId = checkout.organization.id;
    const subscription = await subscriptionOnPayment(tx, checkout, publicUrl);
    if (subscription) subscription.stripePaymentMethodId = paymentMethodId;
    if (subscription && paymentMethodId) {
      // The card becomes the customer's default when they have none (a conditional write: a
      // default chosen meanwhile stays); the activity tells Stripe (sendDefaultCardToStripe).
      await tx.nativeUpdate(
        Customer,
        { id: checkout.customer.id, defaultPaymentMethodId: null },
        { defaultPaymentMethodId: paymentMethodId },
      );
    }
    const { order, item } = await createOrderOf(tx, checkout, subscription);
    checkout.status = 'succeeded';
    checkout.order = order;
    checkout.subscription = subscription;
    checkout.paymentError = null;
    withoutAuthentication(checkout);
    await tx.flush();
    if (paymentId) {
      await tx.nativeUpdate(Payment, { id: paymentId }, { order: order.id, status: 'succeeded' });
    }
    // The checkout's hold of the balance ends as it succeeds; the order's debit takes over.
    const spentBalance = await recordOrderDebit(tx, order);
    const wire = orderWire(order, [item]);
    appendEvent(tx, organizationId, 'order.created', wire);
    appendEvent(tx, organizationId, 'order.paid', wire);
    appendEvent(
      tx,
      organizationId,
      'checkout.updated',
      await serializeCheckout(tx, checkout, publicUrl, offer),
    );
    if (subscription || spentBalance) {
      await recordCustomerStateChange(tx, organizationId, checkout.customer.id);
    }
    completedNow = true;
    return completed(order, checkout, offer);
  });
  if (completedNow) businessMetrics.checkoutsPaid.inc();
  return done;
}

/**
 * The `incomplete` subscription of a checkout created through the API (not from a checkout link)
 * for a recurring product whose first payment waits for its buyer's 3-D Secure step or was
 * declined, as Stripe makes one: listed, in webhooks (subscription.created), not started, no
 * benefits. Linked to the checkout, whose payment (within its life) starts it; its id. Run
 * again, it answers the same one; null for a checkout that makes none (a checkout link's, a
 * one-time product's, one no longer confirmed).
 */
export function openIncompleteSubscription(
  em: EntityManager,
  checkoutId: string,
  publicUrl: string,
): Promise<string | null> {
  return em.transactional(async (tx) => {
    const checkout = await lockedCheckout(tx, checkoutId);
    if (checkout.subscription) return checkout.subscription.id;
    if (checkout.status !== 'confirmed' || !opensIncompleteSubscription(checkout)) return null;
    await tx.populate(checkout, ['product', 'discount', 'customer', 'productPrice']);
    if (checkout.product.recurringInterval == null) return null;
    const subscription = await startSubscriptionFromCheckout(tx, checkout, publicUrl, {
      incomplete: true,
    });
    checkout.subscription = subscription;
    await recordChange(tx, checkout, 'checkout.updated', publicUrl);
    return subscription.id;
  });
}

/**
 * Whether the checkout's first payment, not made at once, leaves an `incomplete` subscription:
 * only a checkout the seller created through the API (Stripe's subscriptions created by API);
 * a checkout link's buyer has no subscription until they pay.
 */
export const opensIncompleteSubscription = (checkout: Checkout) => checkout.checkoutLink == null;

/** The 3-D Secure step a confirmed checkout's payment (or card setup) waits for. */
export interface CheckoutAuthentication {
  clientSecret: string;
  nextActionUrl: string | null;
}

/** The keys of `payment_processor_metadata` that tell the buyer's page to run a 3-D Secure step. */
const intentKeys = ['intent_status', 'intent_client_secret', 'intent_next_action_url'];

/** The checkout's processor metadata without a 3-D Secure step to run (it ended). */
function withoutAuthentication(checkout: Checkout) {
  const kept = Object.entries(checkout.paymentProcessorMetadata).filter(
    ([key]) => !intentKeys.includes(key),
  );
  checkout.paymentProcessorMetadata = Object.fromEntries(kept);
}

/**
 * The confirmed checkout's payment (or card setup) waits for its buyer's 3-D Secure step: its
 * `payment_processor_metadata` tells the buyer's page `intent_status: requires_action`, the
 * intent's `intent_client_secret` (for Stripe.js) and, when Stripe names one, the challenge's
 * address (`intent_next_action_url`). Records checkout.updated; a checkout no longer confirmed
 * is left as it is.
 */
export function awaitCheckoutAuthentication(
  em: EntityManager,
  checkoutId: string,
  { clientSecret, nextActionUrl }: CheckoutAuthentication,
  publicUrl: string,
): Promise<void> {
  return em.transactional(async (tx) => {
    const checkout = await lockedCheckout(tx, checkoutId);
    if (checkout.status !== 'confirmed') return;
    checkout.paymentProcessorMetadata = {
      ...checkout.paymentProcessorMetadata,
      intent_status: 'requires_action',
      intent_client_secret: clientSecret,
      ...(nextActionUrl ? { intent_next_action_url: nextActionUrl } : {}),
    };
    await recordChange(tx, checkout, 'checkout.updated', publicUrl);
  });
}

/**
 * The Payment- or SetupIntent whose 3-D Secure step the checkout waits for (its page was told to
 * run it), or null: only then is news of the step's end worth its workflow's time.
 */
export function awaitedAuthentication(checkout: Checkout): string | null {
  const clientSecret = checkout.paymentProcessorMetadata.intent_client_secret;
  if (checkout.status !== 'confirmed' || !clientSecret) return null;
  return clientSecret.split('_secret_')[0] ?? null;
}

/** Whether the checkout still waits for the 3-D Secure step of `intentId`. */
export async function awaitsAuthenticationOf(
  em: EntityManager,
  checkoutId: string,
  intentId: string,
): Promise<boolean> {
  const checkout = await em.findOne(Checkout, { id: checkoutId });
  return checkout !== null && awaitedAuthentication(checkout) === intentId;
}

/** What the buyer reads for Stripe's answers written for developers (a failed 3-D Secure step). */
const failedAuthentication =
  'Your card could not be authenticated. Try again, or use another card.';
const buyerMessages: Record<string, string> = {
  payment_intent_authentication_failure: failedAuthentication,
  setup_intent_authentication_failure: failedAuthentication,
};

/**
 * A declined (or abandoned) payment of a confirmed checkout: the checkout failed with the
 * processor's message, which its buyer may confirm again, and its discount redemption and its
 * hold of the customer's balance are given back (a confirm again takes them anew). Records
 * checkout.updated; a checkout no longer confirmed (failed already, succeeded, expired) is left
 * as it is.
 */
export async function failCheckoutPayment(
  em: EntityManager,
  checkoutId: string,
  paymentError: CheckoutPaymentError,
  publicUrl: string,
): Promise<void> {
  const failedNow = await em.transactional(async (tx) => {
    const checkout = await lockedCheckout(tx, checkoutId);
    if (checkout.status !== 'confirmed') return false;
    checkout.status = 'failed';
    // Its hold of the customer's balance ends: a confirm again takes a new one.
    checkout.fromBalanceAmount = 0;
    const buyerMessage = buyerMessages[paymentError.code];
    checkout.paymentError = buyerMessage
      ? { ...paymentError, message: buyerMessage }
      : paymentError;
    withoutAuthentication(checkout);
    await releaseDiscountRedemption(tx, checkoutId);
    await tx.flush();
    appendEvent(
      tx,
      checkout.organization.id,
      'checkout.updated',
      await serializeCheckout(tx, checkout, publicUrl),
    );
    return true;
  });
  if (failedNow) businessMetrics.checkoutsFailed.inc();
}

/**
 * Expires an open checkout (its workflow's timer ran out), recording `checkout.updated`. A
 * failed one stays failed, and gives back a redemption it still holds (failed before failures
 * gave them back).
 */
export function expireCheckout(
  em: EntityManager,
  checkoutId: string,
  publicUrl: string,
): Promise<void> {
  return em.transactional(async (tx) => {
    const checkout = await tx.findOne(
      Checkout,
      { id: checkoutId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (checkout?.status === 'failed') await releaseDiscountRedemption(tx, checkoutId);
    if (checkout?.status !== 'open') return;
    checkout.status = 'expired';
    await recordChange(tx, checkout, 'checkout.updated', publicUrl);
  });
}
