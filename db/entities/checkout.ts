import { defineEntity, p } from '@mikro-orm/core';
import type { TaxLine } from '../../domain/tax.ts';
import { CheckoutLink } from './checkout-link.ts';
import { commerceTimestampColumns, idColumn, metadataColumn } from './columns.ts';
import { type Address, Customer, type TaxId } from './customer.ts';
import { Discount } from './discount.ts';
import { Order } from './order.ts';
import { Organization } from './organization.ts';
import { Product, ProductPrice, recurringIntervals } from './product.ts';
import { Subscription } from './subscription.ts';

export const checkoutStatuses = ['open', 'expired', 'confirmed', 'succeeded', 'failed'] as const;
export type CheckoutStatus = (typeof checkoutStatuses)[number];

/**
 * How a checkout came to its customer: `named` by the seller (its id, or its external id),
 * `created` by this checkout's confirm, or matched by the `email` the buyer typed, which proves
 * nothing (see the checkout's portal session).
 */
export const checkoutCustomerSources = ['named', 'created', 'email'] as const;
export type CheckoutCustomerSource = (typeof checkoutCustomerSources)[number];

/** Why the last payment attempt of a checkout failed, as the processor said it. */
export interface CheckoutPaymentError {
  code: string;
  message: string;
}

/**
 * A buyer's session on the hosted checkout page; its life (open → confirmed → succeeded or
 * failed, or expired) runs in the workflow `checkout:<id>`. `clientSecret` is the bearer of
 * the public endpoints and the page's URL. Amounts are computed by the pure price and discount
 * rules whenever the selection changes.
 */
const CheckoutSchema = defineEntity({
  name: 'Checkout',
  tableName: 'checkouts',
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    clientSecret: p.string().unique(),
    status: p.enum(checkoutStatuses).default('open'),
    expiresAt: p.datetime(),
    successUrl: p.text().nullable(),
    embedOrigin: p.string().nullable(),
    /** The products offered, in order; `product` is the one selected. */
    productIds: p.array<string>(),
    product: () => p.manyToOne(Product).deleteRule('cascade').index(),
    productPrice: () => p.manyToOne(ProductPrice).deleteRule('cascade'),
    amount: p.integer(),
    discountAmount: p.integer().default(0),
    netAmount: p.integer(),
    taxAmount: p.integer().nullable(),
    /** The tax lines behind `taxAmount` (domain/tax.ts); empty while it is null. */
    taxLines: p.json<TaxLine[]>().onCreate(() => []),
    /** The Stripe Tax calculation behind the tax lines, when the organization uses Stripe Tax. */
    stripeTaxCalculationId: p.string().nullable(),
    totalAmount: p.integer(),
    /**
     * What the customer's balance pays of the total: held for the checkout from its confirm while
     * it is `confirmed` (other orders cannot spend it), the order's `from_balance_amount` once it
     * succeeded; 0 again when its payment failed. See commerce/customers/balance.ts.
     */
    fromBalanceAmount: p.integer().default(0),
    currency: p.string(),
    seats: p.integer().nullable(),
    discount: () => p.manyToOne(Discount).nullable().deleteRule('set null'),
    customer: () => p.manyToOne(Customer).nullable().deleteRule('set null').index(),
    customerSource: p.enum(checkoutCustomerSources).nullable(),
    subscription: () => p.manyToOne(Subscription).nullable().deleteRule('set null'),
    order: () => p.manyToOne(Order).nullable().deleteRule('set null'),
    checkoutLink: () => p.manyToOne(CheckoutLink).nullable().deleteRule('set null'),
    allowDiscountCodes: p.boolean().default(true),
    requireBillingAddress: p.boolean().default(false),
    isBusinessCustomer: p.boolean().default(false),
    customerName: p.string().nullable(),
    customerEmail: p.string().nullable(),
    customerIpAddress: p.string().nullable(),
    customerBillingName: p.string().nullable(),
    customerBillingAddress: p.json<Address>().nullable(),
    customerTaxId: p.json<TaxId>().nullable(),
    customerMetadata: metadataColumn(),
    externalCustomerId: p.string().nullable(),
    customFieldData: p.json<Record<string, unknown>>().onCreate(() => ({})),
    metadata: metadataColumn(),
    paymentProcessorMetadata: p.json<Record<string, string>>().onCreate(() => ({})),
    trialInterval: p.enum(recurringIntervals).nullable(),
    trialIntervalCount: p.integer().nullable(),
    /** The Stripe PaymentIntent of the current payment attempt. */
    stripePaymentIntentId: p.string().nullable(),
    paymentError: p.json<CheckoutPaymentError>().nullable(),
    confirmedAt: p.datetime().nullable(),
    /** The confirm that moved it to `confirmed` last: a retried confirm recognises its own work. */
    confirmationId: p.string().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class Checkout extends CheckoutSchema.class {}
CheckoutSchema.setClass(Checkout);

/**
 * A discount spent by a checkout: the row is written in the same transaction as the counter's
 * guarded increment, so `max_redemptions` holds under concurrency and a retry spends nothing.
 */
const DiscountRedemptionSchema = defineEntity({
  name: 'DiscountRedemption',
  tableName: 'discount_redemptions',
  properties: {
    id: idColumn(),
    discount: () => p.manyToOne(Discount).deleteRule('cascade').index(),
    checkout: () => p.manyToOne(Checkout).deleteRule('cascade').unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class DiscountRedemption extends DiscountRedemptionSchema.class {}
DiscountRedemptionSchema.setClass(DiscountRedemption);

/** A signal to a workflow, by its name and arguments. */
export interface WorkflowSignalCall {
  workflowId: string;
  signal: string;
  args: unknown[];
}

/**
 * A Stripe webhook event already handled: a redelivered event id is acknowledged, not replayed.
 * `owedSignal`: the signal its handling owes a workflow until Temporal has taken it (sent after
 * the commit), leased to its sender until `owedSignalLeasedUntil`: a redelivery past the lease
 * (the sender failed or died) sends it again.
 */
const ProcessedStripeEventSchema = defineEntity({
  name: 'ProcessedStripeEvent',
  tableName: 'processed_stripe_events',
  properties: {
    id: p.string().primary(),
    type: p.string(),
    receivedAt: p.datetime().onCreate(() => new Date()),
    owedSignal: p.json<WorkflowSignalCall>().nullable(),
    owedSignalLeasedUntil: p.datetime().nullable(),
  },
});

export class ProcessedStripeEvent extends ProcessedStripeEventSchema.class {}
ProcessedStripeEventSchema.setClass(ProcessedStripeEvent);
