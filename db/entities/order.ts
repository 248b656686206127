import { defineEntity, p } from '@mikro-orm/core';
import type { TaxLine } from '../../domain/tax.ts';
import { commerceTimestampColumns, idColumn, metadataColumn } from './columns.ts';
import { type Address, Customer } from './customer.ts';
import { Discount } from './discount.ts';
import { Organization } from './organization.ts';
import { Product, ProductPrice } from './product.ts';
import { Subscription } from './subscription.ts';

export const orderStatuses = ['pending', 'paid', 'refunded', 'partially_refunded'] as const;
export type OrderStatus = (typeof orderStatuses)[number];

export const orderBillingReasons = [
  'purchase',
  'subscription_create',
  'subscription_cycle',
  'subscription_update',
] as const;
export type OrderBillingReason = (typeof orderBillingReasons)[number];

/**
 * What a customer owes for one purchase or one subscription period. Amounts are integer minor
 * units: net = subtotal − discount, total = net + tax. `checkoutId` is the checkout that
 * created it (no constraint: checkouts refer to orders' subscriptions, not the other way).
 */
const OrderSchema = defineEntity({
  name: 'Order',
  tableName: 'orders',
  uniques: [{ properties: ['organization', 'invoiceNumber'] }],
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    customer: () => p.manyToOne(Customer).deleteRule('cascade').index(),
    product: () => p.manyToOne(Product).deleteRule('restrict').index(),
    discount: () => p.manyToOne(Discount).nullable().deleteRule('set null'),
    subscription: () => p.manyToOne(Subscription).nullable().deleteRule('set null').index(),
    checkoutId: p.uuid().nullable().index(),
    status: p.enum(orderStatuses),
    billingReason: p.enum(orderBillingReasons),
    subtotalAmount: p.integer(),
    discountAmount: p.integer(),
    netAmount: p.integer(),
    taxAmount: p.integer(),
    /** The tax lines behind `taxAmount` (domain/tax.ts), for invoices and exports. */
    taxLines: p.json<TaxLine[]>().onCreate(() => []),
    /**
     * The Stripe Tax calculation behind the tax of an order made without a checkout (a renewal,
     * a plan change); a checkout's order reads its checkout's.
     */
    stripeTaxCalculationId: p.string().nullable(),
    /** The Stripe Tax transaction recorded from the order's calculation once paid (refunds reverse it). */
    stripeTaxTransactionId: p.string().nullable(),
    totalAmount: p.integer(),
    fromBalanceAmount: p.integer().default(0),
    refundedAmount: p.integer().default(0),
    refundedTaxAmount: p.integer().default(0),
    currency: p.string(),
    billingName: p.string().nullable(),
    billingAddress: p.json<Address>().nullable(),
    /**
     * The subscription period the order pays for, by the subscription's clock (a test clock's
     * renewal is made long before or after its period): set on `subscription_create` and
     * `subscription_cycle` orders; null on others and on orders made before it was recorded.
     */
    billingPeriodStart: p.datetime().nullable(),
    billingPeriodEnd: p.datetime().nullable(),
    invoiceNumber: p.string(),
    isInvoiceGenerated: p.boolean().default(false),
    metadata: metadataColumn(),
    customFieldData: p.json<Record<string, unknown>>().onCreate(() => ({})),
    ...commerceTimestampColumns(),
  },
});

export class Order extends OrderSchema.class {}
OrderSchema.setClass(Order);

/** A line of an order; the items' amounts add up to the order's subtotal. */
const OrderItemSchema = defineEntity({
  name: 'OrderItem',
  tableName: 'order_items',
  properties: {
    id: idColumn(),
    order: () => p.manyToOne(Order).deleteRule('cascade').index(),
    label: p.string(),
    amount: p.integer(),
    taxAmount: p.integer().default(0),
    proration: p.boolean().default(false),
    /** The seats a seat-based price's line billed (the subscription's may change since); else null. */
    seats: p.integer().nullable(),
    productPrice: () => p.manyToOne(ProductPrice).nullable().deleteRule('set null'),
    ...commerceTimestampColumns(),
  },
});

export class OrderItem extends OrderItemSchema.class {}
OrderItemSchema.setClass(OrderItem);

export const paymentStatuses = ['pending', 'succeeded', 'failed'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

/**
 * One attempt to take money through Stripe (a PaymentIntent): for a checkout, a renewal or a
 * dunning retry. A declined attempt keeps Stripe's decline code and message.
 */
const PaymentSchema = defineEntity({
  name: 'Payment',
  tableName: 'payments',
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    checkoutId: p.uuid().nullable().index(),
    order: () => p.manyToOne(Order).nullable().deleteRule('set null').index(),
    status: p.enum(paymentStatuses),
    amount: p.integer(),
    currency: p.string(),
    method: p.string().default('card'),
    methodMetadata: p.json<Record<string, unknown>>().onCreate(() => ({})),
    declineReason: p.string().nullable(),
    declineMessage: p.string().nullable(),
    /** Stripe's PaymentIntent id. */
    processorId: p.string().nullable().unique(),
    ...commerceTimestampColumns(),
  },
});

export class Payment extends PaymentSchema.class {}
PaymentSchema.setClass(Payment);
