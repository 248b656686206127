import { defineEntity, p } from '@mikro-orm/core';
import { commerceTimestampColumns, idColumn, metadataColumn } from './columns.ts';
import { Customer } from './customer.ts';
import { Discount } from './discount.ts';
import { Organization } from './organization.ts';
import { Product, ProductPrice, recurringIntervals } from './product.ts';

export const subscriptionStatuses = [
  'incomplete',
  'incomplete_expired',
  'trialing',
  'active',
  'past_due',
  'canceled',
  'unpaid',
] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

export const cancellationReasons = [
  'customer_service',
  'low_quality',
  'missing_features',
  'switched_service',
  'too_complex',
  'too_expensive',
  'unused',
  'other',
] as const;
export type CancellationReason = (typeof cancellationReasons)[number];

/** A customer's subscription to a recurring product; its life runs in `subscription:<id>`. */
const SubscriptionSchema = defineEntity({
  name: 'Subscription',
  tableName: 'subscriptions',
  indexes: [{ properties: ['organization', 'createdAt'] }, { properties: ['customer', 'status'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    customer: () => p.manyToOne(Customer).deleteRule('cascade'),
    product: () => p.manyToOne(Product).deleteRule('restrict').index(),
    status: p.enum(subscriptionStatuses),
    amount: p.integer(),
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
