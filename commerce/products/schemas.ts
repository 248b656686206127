import { z } from 'zod';
import type { Product, ProductPrice } from '../../db/entities/index.ts';
import { metadataInput } from '../../domain/metadata.ts';
import {
  canonicalDecimal,
  customAmountsProblem,
  priceAmountLimits,
  priceCurrencies,
  recurringIntervals,
  unitAmountText,
} from '../../domain/prices.ts';
import { taxBehaviors } from '../../domain/tax.ts';
import { benefitPublicWireSchema, benefitWireSchema } from '../benefits/schemas.ts';
import { customFieldWireSchema } from '../custom-fields/schemas.ts';
import { productMediaWireSchema } from '../files/schemas.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull, metadataWireSchema } from '../wire.ts';

const { minimum, maximum, customMaximum, capMaximum } = priceAmountLimits;

/** An amount in cents within Polar's range for a charge. */
const priceAmount = z.number().int().min(minimum).max(maximum);

/** A lowercase ISO 4217 code among those sellers may price in; absent means usd. */
const priceCurrency = z
  .string()
  .toLowerCase()
  .regex(/^[a-z]{3}$/, 'Currency must be a 3-letter ISO 4217 code.')
  .refine((currency) => (priceCurrencies as readonly string[]).includes(currency), {
    message: `Only ${priceCurrencies.join(', ')} is supported.`,
  })
  .default('usd');

const customPriceInput = z
  .object({
    amount_type: z.literal('custom'),
    price_currency: priceCurrency,
    minimum_amount: priceAmount.nullable().default(null),
    maximum_amount: priceAmount.max(customMaximum).nullable().default(null),
    preset_amount: priceAmount.max(customMaximum).nullable().default(null),
  })
  .check((ctx) => {
    const problem = customAmountsProblem({
      minimumAmount: ctx.value.minimum_amount,
      maximumAmount: ctx.value.maximum_amount,
      presetAmount: ctx.value.preset_amount,
    });
    if (problem) {
      ctx.issues.push({
        code: 'custom',
        input: ctx.value[problem.field],
        path: [problem.field],
        message: problem.message,
      });
    }
  });

const unitAmount = z.union([z.number(), z.string()]).transform((value, ctx) => {
  const text = unitAmountText(value);
  if (text === null) {
    ctx.issues.push({
      code: 'custom',
      input: value,
      message: 'Unit amount must be a positive decimal with at most 12 decimal places.',
    });
    return z.NEVER;
  }
  return text;
});

/** A new price, by amount type (Polar's `ProductPrice*Create`). */
export const priceCreateInput = z.discriminatedUnion('amount_type', [
  z.object({
    amount_type: z.literal('fixed'),
    price_currency: priceCurrency,
    price_amount: priceAmount,
  }),
  customPriceInput,
  z.object({ amount_type: z.literal('free') }),
  z.object({
    amount_type: z.literal('metered_unit'),
    price_currency: priceCurrency,
    meter_id: z.uuid(),
    unit_amount: unitAmount,
    cap_amount: z.number().int().min(0).max(capMaximum).nullable().default(null),
  }),
  z.object({
    amount_type: z.literal('seat_based'),
    price_currency: priceCurrency,
    price_per_seat: priceAmount,
  }),
]);
export type PriceCreateInput = z.infer<typeof priceCreateInput>;

/** An existing price kept by an update, named by its id. */
const existingPriceInput = z.object({ id: z.uuid() });
export type ExistingPriceInput = z.infer<typeof existingPriceInput>;

const productName = z.string().trim().min(3).max(255);
// Polar reads an empty description as none.
const productDescription = z
  .string()
  .trim()
  .transform((text) => text || null)
  .nullable();
const trialInterval = z.enum(recurringIntervals).nullable();
const trialIntervalCount = z.number().int().min(1).max(1000).nullable();
const attachedCustomFieldsInput = z.array(
  z.object({ custom_field_id: z.uuid(), required: z.boolean() }),
);
const mediasInput = z.array(z.uuid());

