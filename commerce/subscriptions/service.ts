import { LockMode, type QueryOrderMap } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import {
  type Checkout,
  Order,
  ProductPrice,
  Subscription,
  SubscriptionPrice,
  TestClock,
} from '../../db/entities/index.ts';
import { findPage, inList, type ListQuery } from '../../db/listing.ts';
import { metadataFilterConditions, placeholders } from '../../db/sql.ts';
import { trialEnd } from '../../domain/checkout-amounts.ts';
import { minimumSeats } from '../../domain/prices.ts';
import { resourceNotFound } from '../errors.ts';
import { appendEvent } from '../outbox.ts';
import { priceWire } from '../products/schemas.ts';
import { serializeProducts } from '../products/service.ts';
import { currentMeterUsage } from './renewal-bill.ts';
import {
  type FailedRenewalTotal,
  type failedRenewalSortFields,
  failedRenewalStatuses,
  type SubscriptionWire,
  subscriptionMeterWire,
  type subscriptionSortFields,
  subscriptionWire,
} from './schemas.ts';

type SubscriptionSortField = (typeof subscriptionSortFields)[number];
type FailedRenewalSortField = (typeof failedRenewalSortFields)[number];
type FailedRenewalStatus = (typeof failedRenewalStatuses)[number];

/**
 * Subscriptions as /v1 answers them: customers and discounts populated, products serialized
 * once each, the prices each subscription bills and its metered usage (one query for all).
 */
export async function serializeSubscriptions(
  em: EntityManager,
  subscriptions: Subscription[],
  publicUrl: string,
): Promise<SubscriptionWire[]> {
  if (subscriptions.length === 0) return [];
  await em.populate(subscriptions, ['customer', 'product', 'discount']);
  const products = [...new Map(subscriptions.map((s) => [s.product.id, s.product])).values()];
  const [productWires, billed] = await Promise.all([
    serializeProducts(em, products, publicUrl),
    em.find(
      SubscriptionPrice,
      { subscription: { $in: subscriptions.map((subscription) => subscription.id) } },
      { populate: ['productPrice.meter'], orderBy: [{ id: 'asc' }] },
    ),
  ]);
  const productWireOf = new Map(productWires.map((wire) => [wire.id, wire]));
  const usageOf = new Map(
    (await currentMeterUsage(em, subscriptions, billed)).map((usage) => [
      usage.subscriptionPriceId,
      usage,
    ]),
  );
  return subscriptions.map((subscription) => {
    const links = billed.filter((link) => link.subscription.id === subscription.id);
    const prices = links.map((link) => priceWire(link.productPrice, subscription.product));
    const meters = links.flatMap((link) => {
      const usage = usageOf.get(link.id);
      const meter = link.productPrice.meter;
      return usage && meter ? [subscriptionMeterWire(subscription, usage, meter)] : [];
    });
    const product = productWireOf.get(subscription.product.id);
    if (!product) throw new Error(`product ${subscription.product.id} not serialized`);
    return subscriptionWire(subscription, product, prices, meters);
  });
}

/** The `external_customer_id` list filter: the seller's own ids for its customers. */
export const externalIdFilter = z.string().min(1);

export interface SubscriptionListFilter {
  productIds: string[];
  customerIds: string[];
  externalCustomerIds: string[];
  discountIds: string[];
  /** Active (or trialing) ones only, or only the others. */
  active?: boolean | undefined;
  /** Only these statuses (none given: all). */
  statuses: Subscription['status'][];
  metadata: Record<string, string[]>;
}

/** The statuses Polar calls active (its `active` filter and the export's Active column). */
export const activeStatuses: Subscription['status'][] = ['active', 'trialing'];

/** The sort key of a field: related rows sort by what a person reads of them. */
const sortKeys: Record<
  SubscriptionSortField,
  (direction: 'asc' | 'desc') => QueryOrderMap<Subscription>
> = {
  customer: (direction) => ({ customer: { email: direction } }),
  status: (direction) => ({ status: direction }),
  started_at: (direction) => ({ startedAt: direction }),
  current_period_end: (direction) => ({ currentPeriodEnd: direction }),
  amount: (direction) => ({ amount: direction }),
  product: (direction) => ({ product: { name: direction } }),
  discount: (direction) => ({ discount: { name: direction } }),
};

/** A page of the organization's subscriptions matching `filter`, and how many match. */
export function listSubscriptions(
  em: EntityManager,
  organizationId: string,
  query: ListQuery<SubscriptionListFilter, SubscriptionSortField>,
): Promise<[Subscription[], number]> {
  const { active, externalCustomerIds } = query;
  return findPage(em, Subscription, {
    where: [
      { organization: organizationId },
      inList('product', query.productIds),
      inList('customer', query.customerIds),
      externalCustomerIds.length > 0 && {
        customer: { externalId: { $in: externalCustomerIds } },
      },
      inList('discount', query.discountIds),
      active !== undefined && {
        status: active ? { $in: activeStatuses } : { $nin: activeStatuses },
      },
      inList('status', query.statuses),
      ...metadataFilterConditions(query.metadata),
    ],
    sorting: query.sorting,
    sortKeys,
    page: query.page,
  });
}

