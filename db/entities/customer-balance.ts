import { defineEntity, p } from '@mikro-orm/core';
import { customerBalanceEntryKinds } from '../../domain/customer-balance.ts';
import { idColumn } from './columns.ts';
import { Customer } from './customer.ts';
import { Order } from './order.ts';
import { Organization } from './organization.ts';
import { Subscription } from './subscription.ts';

export type { CustomerBalanceEntryKind } from '../../domain/customer-balance.ts';

/**
 * One movement of a customer's balance in one currency, in integer minor units: positive is
 * credit the customer has (Polar's sign), negative what an order took of it. Entries are only
 * ever added (the migration refuses updates); the balance is their sum. Each entry's source
 * makes it once: one entry of a kind per order (an order's debit, a renewal's credit), one per
 * `idempotencyKey` (a plan change's credit), whatever retries.
 */
const CustomerBalanceEntrySchema = defineEntity({
  name: 'CustomerBalanceEntry',
  tableName: 'customer_balance_entry',
  indexes: [{ properties: ['customer', 'currency', 'createdAt'] }],
  uniques: [{ properties: ['kind', 'order'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    customer: () => p.manyToOne(Customer).deleteRule('cascade'),
    currency: p.string(),
    amount: p.integer(),
    kind: p.enum(customerBalanceEntryKinds),
    reason: p.text(),
    order: () => p.manyToOne(Order).nullable().deleteRule('cascade'),
    subscription: () => p.manyToOne(Subscription).nullable().deleteRule('set null').index(),
    /** The dashboard member who made a seller adjustment (null: a token, or the system). */
    createdByUserId: p.uuid().nullable(),
    /** The organization access token that made a seller adjustment. */
    createdByTokenId: p.uuid().nullable(),
    idempotencyKey: p.string().nullable().unique(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class CustomerBalanceEntry extends CustomerBalanceEntrySchema.class {}
CustomerBalanceEntrySchema.setClass(CustomerBalanceEntry);
