import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { invalidField } from '../../core/errors.ts';
import {
  Discount,
  DiscountProduct,
  Order,
  OrderItem,
  Payment,
  Product,
  ProductPrice,
  Subscription,
  SubscriptionPrice,
} from '../../db/entities/index.ts';
import { subscriptionSettingsOf } from '../../db/entities/organization.ts';
import type { PendingSubscriptionItem } from '../../db/entities/subscription.ts';
import type { Orm } from '../../db/orm.ts';
import { priceAmountOf } from '../../domain/checkout-amounts.ts';
import { discountRefusal } from '../../domain/discounts.ts';
import { isMeteredPrice, isStaticPrice, minimumSeats, planLabel } from '../../domain/prices.ts';
import { prorate } from '../../domain/proration.ts';
import type {
  SubscriptionChange,
  SubscriptionChangeResult,
  SubscriptionSchedule,
} from '../../domain/subscription-schedule.ts';
import type { ProrationBehavior } from '../../domain/subscriptions.ts';
import { shareTax } from '../../domain/tax.ts';
import type { StripeClient } from '../../integrations/stripe/client.ts';
import { chargeSubscriptionCard } from '../../integrations/stripe/payments.ts';
import { recordMissingTaxTransactions } from '../../integrations/stripe/tax-transactions.ts';
import { addBalanceEntry } from '../customers/balance.ts';
import { recordCustomerStateChange } from '../customers/state.ts';
import { commerceError, resourceNotFound } from '../errors.ts';
import {
  type BillingDetails,
  type SaleTax,
  saleTax,
  subscriptionBillingDetails,
} from '../orders/sale-tax.ts';
import { nextInvoiceNumber, serializeOrders } from '../orders/service.ts';
import { appendEvent, type CommerceEventType } from '../outbox.ts';
import { scheduleOf, subscriptionNow } from './schedule.ts';
import type { SubscriptionWire } from './schemas.ts';
import { serializeSubscriptions } from './service.ts';

/**
 * What a change needs: the database, Stripe (an `invoice` plan change charges) and the API's
 * public URL (the subscription's wire links to hosted pages).
 */
export interface SubscriptionChangeDependencies {
  orm: Orm;
  stripe: StripeClient;
  publicUrl: string;
}

/** One change asked of a subscription's workflow, as its update names it. */
export interface SubscriptionUpdate {
  /** The update's id: a retried activity finds its own work done. */
  id: string;
  /** The workflow the update runs in: a charge's outcome is routed back to it. */
  workflowId: string;
}

type Change<Kind extends SubscriptionChange['kind']> = Extract<SubscriptionChange, { kind: Kind }>;

/** A subscription whose life is over: nothing changes it any more. */
export const hasEnded = (subscription: Pick<Subscription, 'status' | 'endedAt'>) =>
  subscription.endedAt != null ||
  subscription.status === 'canceled' ||
  subscription.status === 'incomplete_expired';

/**
 * Applies a change asked through the API to the subscription (the subscription workflow's
 * changeSubscription update runs it, so it never races a renewal): one transaction with the
 * subscription row locked, its events in the outbox. Run again (a retried activity), a change
 * finds the subscription already as asked and answers it unchanged; an `invoice` plan change
 * charges under an idempotency key named by the update's id, so Stripe answers a retry with the first
 * charge.
 */
export async function applySubscriptionChange(
  deps: SubscriptionChangeDependencies,
  subscriptionId: string,
  update: SubscriptionUpdate,
  change: SubscriptionChange,
): Promise<SubscriptionChangeResult> {
  switch (change.kind) {
    case 'cancel_at_period_end':
      return inLockedSubscription(deps, subscriptionId, (_tx, subscription, now) =>
        change.cancelAtPeriodEnd
          ? cancelAtPeriodEnd(subscription, change, now)
          : uncancel(subscription, now),
      );
    case 'revoke':
      return inLockedSubscription(deps, subscriptionId, (_tx, subscription, now) =>
        revoke(subscription, change, now),
      );
    case 'trial_end':
      return inLockedSubscription(deps, subscriptionId, (_tx, subscription, now) =>
        moveTrialEnd(subscription, change, now),
      );
    case 'discount':
      return inLockedSubscription(deps, subscriptionId, (tx, subscription, now) =>
        changeDiscount(tx, subscription, change, now),
      );
    case 'product':
      return changePlan(deps, subscriptionId, update, {
        prorationBehavior: change.prorationBehavior,
        isAsked: (subscription) => subscription.product.id === change.productId,
        targetOf: (em, subscription) => targetPlanOf(em, subscription, change.productId),
      });
    case 'seats':
      return changePlan(deps, subscriptionId, update, {
        prorationBehavior: change.prorationBehavior,
        isAsked: (subscription) => subscription.seats === change.seats,
        targetOf: (em, subscription) => seatsPlanOf(em, subscription, change.seats),
      });
  }
}

