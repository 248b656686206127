import { defineEntity, p } from '@mikro-orm/core';
import { recurringIntervals } from '../../domain/prices.ts';
import { taxBehaviors } from '../../domain/tax.ts';
import { Benefit } from './benefit.ts';
import { commerceTimestampColumns, idColumn, metadataColumn } from './columns.ts';
import { CustomField } from './custom-field.ts';
import { Meter } from './meter.ts';
import { Organization } from './organization.ts';
import { StoredFile } from './stored-file.ts';

// Defined in domain/ so browser code can use it without the ORM; entities read it from here.
export { type RecurringInterval, recurringIntervals } from '../../domain/prices.ts';

export const priceAmountTypes = ['fixed', 'custom', 'free', 'metered_unit', 'seat_based'] as const;
export type PriceAmountType = (typeof priceAmountTypes)[number];

/** Something a seller sells, once (no interval) or every `recurringInterval`. */
const ProductSchema = defineEntity({
  name: 'Product',
  tableName: 'products',
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    name: p.string(),
    description: p.text().nullable(),
    recurringInterval: p.enum(recurringIntervals).nullable(),
    trialInterval: p.enum(recurringIntervals).nullable(),
    trialIntervalCount: p.integer().nullable(),
    isArchived: p.boolean().default(false),
    /** Whether its sales are taxed (domain/tax.ts). */
    taxBehavior: p.enum(taxBehaviors).default('taxable'),
    metadata: metadataColumn(),
    ...commerceTimestampColumns(),
  },
});

export class Product extends ProductSchema.class {}
ProductSchema.setClass(Product);

/**
 * A price of a product. Prices are immutable once created: changing one archives it and adds a
 * new one, so orders and subscriptions keep pointing at what was actually sold. Amounts are
 * integer minor units; a metered unit amount is an exact decimal (read as a string).
 */
const ProductPriceSchema = defineEntity({
  name: 'ProductPrice',
  tableName: 'product_prices',
  properties: {
    id: idColumn(),
    product: () => p.manyToOne(Product).deleteRule('cascade').index(),
    amountType: p.enum(priceAmountTypes),
    priceCurrency: p.string().nullable(),
    priceAmount: p.integer().nullable(),
    minimumAmount: p.integer().nullable(),
    maximumAmount: p.integer().nullable(),
    presetAmount: p.integer().nullable(),
    unitAmount: p.decimal('string').precision(30).scale(12).nullable(),
    capAmount: p.integer().nullable(),
    meter: () => p.manyToOne(Meter).nullable().deleteRule('restrict'),
    pricePerSeat: p.integer().nullable(),
    isArchived: p.boolean().default(false),
    ...commerceTimestampColumns(),
  },
});

export class ProductPrice extends ProductPriceSchema.class {}
ProductPriceSchema.setClass(ProductPrice);

/** A benefit attached to a product, in the seller's order. */
const ProductBenefitSchema = defineEntity({
  name: 'ProductBenefit',
  tableName: 'product_benefits',
  uniques: [{ properties: ['product', 'benefit'] }],
  properties: {
    id: idColumn(),
    product: () => p.manyToOne(Product).deleteRule('cascade').index(),
    benefit: () => p.manyToOne(Benefit).deleteRule('cascade').index(),
    order: p.integer(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class ProductBenefit extends ProductBenefitSchema.class {}
ProductBenefitSchema.setClass(ProductBenefit);

/** An uploaded product_media file shown with a product, in order. */
const ProductMediaSchema = defineEntity({
  name: 'ProductMedia',
  tableName: 'product_medias',
  uniques: [{ properties: ['product', 'file'] }],
  properties: {
    id: idColumn(),
    product: () => p.manyToOne(Product).deleteRule('cascade').index(),
    file: () => p.manyToOne(StoredFile).deleteRule('cascade').index(),
    order: p.integer(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class ProductMedia extends ProductMediaSchema.class {}
ProductMediaSchema.setClass(ProductMedia);

/** A custom field asked at checkout for a product, in order, required or not. */
const ProductCustomFieldSchema = defineEntity({
  name: 'ProductCustomField',
  tableName: 'product_custom_fields',
  uniques: [{ properties: ['product', 'customField'] }],
  properties: {
    id: idColumn(),
    product: () => p.manyToOne(Product).deleteRule('cascade').index(),
    customField: () => p.manyToOne(CustomField).deleteRule('cascade').index(),
    order: p.integer(),
    required: p.boolean(),
    createdAt: p.datetime().onCreate(() => new Date()),
  },
});

export class ProductCustomField extends ProductCustomFieldSchema.class {}
ProductCustomFieldSchema.setClass(ProductCustomField);
