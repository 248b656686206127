import { defineEntity, p } from '@mikro-orm/core';
import { discountDurations, discountTypes } from '../../domain/discounts.ts';
import { commerceTimestampColumns, idColumn, metadataColumn } from './columns.ts';
import { Organization } from './organization.ts';
import { Product } from './product.ts';

// Defined in domain/ so browser code can use them without the ORM; entities read them from here.
export {
  type DiscountDuration,
  type DiscountType,
  discountDurations,
  discountTypes,
} from '../../domain/discounts.ts';

/**
 * A discount: a fixed amount or a percentage (basis points), for one, every or some billing
 * periods. Codes are unique per organization ignoring case (partial index in the migration).
 */
const DiscountSchema = defineEntity({
  name: 'Discount',
  tableName: 'discounts',
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string(),
    code: p.string().nullable(),
    type: p.enum(discountTypes),
    amount: p.integer().nullable(),
    currency: p.string().nullable(),
    basisPoints: p.integer().nullable(),
    duration: p.enum(discountDurations),
    durationInMonths: p.integer().nullable(),
    startsAt: p.datetime().nullable(),
    endsAt: p.datetime().nullable(),
    maxRedemptions: p.integer().nullable(),
    redemptionsCount: p.integer().default(0),
    metadata: metadataColumn(),
    deletedAt: p.datetime().nullable(),
    ...commerceTimestampColumns(),
  },
});

export class Discount extends DiscountSchema.class {}
DiscountSchema.setClass(Discount);

/** A product a discount is restricted to; none means every product. */
const DiscountProductSchema = defineEntity({
  name: 'DiscountProduct',
  tableName: 'discount_products',
  uniques: [{ properties: ['discount', 'product'] }],
  properties: {
    id: idColumn(),
    discount: () => p.manyToOne(Discount).deleteRule('cascade').index(),
    product: () => p.manyToOne(Product).deleteRule('cascade').index(),
  },
});

export class DiscountProduct extends DiscountProductSchema.class {}
DiscountProductSchema.setClass(DiscountProduct);
