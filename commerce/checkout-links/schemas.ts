import { z } from 'zod';
import type { CheckoutLink } from '../../db/entities/index.ts';
import { metadataInput } from '../../domain/metadata.ts';
import { recurringIntervals } from '../../domain/prices.ts';
import { benefitPublicWireSchema } from '../benefits/schemas.ts';
import { discountBaseWire, discountBaseWireSchema } from '../discounts/schemas.ts';
import { productWireSchema } from '../products/schemas.ts';
import type { ProductWire } from '../products/service.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull, metadataWireSchema } from '../wire.ts';

const successUrl = z.url({ protocol: /^https?$/ }).nullable();
const trialFields = {
  trial_interval: z.enum(recurringIntervals).nullable().optional(),
  trial_interval_count: z.number().int().min(1).max(1000).nullable().optional(),
};

/**
 * Polar's three create forms: `products` (the current one), or the deprecated single
 * `product_id` / `product_price_id` (the price's product). Exactly one must be sent.
 */
export const checkoutLinkCreateInput = z.object({
  payment_processor: z.literal('stripe'),
  products: z.array(z.uuid()).min(1).optional(),
  product_id: z.uuid().optional(),
  product_price_id: z.uuid().optional(),
  label: z.string().max(255).nullable().optional(),
  allow_discount_codes: z.boolean().default(true),
  require_billing_address: z.boolean().default(false),
  discount_id: z.uuid().nullable().optional(),
  success_url: successUrl.optional(),
  ...trialFields,
  metadata: metadataInput.optional(),
});
export type CheckoutLinkCreateInput = z.infer<typeof checkoutLinkCreateInput>;

/** Absent fields keep their value; null clears a nullable one (null flags keep theirs). */
export const checkoutLinkUpdateInput = z.object({
  products: z.array(z.uuid()).min(1).nullable().optional(),
  label: z.string().max(255).nullable().optional(),
  allow_discount_codes: z.boolean().nullable().optional(),
  require_billing_address: z.boolean().nullable().optional(),
  discount_id: z.uuid().nullable().optional(),
  success_url: successUrl.optional(),
  ...trialFields,
  metadata: metadataInput.optional(),
});
export type CheckoutLinkUpdateInput = z.infer<typeof checkoutLinkUpdateInput>;

export const checkoutLinkSortFields = [
  'created_at',
  'label',
  'success_url',
  'allow_discount_codes',
] as const;

/** Where following the link leads: the redirect that opens a new checkout for its products. */
export const checkoutLinkUrl = (publicUrl: string, clientSecret: string) =>
  `${publicUrl.replace(/\/$/, '')}/v1/checkout-links/${clientSecret}/redirect`;

/** Polar's `CheckoutLinkProduct`: the product with public benefits and no field settings. */
export const checkoutLinkProductWireSchema = productWireSchema
  .omit({ attached_custom_fields: true })
  .extend({ benefits: z.array(benefitPublicWireSchema) })
  .meta({ id: 'CheckoutLinkProduct' });

/** Polar's `CheckoutLink`. */
export const checkoutLinkWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    trial_interval: z.enum(recurringIntervals).nullable(),
    trial_interval_count: z.int().nullable(),
    metadata: metadataWireSchema,
    payment_processor: z.literal('stripe'),
    client_secret: z.string(),
    success_url: z.string().nullable(),
    label: z.string().nullable(),
    allow_discount_codes: z.boolean(),
    require_billing_address: z.boolean(),
    discount_id: z.uuid().nullable(),
    organization_id: z.uuid(),
    products: z.array(checkoutLinkProductWireSchema),
    discount: discountBaseWireSchema.nullable(),
    url: z.string(),
  })
  .meta({ id: 'CheckoutLink' });

/**
 * A product offered by a link (Polar's `CheckoutLinkProduct`): the product as a checkout shows
 * it, benefits reduced to their public part and without the seller's custom-field settings.
 */
export function checkoutLinkProductWire(
  product: ProductWire,
): z.input<typeof checkoutLinkProductWireSchema> {
  const { attached_custom_fields: _, benefits, ...offered } = product;
  return {
    ...offered,
    benefits: benefits.map(
      ({ metadata: _metadata, properties: _properties, ...benefit }) => benefit,
    ),
  };
}
export type CheckoutLinkProductWire = ReturnType<typeof checkoutLinkProductWire>;

/** A checkout link as /v1 answers it (Polar's `CheckoutLink`), its products and discount given. */
export function checkoutLinkWire(
  link: CheckoutLink,
  products: CheckoutLinkProductWire[],
  publicUrl: string,
): z.input<typeof checkoutLinkWireSchema> {
  return {
    id: link.id,
    created_at: isoDateTime(link.createdAt),
    modified_at: isoDateTimeOrNull(link.modifiedAt),
    trial_interval: link.trialInterval ?? null,
    trial_interval_count: link.trialIntervalCount ?? null,
    metadata: link.metadata,
    payment_processor: 'stripe' as const,
    client_secret: link.clientSecret,
    success_url: link.successUrl ?? null,
    label: link.label ?? null,
    allow_discount_codes: link.allowDiscountCodes,
    require_billing_address: link.requireBillingAddress,
    discount_id: link.discount?.id ?? null,
    organization_id: link.organization.id,
    products,
    discount: link.discount ? discountBaseWire(link.discount) : null,
    url: checkoutLinkUrl(publicUrl, link.clientSecret),
  };
}
export type CheckoutLinkWire = ReturnType<typeof checkoutLinkWire>;
