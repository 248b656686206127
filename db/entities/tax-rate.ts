import { defineEntity, p } from '@mikro-orm/core';
import { commerceTimestampColumns, idColumn } from './columns.ts';
import { Organization } from './organization.ts';

/**
 * A tax rate the seller defined (issue 22, option 2): a country's, or a US state's or Canadian
 * province's (`subdivision`), in integer basis points. One per place: a country's own rate has
 * no subdivision, and PostgreSQL counts nulls as distinct, so the country-wide rate is kept unique
 * by a partial index in the migration.
 */
const TaxRateSchema = defineEntity({
  name: 'TaxRate',
  tableName: 'tax_rates',
  uniques: [{ properties: ['organization', 'country', 'subdivision'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    country: p.string().length(2),
    subdivision: p.string().length(3).nullable(),
    rateBps: p.integer(),
    displayName: p.string(),
    inclusive: p.boolean(),
    ...commerceTimestampColumns(),
  },
});

export class TaxRate extends TaxRateSchema.class {}
TaxRateSchema.setClass(TaxRate);
