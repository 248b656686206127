import { defineEntity, p } from '@mikro-orm/core';
import { commerceTimestampColumns, idColumn, metadataColumn } from './columns.ts';
import { Organization } from './organization.ts';
import { TestClock } from './test-clock.ts';

/** A postal address; `country` is ISO 3166-1 alpha-2, US and CA states as `US-CA`. */
export interface Address {
  line1: string | null;
  line2: string | null;
  postalCode: string | null;
  city: string | null;
  state: string | null;
  country: string;
}

/** A tax id and its Stripe format, e.g. `['FR61954506077', 'eu_vat']`. */
export type TaxId = [value: string, format: string];

/**
 * A buyer of one organization. Deleting is soft (`deletedAt`); the partial unique indexes on
 * email and external id (see the migration) cover live customers only, so both are freed.
 */
const CustomerSchema = defineEntity({
  name: 'Customer',
  tableName: 'customers',
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    externalId: p.string().nullable(),
    email: p.string(),
    emailVerified: p.boolean().default(false),
    name: p.string().nullable(),
    billingAddress: p.json<Address>().nullable(),
    taxId: p.json<TaxId>().nullable(),
    metadata: metadataColumn(),
    stripeCustomerId: p.string().nullable(),
    /** The saved card (Stripe's `pm_…`) the customer chose for its subscriptions' renewals. */
    defaultPaymentMethodId: p.string().nullable(),
    /** Sandbox only: the test clock this customer's subscriptions follow instead of real time. */
    testClock: () => p.manyToOne(TestClock).nullable().deleteRule('set null').index(),
    deletedAt: p.datetime().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class Customer extends CustomerSchema.class {}
CustomerSchema.setClass(Customer);