export const productCreateInput = z.object({
  name: productName,
  description: productDescription.optional(),
  recurring_interval: z.enum(recurringIntervals).nullable().default(null),
  trial_interval: trialInterval.optional(),
  trial_interval_count: trialIntervalCount.optional(),
  prices: z.array(priceCreateInput).min(1),
  medias: mediasInput.nullable().optional(),
  attached_custom_fields: attachedCustomFieldsInput.default([]),
  metadata: metadataInput.default({}),
  organization_id: z.uuid().nullable().optional(),
  // Tollgate's own: whether its sales are taxed (docs/tax.md).
  tax_behavior: z.enum(taxBehaviors).default('taxable'),
});
export type ProductCreateInput = z.infer<typeof productCreateInput>;

export const productUpdateInput = z.object({
  name: productName.nullable().optional(),
  description: productDescription.optional(),
  recurring_interval: z.enum(recurringIntervals).nullable().optional(),
  trial_interval: trialInterval.optional(),
  trial_interval_count: trialIntervalCount.optional(),
  is_archived: z.boolean().nullable().optional(),
  // Polar reads `{id}` as a kept price first, anything else as a new one.
  prices: z
    .array(z.union([existingPriceInput, priceCreateInput]))
    .nullable()
    .optional(),
  medias: mediasInput.nullable().optional(),
  attached_custom_fields: attachedCustomFieldsInput.nullable().optional(),
  metadata: metadataInput.optional(),
  tax_behavior: z.enum(taxBehaviors).optional(),
});
export type ProductUpdateInput = z.infer<typeof productUpdateInput>;

export const productBenefitsInput = z.object({ benefits: z.array(z.uuid()) });

export const productListQuery = z.object({ query: z.string().trim().min(1).optional() }).loose();
export const productSortFields = [
  'created_at',
  'name',
  'price_amount_type',
  'price_amount',
] as const;

const priceWireShape = {
  id: z.uuid(),
  created_at: dateTimeWireSchema,
  modified_at: dateTimeWireSchema.nullable(),
  is_archived: z.boolean(),
  product_id: z.uuid(),
  type: z.enum(['one_time', 'recurring']),
  recurring_interval: z.enum(recurringIntervals).nullable(),
};

/** Polar's `ProductPrice`, by `amount_type`. */
export const priceWireSchema = z
  .discriminatedUnion('amount_type', [
    z.object({
      ...priceWireShape,
      amount_type: z.literal('fixed'),
      price_currency: z.string(),
      price_amount: z.int(),
    }),
    z.object({
      ...priceWireShape,
      amount_type: z.literal('custom'),
      price_currency: z.string(),
      minimum_amount: z.int().nullable(),
      maximum_amount: z.int().nullable(),
      preset_amount: z.int().nullable(),
    }),
    z.object({ ...priceWireShape, amount_type: z.literal('free') }),
    z.object({
      ...priceWireShape,
      amount_type: z.literal('metered_unit'),
      price_currency: z.string(),
      /** A decimal, as text: cents per unit, up to 12 decimal places. */
      unit_amount: z.string(),
      cap_amount: z.int().nullable(),
      meter_id: z.uuid(),
      meter: z.object({ id: z.uuid(), name: z.string() }),
    }),
    z.object({
      ...priceWireShape,
      amount_type: z.literal('seat_based'),
      price_currency: z.string(),
      price_per_seat: z.int(),
    }),
  ])
  .meta({ id: 'ProductPrice' });

/** Polar's `ProductBase`: a product without its prices, benefits and medias, as others embed it. */
export const productBaseWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    trial_interval: z.enum(recurringIntervals).nullable(),
    trial_interval_count: z.int().nullable(),
    name: z.string(),
    description: z.string().nullable(),
    recurring_interval: z.enum(recurringIntervals).nullable(),
    is_recurring: z.boolean(),
    is_archived: z.boolean(),
    organization_id: z.uuid(),
    metadata: metadataWireSchema,
  })
  .meta({ id: 'ProductBase' });