const failedRenewalSortKeys: Record<
  FailedRenewalSortField,
  (direction: 'asc' | 'desc') => QueryOrderMap<Subscription>
> = {
  customer: sortKeys.customer,
  amount: sortKeys.amount,
  past_due_at: (direction) => ({ pastDueAt: direction }),
  next_payment_attempt_at: (direction) => ({ nextPaymentAttemptAt: direction }),
  dunning_attempts: (direction) => ({ dunningAttempts: direction }),
};

/**
 * A page of the organization's subscriptions whose renewal failed (past due or unpaid; only
 * `statuses` when given), their customers and products loaded, and how many there are.
 */
export function listFailedRenewals(
  em: EntityManager,
  organizationId: string,
  {
    statuses,
    sorting,
    page,
  }: ListQuery<{ statuses: FailedRenewalStatus[] }, FailedRenewalSortField>,
): Promise<[Subscription[], number]> {
  return findPage(em, Subscription, {
    where: [
      {
        organization: organizationId,
        status: { $in: statuses.length ? statuses : [...failedRenewalStatuses] },
      },
    ],
    sorting,
    sortKeys: failedRenewalSortKeys,
    page,
    populate: ['customer', 'product'],
  });
}

/**
 * What a failed renewal would bring in: the total of its renewal order still pending (the
 * workflow retries that same order until it is paid or dunning gives up), by subscription id.
 */
export async function amountsAtRisk(
  em: EntityManager,
  subscriptions: Subscription[],
): Promise<Map<string, number>> {
  const amounts = new Map<string, number>();
  if (subscriptions.length === 0) return amounts;
  const pending = await em.find(Order, {
    subscription: { $in: subscriptions.map((subscription) => subscription.id) },
    status: 'pending',
    billingReason: 'subscription_cycle',
  });
  for (const order of pending) {
    const id = order.subscription?.id ?? '';
    amounts.set(id, (amounts.get(id) ?? 0) + order.totalAmount);
  }
  return amounts;
}

/** All of the organization's failed renewals (of `statuses`), counted and summed per currency. */
export async function failedRenewalTotals(
  em: EntityManager,
  organizationId: string,
  statuses: FailedRenewalStatus[],
): Promise<FailedRenewalTotal[]> {
  const wanted: string[] = statuses.length ? statuses : [...failedRenewalStatuses];
  const rows = await em.execute<{ currency: string; count: string; amount: string | null }[]>(
    `select s.currency, count(*) as count, sum(pending.total) as amount
       from subscriptions s
       left join lateral (
         select sum(o.total_amount) as total from orders o
          where o.subscription_id = s.id and o.status = 'pending'
            and o.billing_reason = 'subscription_cycle'
       ) pending on true
      where s.organization_id = ? and s.status in (${placeholders(wanted.length)})
      group by s.currency
      order by s.currency`,
    [organizationId, ...wanted],
  );
  return rows.map((row) => ({
    currency: row.currency,
    count: Number(row.count),
    amount_at_risk: Number(row.amount ?? 0),
  }));
}