/** The subscription as /v1 shows it, and the schedule its workflow follows from now on. */
async function resultOf(
  em: EntityManager,
  subscription: Subscription,
  publicUrl: string,
): Promise<{ subscription: SubscriptionWire; schedule: SubscriptionSchedule }> {
  const [wire] = await serializeSubscriptions(em, [subscription], publicUrl);
  if (!wire) throw new Error(`subscription ${subscription.id} not serialized`);
  return { subscription: wire, schedule: await scheduleOf(em, subscription) };
}

/**
 * Runs `apply` on the subscription locked in a transaction, at the subscription's "now" (its
 * test clock's time in a sandbox); `apply` changes the row and names the events the change
 * records (customer.state_changed follows them), none when it found the subscription already as
 * asked.
 */
function inLockedSubscription(
  { orm, publicUrl }: SubscriptionChangeDependencies,
  subscriptionId: string,
  apply: (
    tx: EntityManager,
    subscription: Subscription,
    now: Date,
  ) => CommerceEventType[] | Promise<CommerceEventType[]>,
): Promise<SubscriptionChangeResult> {
  return orm.em.fork().transactional(async (tx) => {
    const subscription = await tx.findOne(
      Subscription,
      { id: subscriptionId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!subscription) throw resourceNotFound('Subscription not found');
    const events = await apply(tx, subscription, await subscriptionNow(tx, subscription));
    await tx.flush();
    const result = await resultOf(tx, subscription, publicUrl);
    if (events.length > 0) {
      const organizationId = subscription.organization.id;
      for (const type of events) appendEvent(tx, organizationId, type, result.subscription);
      await recordCustomerStateChange(tx, organizationId, subscription.customer.id);
    }
    return result;
  });
}

/** Cancel at the end of the period: the subscription stays active (or trialing) until then. */
function cancelAtPeriodEnd(
  subscription: Subscription,
  change: Change<'cancel_at_period_end'>,
  now: Date,
): CommerceEventType[] {
  if (hasEnded(subscription)) throw commerceError('AlreadyCanceledSubscription');
  if (subscription.cancelAtPeriodEnd) {
    const asked =
      subscription.customerCancellationReason === change.reason &&
      subscription.customerCancellationComment === change.comment;
    // The same cancel again is this change retried; another one comes too late.
    if (asked) return [];
    throw commerceError('AlreadyCanceledSubscription');
  }
  subscription.cancelAtPeriodEnd = true;
  subscription.canceledAt = now;
  subscription.endsAt = subscription.currentPeriodEnd ?? now;
  subscription.customerCancellationReason = change.reason;
  subscription.customerCancellationComment = change.comment;
  return ['subscription.updated', 'subscription.canceled'];
}

/** Take back a cancel at period end, while the period still runs. */
function uncancel(subscription: Subscription, now: Date): CommerceEventType[] {
  if (hasEnded(subscription)) throw commerceError('AlreadyCanceledSubscription');
  if (!subscription.cancelAtPeriodEnd) return [];
  const periodEnd = subscription.currentPeriodEnd;
  if (periodEnd && periodEnd.getTime() <= now.getTime()) {
    throw commerceError('AlreadyCanceledSubscription', 'The subscription has already ended.');
  }
  subscription.cancelAtPeriodEnd = false;
  subscription.canceledAt = null;
  subscription.endsAt = null;
  subscription.customerCancellationReason = null;
  subscription.customerCancellationComment = null;
  return ['subscription.updated', 'subscription.uncanceled'];
}

/** End the subscription now; its workflow then revokes the benefits and ends too. */
function revoke(
  subscription: Subscription,
  change: Change<'revoke'>,
  now: Date,
): CommerceEventType[] {
  // Only this change retried gets here with the subscription ended: the route and the
  // workflow refuse any other change of an ended subscription.
  if (hasEnded(subscription)) return [];
  const wasCanceled = subscription.cancelAtPeriodEnd;
  subscription.status = 'canceled';
  subscription.cancelAtPeriodEnd = false;
  subscription.canceledAt = subscription.canceledAt ?? now;
  subscription.endsAt = now;
  subscription.endedAt = now;
  subscription.nextPaymentAttemptAt = null;
  if (change.reason) subscription.customerCancellationReason = change.reason;
  if (change.comment) subscription.customerCancellationComment = change.comment;
  return [
    'subscription.updated',
    ...(wasCanceled ? [] : ['subscription.canceled' as const]),
    'subscription.revoked',
  ];
}

/** Extend or shorten a trial: its end is the end of the first period, and the billing anchor. */
function moveTrialEnd(
  subscription: Subscription,
  change: Change<'trial_end'>,
  now: Date,
): CommerceEventType[] {
  const trialEnd = new Date(change.trialEnd);
  if (subscription.trialEnd?.getTime() === trialEnd.getTime()) return [];
  if (subscription.status !== 'trialing') {
    throw invalidField(['body', 'trial_end'], 'The subscription is not trialing.');
  }
  if (trialEnd.getTime() <= now.getTime()) {
    throw invalidField(['body', 'trial_end'], 'The trial end must be in the future.');
  }
  subscription.trialEnd = trialEnd;
  subscription.currentPeriodEnd = trialEnd;
  subscription.billingAnchor = trialEnd;
  return ['subscription.updated'];
}

/** Set a redeemable discount of the organization (counted as a redemption), or remove it. */
async function changeDiscount(
  tx: EntityManager,
  subscription: Subscription,
  change: Change<'discount'>,
  now: Date,
): Promise<CommerceEventType[]> {
  if ((subscription.discount?.id ?? null) === change.discountId) return [];
  if (change.discountId === null) {
    subscription.discount = null;
    return ['subscription.updated'];
  }
  const refused = (message: string) => invalidField(['body', 'discount_id'], message);
  const discount = await tx.findOne(Discount, {
    id: change.discountId,
    organization: subscription.organization.id,
    deletedAt: null,
  });
  if (!discount) throw refused('Discount not found.');
  const restrictions = await tx.find(DiscountProduct, { discount }, { fields: ['product'] });
  const refusal = discountRefusal(
    {
      startsAt: discount.startsAt ?? null,
      endsAt: discount.endsAt ?? null,
      maxRedemptions: discount.maxRedemptions ?? null,
      redemptionsCount: discount.redemptionsCount,
      productIds: restrictions.map((restriction) => restriction.product.id),
    },
    { at: now, productId: subscription.product.id },
  );
  if (refusal) throw refused(`The discount cannot be applied: ${refusal.replaceAll('_', ' ')}.`);
  // Counted the way a checkout counts it: the last redemption left goes to one of two at once.
  const counted = await tx.getConnection().execute<{ affectedRows: number }>(
    `update discounts set redemptions_count = redemptions_count + 1
     where id = ? and (max_redemptions is null or redemptions_count < max_redemptions)`,
    [discount.id],
    'run',
    tx.getTransactionContext(),
  );
  if (counted.affectedRows !== 1) throw refused('The discount cannot be applied: exhausted.');
  subscription.discount = discount;
  return ['subscription.updated'];
}

/**
 * The plan a subscription may change to: the product, the price it bills, its metered prices,
 * and the seats a seat-based price bills (null for other prices).
 */
interface TargetPlan {
  product: Product;
  staticPrice: ProductPrice;
  meteredPrices: ProductPrice[];
  amount: number;
  seats: number | null;
}

/** The seats `price` bills for a subscription now billing `seats`: kept, else the fewest. */
const seatsOn = (price: ProductPrice, seats: number | null) =>
  price.amountType === 'seat_based' ? (seats ?? minimumSeats) : null;

/**
 * The organization's recurring, live product `productId` with a live static price in the
 * subscription's currency and the same interval; any other answers 422 at product_id.
 */
async function targetPlanOf(
  em: EntityManager,
  subscription: Subscription,
  productId: string,
): Promise<TargetPlan> {
  const refused = (message: string) => invalidField(['body', 'product_id'], message);
  const product = await em.findOne(Product, {
    id: productId,
    organization: subscription.organization.id,
  });
  if (!product) throw refused('Product not found.');
  if (product.isArchived) throw refused('The product is archived.');
  if (product.recurringInterval !== subscription.recurringInterval) {
    throw refused(
      `The product must renew every ${subscription.recurringInterval}, like the subscription.`,
    );
  }
  const prices = await em.find(
    ProductPrice,
    { product, isArchived: false },
    { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
  );
  const staticPrice = prices.find(
    (price) =>
      isStaticPrice(price.amountType) &&
      (price.priceCurrency ?? subscription.currency) === subscription.currency,
  );
  if (!staticPrice) {
    throw refused(`The product has no available price in ${subscription.currency.toUpperCase()}.`);
  }
  const seats = seatsOn(staticPrice, subscription.seats ?? null);
  return {
    product,
    staticPrice,
    meteredPrices: prices.filter((price) => isMeteredPrice(price.amountType)),
    amount: priceAmountOf(staticPrice, { seats }),
    seats,
  };
}

/**
 * The subscription's own plan billing `seats` instead: its static price must be seat-based;
 * any other answers 422 at seats.
 */
async function seatsPlanOf(
  em: EntityManager,
  subscription: Subscription,
  seats: number,
): Promise<TargetPlan> {
  const billed = await em.find(SubscriptionPrice, { subscription }, { populate: ['productPrice'] });
  const prices = billed.map((link) => link.productPrice);
  const staticPrice = prices.find((price) => isStaticPrice(price.amountType));
  if (staticPrice?.amountType !== 'seat_based') {
    throw invalidField(['body', 'seats'], 'The subscription’s price is not seat-based.');
  }
  return {
    product: subscription.product,
    staticPrice,
    meteredPrices: prices.filter((price) => isMeteredPrice(price.amountType)),
    amount: priceAmountOf(staticPrice, { seats }),
    seats,
  };
}

/**
 * The lines of a plan change at `now`: the unused time of the current plan credited, the
 * remaining time of the new one debited. A trial has paid nothing: it changes for nothing.
 */
async function prorationItemsOf(
  em: EntityManager,
  subscription: Subscription,
  target: TargetPlan,
  now: Date,
): Promise<PendingSubscriptionItem[]> {
  if (subscription.status === 'trialing' || !subscription.currentPeriodEnd) return [];
  const { unusedCredit, remainingCharge } = prorate({
    oldAmount: subscription.amount,
    newAmount: target.amount,
    periodStart: subscription.currentPeriodStart,
    periodEnd: subscription.currentPeriodEnd,
    at: now,
  });
  const billed = await em.find(SubscriptionPrice, { subscription }, { populate: ['productPrice'] });
  const oldPrice = billed.find((link) => isStaticPrice(link.productPrice.amountType));
  return [
    {
      label: `Unused time on ${planLabel(subscription.product.name, subscription.seats ?? null)}`,
      amount: unusedCredit,
      productPriceId: oldPrice?.productPrice.id ?? null,
    },
    {
      label: `Remaining time on ${planLabel(target.product.name, target.seats)}`,
      amount: remainingCharge,
      productPriceId: target.staticPrice.id,
    },
  ].filter((item) => item.amount !== 0);
}

/**
 * Charges the difference of an `invoice` plan change off-session on the subscription's saved
 * card, before anything else is written: a decline answers 400 PaymentError with Stripe's
 * message and leaves only the failed Payment. Answers the succeeded payment's id.
 */
async function chargeDifference(
  { orm, stripe }: SubscriptionChangeDependencies,
  subscription: Subscription,
  update: SubscriptionUpdate,
  amount: number,
): Promise<string> {
  const stripeCustomerId = subscription.customer.stripeCustomerId;
  const paymentMethod = subscription.stripePaymentMethodId;
  if (!stripeCustomerId || !paymentMethod) {
    throw commerceError('PaymentError', 'The subscription has no saved payment method to charge.');
  }
  const charged = await chargeSubscriptionCard(
    { orm, stripe },
    {
      workflowId: update.workflowId,
      organizationId: subscription.organization.id,
      idempotencyKey: `subscription-update:${update.id}`,
      amount,
      currency: subscription.currency,
      stripeCustomerId,
      paymentMethodId: paymentMethod,
    },
  );
  if (charged.status === 'succeeded') return charged.paymentId;
  if (charged.status === 'failed') {
    throw commerceError('PaymentError', charged.message ?? 'The card was declined.');
  }
  // Still processing: the webhook settles the Payment row; this activity's retry reads it.
  const payment = await orm.em.fork().findOneOrFail(Payment, { id: charged.paymentId });
  if (payment.status === 'succeeded') return payment.id;
  if (payment.status === 'failed') {
    throw commerceError('PaymentError', payment.declineMessage ?? 'The card was declined.');
  }
  throw new Error(`payment ${payment.id} of the plan change is still processing`);
}

/**
 * A change of what a subscription bills (its product, or its seats): how its proration is
 * billed (null: the organization's setting), when the subscription already bills what was asked,
 * and what it bills from now on.
 */
interface PlanChange {
  prorationBehavior: ProrationBehavior | null;
  isAsked: (subscription: Subscription) => boolean;
  targetOf: (em: EntityManager, subscription: Subscription) => Promise<TargetPlan>;
}

/**
 * Change the plan: the product (or the seats), its static price (and its metered prices) and
 * amount from now on, with the proration of the period left as `proration_behavior` (else the
 * organization's setting) says. `invoice` charges a positive difference now with its tax (`saleTax`,
 * docs/tax.md), FIRST, and then, in one transaction, switches the plan and writes the paid
 * subscription_update order with the payment (its Stripe Tax transaction recorded after);
 * under `prorate` a positive difference becomes pending items of the next renewal. A negative
 * difference (a downgrade's credit, either way) goes to the customer's balance at once
 * (proration_credit, once per update), which the next order uses before the card.
 */
async function changePlan(
  deps: SubscriptionChangeDependencies,
  subscriptionId: string,
  update: SubscriptionUpdate,
  change: PlanChange,
): Promise<SubscriptionChangeResult> {
  const em = deps.orm.em.fork();
  const subscription = await em.findOne(
    Subscription,
    { id: subscriptionId },
    { populate: ['organization', 'customer', 'product'] },
  );
  if (!subscription) throw resourceNotFound('Subscription not found');
  // Already on it: the same plan asked again, or this change retried after it committed (the
  // Stripe Tax transaction of its order may still be owed).
  if (change.isAsked(subscription)) {
    await recordMissingTaxTransactions(deps, { subscription: subscriptionId });
    return resultOf(em, subscription, deps.publicUrl);
  }
  if (hasEnded(subscription)) throw commerceError('AlreadyCanceledSubscription');
  if (subscription.status !== 'active' && subscription.status !== 'trialing') {
    throw commerceError(
      'NotPermitted',
      `A ${subscription.status.replace('_', ' ')} subscription cannot change its plan ` +
        'until its renewal is paid.',
    );
  }
  const target = await change.targetOf(em, subscription);
  const behavior =
    change.prorationBehavior ?? subscriptionSettingsOf(subscription.organization).prorationBehavior;
  const items = await prorationItemsOf(
    em,
    subscription,
    target,
    await subscriptionNow(em, subscription),
  );
  const difference = items.reduce((sum, item) => sum + item.amount, 0);
  const invoiced = behavior === 'invoice' && difference > 0;
  const credited = difference < 0;
  const billedTo = invoiced ? await subscriptionBillingDetails(em, subscription) : null;
  const tax = billedTo
    ? await saleTax(
        em,
        {
          organizationId: subscription.organization.id,
          productId: target.product.id,
          customer: billedTo,
          currency: subscription.currency,
          netAmount: difference,
          reference: `subscription-update:${update.id}`,
        },
        deps.stripe,
      )
    : null;
  const paymentId = tax
    ? await chargeDifference(deps, subscription, update, tax.totalAmount)
    : null;

  const result = await em.fork().transactional(async (tx) => {
    const locked = await tx.findOneOrFail(
      Subscription,
      { id: subscriptionId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (change.isAsked(locked)) return resultOf(tx, locked, deps.publicUrl);
    if (locked.product.id !== target.product.id) {
      await tx.nativeDelete(SubscriptionPrice, { subscription: locked.id });
      for (const price of [target.staticPrice, ...target.meteredPrices]) {
        tx.create(SubscriptionPrice, { subscription: locked, productPrice: price });
      }
      locked.product = tx.getReference(Product, target.product.id);
    }
    locked.amount = target.amount;
    locked.seats = target.seats;
    if (!invoiced && !credited) locked.pendingItems = [...locked.pendingItems, ...items];
    await tx.flush();
    if (paymentId && tax && billedTo) {
      await recordPaidChange(tx, locked, items, paymentId, { tax, billedTo });
    }
    if (credited) await creditProration(tx, locked, items, update);
    const result = await resultOf(tx, locked, deps.publicUrl);
    const organizationId = locked.organization.id;
    appendEvent(tx, organizationId, 'subscription.updated', result.subscription);
    await recordCustomerStateChange(tx, organizationId, locked.customer.id);
    return result;
  });
  // After the commit: no Stripe call in a transaction.
  if (tax?.stripeTaxCalculationId)
    await recordMissingTaxTransactions(deps, { subscription: subscriptionId });
  return result;
}

/** A downgrade's credit (the negative difference of its proration lines) to the balance. */
function creditProration(
  tx: EntityManager,
  subscription: Subscription,
  items: PendingSubscriptionItem[],
  update: SubscriptionUpdate,
) {
  const difference = items.reduce((sum, item) => sum + item.amount, 0);
  return addBalanceEntry(tx, {
    organizationId: subscription.organization.id,
    customerId: subscription.customer.id,
    currency: subscription.currency,
    amount: -difference,
    kind: 'proration_credit',
    reason: items.map((item) => item.label).join('; '),
    subscriptionId: subscription.id,
    idempotencyKey: `subscription-update:${update.id}`,
  });
}

/**
 * The paid order of an invoiced plan change, billed to `billedTo`: its proration lines (each
 * with its share of the tax), its tax, and its payment linked to it.
 */
async function recordPaidChange(
  tx: EntityManager,
  subscription: Subscription,
  items: PendingSubscriptionItem[],
  paymentId: string,
  { tax, billedTo }: { tax: SaleTax; billedTo: BillingDetails },
): Promise<void> {
  await tx.populate(subscription, ['customer']);
  const organizationId = subscription.organization.id;
  const amount = items.reduce((sum, item) => sum + item.amount, 0);
  const order = tx.create(Order, {
    organization: organizationId,
    customer: subscription.customer,
    product: subscription.product,
    discount: null,
    subscription,
    checkoutId: null,
    status: 'paid',
    billingReason: 'subscription_update',
    subtotalAmount: amount,
    discountAmount: 0,
    netAmount: amount,
    taxAmount: tax.taxAmount,
    taxLines: tax.lines,
    stripeTaxCalculationId: tax.stripeTaxCalculationId,
    totalAmount: tax.totalAmount,
    currency: subscription.currency,
    billingName: subscription.customer.name ?? null,
    billingAddress: billedTo.billingAddress ?? null,
    invoiceNumber: await nextInvoiceNumber(tx, organizationId),
    metadata: {},
  });
  const taxShares = shareTax(
    items.map((item) => item.amount),
    tax.taxAmount,
  );
  for (const [index, item] of items.entries()) {
    tx.create(OrderItem, {
      order,
      label: item.label,
      amount: item.amount,
      taxAmount: taxShares[index] ?? 0,
      proration: true,
      productPrice: item.productPriceId,
    });
  }
  await tx.flush();
  await tx.nativeUpdate(Payment, { id: paymentId }, { order: order.id, status: 'succeeded' });
  const [wire] = await serializeOrders(tx, [order]);
  if (!wire) throw new Error(`order ${order.id} not serialized`);
  appendEvent(tx, organizationId, 'order.created', wire);
  appendEvent(tx, organizationId, 'order.paid', wire);
}