/** Polar's `Product`. */
export const productWireSchema = productBaseWireSchema
  .extend({
    prices: z.array(priceWireSchema),
    benefits: z.array(benefitWireSchema),
    medias: z.array(productMediaWireSchema),
    attached_custom_fields: z.array(
      z.object({
        custom_field_id: z.uuid(),
        custom_field: customFieldWireSchema,
        order: z.int(),
        required: z.boolean(),
      }),
    ),
    // Tollgate's own (docs/tax.md).
    tax_behavior: z.enum(taxBehaviors),
  })
  .meta({ id: 'Product' });

/** Polar's `CustomerProduct`: the product as buyers see it (no metadata, public benefits). */
export const customerProductWireSchema = productBaseWireSchema
  .omit({ metadata: true })
  .extend({
    prices: z.array(priceWireSchema),
    benefits: z.array(benefitPublicWireSchema),
    medias: z.array(productMediaWireSchema),
  })
  .meta({ id: 'CustomerProduct' });

/** What `priceWire` reads of a price: the entity, or the same fields read from a row. */
export type PriceFields = Pick<
  ProductPrice,
  | 'id'
  | 'createdAt'
  | 'modifiedAt'
  | 'isArchived'
  | 'amountType'
  | 'priceCurrency'
  | 'priceAmount'
  | 'minimumAmount'
  | 'maximumAmount'
  | 'presetAmount'
  | 'unitAmount'
  | 'capAmount'
  | 'pricePerSeat'
> & { meter?: { id: string; name: string } | null };

/**
 * A price as /v1 answers it (Polar's `ProductPrice` union). `type` and `recurring_interval`
 * mirror the product; a metered price embeds its meter, which must be loaded.
 */
export function priceWire(price: PriceFields, product: Product): z.input<typeof priceWireSchema> {
  const common = {
    id: price.id,
    created_at: isoDateTime(price.createdAt),
    modified_at: isoDateTimeOrNull(price.modifiedAt),
    is_archived: price.isArchived,
    product_id: product.id,
    type: product.recurringInterval ? ('recurring' as const) : ('one_time' as const),
    recurring_interval: product.recurringInterval ?? null,
  };
  const currency = price.priceCurrency ?? 'usd';
  switch (price.amountType) {
    case 'fixed':
      return {
        ...common,
        amount_type: 'fixed' as const,
        price_currency: currency,
        price_amount: price.priceAmount ?? 0,
      };
    case 'custom':
      return {
        ...common,
        amount_type: 'custom' as const,
        price_currency: currency,
        minimum_amount: price.minimumAmount ?? null,
        maximum_amount: price.maximumAmount ?? null,
        preset_amount: price.presetAmount ?? null,
      };
    case 'free':
      return { ...common, amount_type: 'free' as const };
    case 'metered_unit': {
      const meter = price.meter;
      if (!meter) throw new Error(`Metered price ${price.id} has no meter`);
      return {
        ...common,
        amount_type: 'metered_unit' as const,
        price_currency: currency,
        unit_amount: canonicalDecimal(price.unitAmount ?? '0'),
        cap_amount: price.capAmount ?? null,
        meter_id: meter.id,
        meter: { id: meter.id, name: meter.name },
      };
    }
    case 'seat_based':
      return {
        ...common,
        amount_type: 'seat_based' as const,
        price_currency: currency,
        price_per_seat: price.pricePerSeat ?? 0,
      };
  }
}
export type PriceWire = ReturnType<typeof priceWire>;

/**
 * The product without its prices, benefits and medias (Polar's `DiscountProduct` /
 * `OrderProduct`), embedded by discounts, orders, subscriptions and checkouts.
 */
export function productBaseWire(product: Product): z.input<typeof productBaseWireSchema> {
  return {
    id: product.id,
    created_at: isoDateTime(product.createdAt),
    modified_at: isoDateTimeOrNull(product.modifiedAt),
    trial_interval: product.trialInterval ?? null,
    trial_interval_count: product.trialIntervalCount ?? null,
    name: product.name,
    description: product.description ?? null,
    recurring_interval: product.recurringInterval ?? null,
    is_recurring: product.recurringInterval != null,
    is_archived: product.isArchived,
    organization_id: product.organization.id,
    metadata: product.metadata,
  };
}
export type ProductBaseWire = ReturnType<typeof productBaseWire>;
