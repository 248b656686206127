import { defineEntity, p } from '@mikro-orm/core';
import { refundReasons, refundStatuses } from '../../domain/refunds.ts';
import { commerceTimestampColumns, idColumn, metadataColumn } from './columns.ts';
import { Customer } from './customer.ts';
import { Order } from './order.ts';
import { Organization } from './organization.ts';
import { Subscription } from './subscription.ts';

export type { RefundReason, RefundStatus } from '../../domain/refunds.ts';
export { refundReasons, refundStatuses };

/**
 * Money given back on an order, carried out by its workflow (`refund:<id>`). A pending refund
 * already counts against the order's refundable remainder, so concurrent refunds can never add up
 * to more than the order's net amount; a failed or canceled one frees its amount again. Amounts
 * are integer minor units: `amount` pre-tax, `taxAmount` the tax refunded with it.
 */
const RefundSchema = defineEntity({
  name: 'Refund',
  tableName: 'refunds',
  indexes: [{ properties: ['organization', 'createdAt'] }],
  uniques: [{ properties: ['organization', 'creditNoteNumber'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    order: () => p.manyToOne(Order).deleteRule('cascade').index(),
    subscription: () => p.manyToOne(Subscription).nullable().deleteRule('set null').index(),
    customer: () => p.manyToOne(Customer).deleteRule('cascade').index(),
    status: p.enum(refundStatuses),
    reason: p.enum(refundReasons),
    amount: p.integer(),
    taxAmount: p.integer(),
    /**
     * What of `amount` + `taxAmount` goes back to the customer's balance instead of the card: an
     * order paid partly from the balance refunds the card first, up to what the card paid.
     */
    toBalanceAmount: p.integer().default(0),
    currency: p.string(),
    comment: p.text().nullable(),
    revokeBenefits: p.boolean().default(false),
    metadata: metadataColumn(),
    /** Stripe's refund id (`re_…`), once Stripe took the refund. */
    processorId: p.string().nullable().unique(),
    /** The credit note's number (`<SLUG>-CN-0001`, …), given when the refund succeeds. */
    creditNoteNumber: p.string().nullable(),
    /** Why Stripe failed or canceled it. */
    failureReason: p.string().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class Refund extends RefundSchema.class {}
RefundSchema.setClass(Refund);