/** A subscription of the organization; other organizations' are not found. */
export async function getSubscription(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<Subscription> {
  const subscription = await em.findOne(Subscription, { id, organization: organizationId });
  if (!subscription) throw resourceNotFound('Subscription not found');
  return subscription;
}

/** A customer's subscriptions still alive (not ended), oldest first. */
export function liveSubscriptionsOf(
  em: EntityManager,
  customerId: string,
): Promise<Subscription[]> {
  return em.find(
    Subscription,
    { customer: customerId, endedAt: null, status: { $nin: ['canceled', 'incomplete_expired'] } },
    { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
  );
}

/** What a checkout of a recurring product makes its subscription bill, from `now`. */
function termsFromCheckout(checkout: Checkout, now: Date) {
  const { product, customer } = checkout;
  const interval = product.recurringInterval;
  if (!interval) throw new Error(`product ${product.id} is not recurring`);
  if (!customer) throw new Error(`checkout ${checkout.id} has no customer`);
  const trialInterval = checkout.trialInterval ?? product.trialInterval;
  const trialCount = checkout.trialIntervalCount ?? product.trialIntervalCount;
  const trialEndsAt = trialInterval && trialCount ? trialEnd(now, trialInterval, trialCount) : null;
  return {
    customer,
    product,
    status: trialEndsAt ? ('trialing' as const) : ('active' as const),
    amount: checkout.netAmount,
    seats:
      checkout.productPrice.amountType === 'seat_based' ? (checkout.seats ?? minimumSeats) : null,
    currency: checkout.currency,
    recurringInterval: interval,
    currentPeriodStart: now,
    currentPeriodEnd: trialEndsAt ?? trialEnd(now, interval, 1),
    trialStart: trialEndsAt ? now : null,
    trialEnd: trialEndsAt,
    startedAt: now,
    billingAnchor: trialEndsAt ?? now,
    discount: checkout.discount ?? null,
    metadata: checkout.metadata,
    customFieldData: checkout.customFieldData,
  };
}

/** The instant a checkout's subscription starts: now, or its customer's test clock's time. */
async function checkoutClock(tx: EntityManager, checkout: Checkout) {
  const clockId = checkout.customer?.testClock?.id;
  const testClock = clockId ? await tx.findOneOrFail(TestClock, clockId) : null;
  return { testClock, now: testClock?.frozenTime ?? new Date() };
}

/** The prices the subscription bills: the checkout's static price and the product's metered ones. */
async function billPrices(tx: EntityManager, subscription: Subscription, checkout: Checkout) {
  const metered = await tx.find(ProductPrice, {
    product: checkout.product.id,
    amountType: 'metered_unit',
    isArchived: false,
  });
  for (const price of [checkout.productPrice, ...metered]) {
    tx.create(SubscriptionPrice, { subscription, productPrice: price });
  }
}

type CheckoutSubscriptionEvent =
  | 'subscription.created'
  | 'subscription.updated'
  | 'subscription.active';

async function recordSubscriptionEvents(
  tx: EntityManager,
  subscription: Subscription,
  types: CheckoutSubscriptionEvent[],
  publicUrl: string,
) {
  const [wire] = await serializeSubscriptions(tx, [subscription], publicUrl);
  for (const type of types) {
    appendEvent(tx, subscription.organization.id, type, wire as SubscriptionWire);
  }
}

/**
 * The subscription a succeeded checkout of a recurring product starts, inside the checkout's
 * completion transaction: active from now for one interval of the price's product, or trialing
 * until the checkout's trial ends (its first period is the trial). Records subscription.created
 * and, once it bills, subscription.active. A customer on a test clock subscribes at the clock's
 * frozen time, and the subscription follows the clock. With `incomplete` (a checkout created
 * through the API whose first payment waits or was declined), the subscription is `incomplete`
 * and not started yet (no `started_at`): activateSubscriptionFromCheckout starts it once paid.
 */
export async function startSubscriptionFromCheckout(
  tx: EntityManager,
  checkout: Checkout,
  publicUrl: string,
  { incomplete = false } = {},
): Promise<Subscription> {
  const { testClock, now } = await checkoutClock(tx, checkout);
  const terms = termsFromCheckout(checkout, now);
  const subscription = tx.create(Subscription, {
    ...terms,
    ...(incomplete ? { status: 'incomplete' as const, startedAt: null } : {}),
    organization: checkout.organization,
    checkoutId: checkout.id,
    testClock,
    createdAt: now,
  });
  await billPrices(tx, subscription, checkout);
  await tx.flush();
  const events: CheckoutSubscriptionEvent[] = ['subscription.created'];
  if (subscription.status === 'active') events.push('subscription.active');
  await recordSubscriptionEvents(tx, subscription, events, publicUrl);
  return subscription;
}

/**
 * The checkout's `incomplete` subscription, paid at last (within the checkout's life): it starts
 * now, active (or trialing), on the terms the checkout was paid with (the buyer may have changed
 * them before confirming again). Records subscription.updated and, once it bills,
 * subscription.active; the same subscription, never a second one.
 */
export async function activateSubscriptionFromCheckout(
  tx: EntityManager,
  subscription: Subscription,
  checkout: Checkout,
  publicUrl: string,
): Promise<Subscription> {
  const { now } = await checkoutClock(tx, checkout);
  tx.assign(subscription, termsFromCheckout(checkout, now));
  await tx.nativeDelete(SubscriptionPrice, { subscription: subscription.id });
  await billPrices(tx, subscription, checkout);
  await tx.flush();
  const events: CheckoutSubscriptionEvent[] = ['subscription.updated'];
  if (subscription.status === 'active') events.push('subscription.active');
  await recordSubscriptionEvents(tx, subscription, events, publicUrl);
  return subscription;
}

/**
 * An `incomplete` subscription whose first payment never came (incompleteSubscriptionLifetimeMs
 * after it was made): `incomplete_expired`, ended now (its test clock's now). It never started,
 * so no benefit was granted and nothing is charged later. Records subscription.updated; one that
 * was paid meanwhile (or expired already) is left as it is.
 */
export function expireIncompleteSubscription(
  em: EntityManager,
  subscriptionId: string,
  publicUrl: string,
): Promise<void> {
  return em.transactional(async (tx) => {
    const subscription = await tx.findOneOrFail(
      Subscription,
      { id: subscriptionId },
      { lockMode: LockMode.PESSIMISTIC_WRITE, populate: ['testClock'] },
    );
    if (subscription.status !== 'incomplete') return;
    subscription.status = 'incomplete_expired';
    subscription.endedAt = subscription.testClock?.frozenTime ?? new Date();
    await tx.flush();
    await recordSubscriptionEvents(tx, subscription, ['subscription.updated'], publicUrl);
  });
}
