import { defineEntity, p } from '@mikro-orm/core';
import type { SubscriptionPaymentError } from '../../domain/subscription-schedule.ts';
import { cancellationReasons, subscriptionStatuses } from '../../domain/subscriptions.ts';
import { commerceTimestampColumns, idColumn, metadataColumn } from './columns.ts';
import { Customer } from './customer.ts';
import { Discount } from './discount.ts';
import { Organization } from './organization.ts';
import { Product, ProductPrice, recurringIntervals } from './product.ts';
import { TestClock } from './test-clock.ts';

export {
  type CancellationReason,
  cancellationReasons,
  type SubscriptionStatus,
  subscriptionStatuses,
} from '../../domain/subscriptions.ts';

export type { SubscriptionPaymentError };

/**
 * Who paid a failed renewal: the customer from the portal, finance (retry now, or resolved
 * outside Tollgate), or a scheduled dunning retry.
 */
export const renewalRecoverers = ['customer', 'finance', 'dunning'] as const;
export type RenewalRecoverer = (typeof renewalRecoverers)[number];

/** A subscription ended by Tollgate rather than asked: its renewal could not be paid. */
export const cancellationCauses = ['payment_failed'] as const;

/**
 * An amount the next renewal order bills or credits besides its prices: the remainder of a
 * product change made with proration_behavior `prorate` (negative: a credit).
 */
export interface PendingSubscriptionItem {
  label: string;
  amount: number;
  productPriceId: string | null;
}

/** A customer's subscription to a recurring product; its life runs in `subscription:<id>`. */
const SubscriptionSchema = defineEntity({
  name: 'Subscription',
  tableName: 'subscriptions',
  indexes: [
    { properties: ['organization', 'createdAt'] },
    { properties: ['customer', 'status'] },
    { properties: ['organization', 'status', 'nextPaymentAttemptAt'] },
  ],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    customer: () => p.manyToOne(Customer).deleteRule('cascade'),
    product: () => p.manyToOne(Product).deleteRule('restrict').index(),
    status: p.enum(subscriptionStatuses),
    amount: p.integer(),
    /** The seats its seat-based price bills each period; null when its price is not seat-based. */
    seats: p.integer().nullable(),
    currency: p.string(),
    recurringInterval: p.enum(recurringIntervals),
    currentPeriodStart: p.datetime(),
    currentPeriodEnd: p.datetime().nullable(),
    trialStart: p.datetime().nullable(),
    trialEnd: p.datetime().nullable(),
    cancelAtPeriodEnd: p.boolean().default(false),
    canceledAt: p.datetime().nullable(),
    startedAt: p.datetime().nullable(),
    endsAt: p.datetime().nullable(),
    endedAt: p.datetime().nullable(),
    discount: () => p.manyToOne(Discount).nullable().deleteRule('set null'),
    /** The checkout that started it (the checkouts table refers back; no constraint here). */
    checkoutId: p.uuid().nullable(),
    customerCancellationReason: p.enum(cancellationReasons).nullable(),
    customerCancellationComment: p.text().nullable(),
    metadata: metadataColumn(),
    customFieldData: p.json<Record<string, unknown>>().onCreate(() => ({})),
    /** The saved card renewals charge off-session. */
    stripePaymentMethodId: p.string().nullable(),
    /**
     * The instant periods count from (the start, or the trial's end): each period ends a whole
     * number of intervals after it, so Jan 31 renews on Feb 28/29 and then on Mar 31.
     */
    billingAnchor: p.datetime().onCreate((subscription) => subscription.currentPeriodStart),
    /** Prorations billed (or credited) by the next renewal order. */
    pendingItems: p.json<PendingSubscriptionItem[]>().onCreate(() => []),
    /** Dunning: when the first renewal charge of the unpaid period failed; null when none failed. */
    pastDueAt: p.datetime().nullable(),
    /** Failed charges of the unpaid period so far (the first one included). */
    dunningAttempts: p.integer().default(0),
    /** When dunning charges next; null when no retry is scheduled. */
    nextPaymentAttemptAt: p.datetime().nullable(),
    lastPaymentError: p.json<SubscriptionPaymentError>().nullable(),
    /** When a renewal charge was last tried (by the subscription's clock), whoever asked it. */
    lastPaymentAttemptAt: p.datetime().nullable(),
    /** The last failed renewal was paid after all: when (by its clock), and who fixed it. */
    recoveredAt: p.datetime().nullable(),
    recoveredBy: p.enum(renewalRecoverers).nullable(),
    /** Why it ended when no one asked it to: dunning gave up on the renewal's payment. */
    cancellationCause: p.enum(cancellationCauses).nullable(),
    /** The sandbox clock the subscription's time follows (its customer's); null: real time. */
    testClock: () => p.manyToOne(TestClock).nullable().deleteRule('set null').index(),
    ...commerceTimestampColumns(),
  },
});

export class Subscription extends SubscriptionSchema.class {}
SubscriptionSchema.setClass(Subscription);

/** A price a subscription bills each period (a static price plus any metered ones). */
const SubscriptionPriceSchema = defineEntity({
  name: 'SubscriptionPrice',
  tableName: 'subscription_prices',
  uniques: [{ properties: ['subscription', 'productPrice'] }],
  properties: {
    id: idColumn(),
    subscription: () => p.manyToOne(Subscription).deleteRule('cascade').index(),
    productPrice: () => p.manyToOne(ProductPrice).deleteRule('restrict').index(),
  },
});

export class SubscriptionPrice extends SubscriptionPriceSchema.class {}
SubscriptionPriceSchema.setClass(SubscriptionPrice);
