import { z } from 'zod';
import { checkoutStatuses } from '../../db/entities/checkout.ts';
import type { Checkout } from '../../db/entities/index.ts';
import { recurringIntervals } from '../../db/entities/product.ts';
import { addressInput } from '../../domain/addresses.ts';
import {
  type BillingAddressFields,
  billingAddressFieldNames,
  type CheckoutFlags,
} from '../../domain/checkout-amounts.ts';
import { metadataInput } from '../../domain/metadata.ts';
import {
  checkoutLinkProductWire,
  checkoutLinkProductWireSchema,
} from '../checkout-links/schemas.ts';
import { addressWire, addressWireSchema } from '../customers/schemas.ts';
import { type discountBaseWire, discountBaseWireSchema } from '../discounts/schemas.ts';
import { type OrganizationWire, organizationWireSchema } from '../organizations/schemas.ts';
import { type PriceWire, priceWireSchema, productWireSchema } from '../products/schemas.ts';
import type { ProductWire } from '../products/service.ts';
import { taxLineWire, taxLineWireSchema } from '../tax-rates/schemas.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull, metadataWireSchema } from '../wire.ts';

export const checkoutSortFields = ['created_at', 'expires_at', 'status'] as const;

// The columns are varchar(255): longer text is refused at its field, not by the database.
const text = z.string().trim().max(255);
/** Blank text is no value, as in Polar: `""` is stored as null. */
const optionalText = text.nullish().transform((value) => value || null);
/** A buyer's email; blank while the page is being filled in means none yet. */
const optionalEmail = z
  .union([z.literal('').transform(() => null), z.email({ message: 'Invalid email address.' })])
  .nullish()
  .transform((value) => value ?? null);
const ipAddress = z.union([z.ipv4(), z.ipv6()], { message: 'Invalid IP address.' });
const successUrl = z.url({ protocol: /^https?$/, message: 'Invalid URL.' });
const amount = z.number().int();
const seats = z.number().int().min(1);
/** Values submitted for custom fields; checked against the product's fields by the service. */
const customFieldData = z.record(
  z.string(),
  z.union([z.string(), z.number(), z.boolean(), z.null()]),
);
/**
 * The seller's metadata copied to the customer the checkout creates: customers hold no
 * fractional numbers (Polar's `customer_metadata` answers integers only).
 */
const customerMetadata = metadataInput.refine(
  (metadata) =>
    Object.values(metadata).every((value) => typeof value !== 'number' || Number.isInteger(value)),
  { message: 'Customer metadata numbers must be integers.' },
);
const trialFields = {
  trial_interval: z.enum(recurringIntervals).nullish(),
  trial_interval_count: z.number().int().min(1).max(1000).nullish(),
};

/**
 * What the buyer may change on the hosted page (Polar's `CheckoutUpdatePublic`): absent keys
 * keep their value, null clears a nullable one.
 */
const buyerFields = {
  product_id: z.uuid().nullish(),
  product_price_id: z.uuid().nullish(),
  amount: amount.nullish(),
  seats: seats.nullish(),
  is_business_customer: z.boolean().nullish(),
  customer_name: optionalText.optional(),
  customer_email: optionalEmail.optional(),
  customer_billing_name: optionalText.optional(),
  customer_billing_address: addressInput.nullish(),
  customer_tax_id: optionalText.optional(),
  custom_field_data: customFieldData.nullish(),
};

export const checkoutUpdatePublicInput = z.object({
  ...buyerFields,
  discount_code: z.string().trim().nullish(),
});
export type CheckoutUpdatePublicInput = z.infer<typeof checkoutUpdatePublicInput>;

/** Polar's `CheckoutConfirmStripe`: a last public update, plus Stripe's confirmation token. */
export const checkoutConfirmInput = checkoutUpdatePublicInput.extend({
  confirmation_token_id: z.string().trim().min(1).nullish(),
});
export type CheckoutConfirmInput = z.infer<typeof checkoutConfirmInput>;
/**
 * The confirm request's body as the route received and validated it: it crosses the checkout
 * workflow as this JSON (recorded histories hold it so) and is parsed where it is applied.
 */
export type CheckoutConfirmation = z.input<typeof checkoutConfirmInput>;

/** What the seller may change through the API (Polar's `CheckoutUpdate`). */
export const checkoutUpdateInput = z.object({
  ...buyerFields,
  customer_ip_address: ipAddress.nullish(),
  customer_metadata: customerMetadata.nullish(),
  discount_id: z.uuid().nullish(),
  allow_discount_codes: z.boolean().nullish(),
  require_billing_address: z.boolean().nullish(),
  success_url: successUrl.nullish(),
  embed_origin: text.nullish(),
  ...trialFields,
  metadata: metadataInput.optional(),
});
export type CheckoutUpdateInput = z.infer<typeof checkoutUpdateInput>;

/**
 * Polar's `CheckoutCreate`: the products offered (the first selected), who buys, what is taken
 * off and where the buyer goes afterwards. The SDK always sends the three booleans. Instead of
 * `products`, the deprecated forms Polar still accepts: `product_id` (that one product) or
 * `product_price_id` (its product, that price selected).
 */
export const checkoutCreateInput = z
  .object({
    products: z.array(z.uuid()).min(1).optional(),
    product_id: z.uuid().nullish(),
    product_price_id: z.uuid().nullish(),
    customer_id: z.uuid().nullish(),
    external_customer_id: optionalText,
    customer_email: optionalEmail,
    customer_name: optionalText,
    customer_billing_name: optionalText,
    customer_billing_address: addressInput.nullish(),
    customer_tax_id: optionalText,
    customer_ip_address: ipAddress.nullish(),
    customer_metadata: customerMetadata.optional(),
    is_business_customer: z.boolean().default(false),
    discount_id: z.uuid().nullish(),
    allow_discount_codes: z.boolean().default(true),
    require_billing_address: z.boolean().default(false),
    amount: amount.nullish(),
    seats: seats.nullish(),
    subscription_id: z.uuid().nullish(),
    success_url: successUrl.nullish(),
    embed_origin: text.nullish(),
    ...trialFields,
    metadata: metadataInput.optional(),
    custom_field_data: customFieldData.nullish(),
    organization_id: z.uuid().nullish(),
  })
  .refine(
    (input) =>
      [input.products, input.product_id, input.product_price_id].filter((given) => given != null)
        .length === 1,
    { message: 'Give one of products, product_id or product_price_id.', path: ['products'] },
  );
export type CheckoutCreateInput = z.infer<typeof checkoutCreateInput>;

/** The buyer's page for a checkout. */
export const checkoutUrl = (publicUrl: string, clientSecret: string) =>
  `${publicUrl.replace(/\/+$/, '')}/checkout/${clientSecret}`;

/**
 * Where the buyer lands after paying: the seller's URL with `{CHECKOUT_ID}` filled in, else the
 * hosted confirmation page.
 */
export function checkoutSuccessUrl(publicUrl: string, checkout: Checkout) {
  if (!checkout.successUrl) return `${checkoutUrl(publicUrl, checkout.clientSecret)}/confirmation`;
  return checkout.successUrl.replaceAll('{CHECKOUT_ID}', checkout.id);
}

/** Polar's `CheckoutProduct`. */
export const checkoutProductWireSchema = checkoutLinkProductWireSchema
  .omit({ metadata: true })
  .meta({ id: 'CheckoutProduct' });

const checkoutWireShape = {
  id: z.uuid(),
  created_at: dateTimeWireSchema,
  modified_at: dateTimeWireSchema.nullable(),
  custom_field_data: z.record(z.string(), z.unknown()),
  payment_processor: z.literal('stripe'),
  status: z.enum(checkoutStatuses),
  client_secret: z.string(),
  url: z.string(),
  expires_at: dateTimeWireSchema,
  success_url: z.string(),
  embed_origin: z.string().nullable(),
  amount: z.int(),
  seats: z.int().nullable(),
  discount_amount: z.int(),
  net_amount: z.int(),
  tax_amount: z.int().nullable(),
  /** Tollgate's addition: the lines behind `tax_amount` (empty while it is null). */
  tax_lines: z.array(taxLineWireSchema),
  total_amount: z.int(),
  currency: z.string(),
  active_trial_interval: z.enum(recurringIntervals).nullable(),
  active_trial_interval_count: z.int().nullable(),
  trial_end: dateTimeWireSchema.nullable(),
  product_id: z.uuid(),
  product_price_id: z.uuid(),
  discount_id: z.uuid().nullable(),
  allow_discount_codes: z.boolean(),
  require_billing_address: z.boolean(),
  is_discount_applicable: z.boolean(),
  is_free_product_price: z.boolean(),
  is_payment_required: z.boolean(),
  is_payment_setup_required: z.boolean(),
  is_payment_form_required: z.boolean(),
  customer_id: z.uuid().nullable(),
  is_business_customer: z.boolean(),
  customer_name: z.string().nullable(),
  customer_email: z.string().nullable(),
  customer_ip_address: z.string().nullable(),
  customer_billing_name: z.string().nullable(),
  customer_billing_address: addressWireSchema.nullable(),
  customer_tax_id: z.string().nullable(),
  payment_processor_metadata: z.record(z.string(), z.string()),
  /** Tollgate's addition: why the last payment attempt failed. */
  payment_error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /**
   * Tollgate's addition: what the customer's balance pays of `total_amount` (held from the
   * confirm, the order's `from_balance_amount` once paid; a preview before), and what is left
   * for the card to pay.
   */
  from_balance_amount: z.int(),
  amount_due: z.int(),
  billing_address_fields: z.record(
    z.enum(billingAddressFieldNames),
    z.enum(['required', 'optional', 'disabled']),
  ),
  products: z.array(checkoutProductWireSchema),
  product: checkoutProductWireSchema,
  product_price: priceWireSchema,
  discount: discountBaseWireSchema.nullable(),
  attached_custom_fields: productWireSchema.shape.attached_custom_fields,
};

/** Polar's `Checkout`, as the seller's API answers it. */
export const checkoutWireSchema = z
  .object({
    ...checkoutWireShape,
    trial_interval: z.enum(recurringIntervals).nullable(),
    trial_interval_count: z.int().nullable(),
    metadata: metadataWireSchema,
    external_customer_id: z.string().nullable(),
    customer_external_id: z.string().nullable(),
    subscription_id: z.uuid().nullable(),
    customer_metadata: metadataWireSchema,
  })
  .meta({ id: 'Checkout' });

/** Polar's `CheckoutPublic`: as the buyer sees it by client secret, with the seller. */
export const checkoutPublicWireSchema = z
  .object({ ...checkoutWireShape, organization: organizationWireSchema })
  .meta({ id: 'CheckoutPublic' });

/**
 * A product as a checkout offers it (Polar's `CheckoutProduct`): benefits reduced to their
 * public part, without the seller's metadata and custom-field settings.
 */
export function checkoutProductWire(
  product: ProductWire,
): z.input<typeof checkoutProductWireSchema> {
  const { metadata: _, ...offered } = checkoutLinkProductWire(product);
  return offered;
}
export type CheckoutProductWire = ReturnType<typeof checkoutProductWire>;

/** What a checkout's wire shape needs besides the row: its offer, as the service derives it. */
export interface CheckoutView {
  publicUrl: string;
  /** The status it answers: an open checkout past its expiry is expired, swept or not. */
  status: Checkout['status'];
  products: ProductWire[];
  product: ProductWire;
  price: PriceWire;
  discount: ReturnType<typeof discountBaseWire> | null;
  flags: CheckoutFlags;
  /** What the customer's balance pays of the total (see termsOf). */
  fromBalance: number;
  billingAddressFields: BillingAddressFields;
  activeTrial: { interval: (typeof recurringIntervals)[number]; count: number; end: Date } | null;
}

/** A checkout as the seller's API answers it (Polar's `Checkout`). */
export function checkoutWire(
  checkout: Checkout,
  view: CheckoutView,
): z.input<typeof checkoutWireSchema> {
  const { flags } = view;
  const externalId = checkout.externalCustomerId ?? checkout.customer?.externalId ?? null;
  return {
    id: checkout.id,
    created_at: isoDateTime(checkout.createdAt),
    modified_at: isoDateTimeOrNull(checkout.modifiedAt),
    custom_field_data: checkout.customFieldData,
    payment_processor: 'stripe' as const,
    status: view.status,
    client_secret: checkout.clientSecret,
    url: checkoutUrl(view.publicUrl, checkout.clientSecret),
    expires_at: isoDateTime(checkout.expiresAt),
    success_url: checkoutSuccessUrl(view.publicUrl, checkout),
    embed_origin: checkout.embedOrigin ?? null,
    amount: checkout.amount,
    seats: checkout.seats ?? null,
    discount_amount: checkout.discountAmount,
    net_amount: checkout.netAmount,
    tax_amount: checkout.taxAmount ?? null,
    tax_lines: checkout.taxLines.map(taxLineWire),
    total_amount: checkout.totalAmount,
    currency: checkout.currency,
    active_trial_interval: view.activeTrial?.interval ?? null,
    active_trial_interval_count: view.activeTrial?.count ?? null,
    trial_end: isoDateTimeOrNull(view.activeTrial?.end),
    product_id: checkout.product.id,
    product_price_id: checkout.productPrice.id,
    discount_id: checkout.discount?.id ?? null,
    allow_discount_codes: checkout.allowDiscountCodes,
    require_billing_address: checkout.requireBillingAddress,
    is_discount_applicable: flags.isDiscountApplicable,
    is_free_product_price: flags.isFreeProductPrice,
    is_payment_required: flags.isPaymentRequired,
    is_payment_setup_required: flags.isPaymentSetupRequired,
    is_payment_form_required: flags.isPaymentFormRequired,
    customer_id: checkout.customer?.id ?? null,
    is_business_customer: checkout.isBusinessCustomer,
    customer_name: checkout.customerName ?? null,
    customer_email: checkout.customerEmail ?? null,
    customer_ip_address: checkout.customerIpAddress ?? null,
    customer_billing_name: checkout.customerBillingName ?? null,
    customer_billing_address: checkout.customerBillingAddress
      ? addressWire(checkout.customerBillingAddress)
      : null,
    customer_tax_id: checkout.customerTaxId?.[0] ?? null,
    payment_processor_metadata: checkout.paymentProcessorMetadata,
    /** Tollgate's addition: why the last payment attempt failed, for the page to show. */
    payment_error: checkout.paymentError ?? null,
    from_balance_amount: view.fromBalance,
    amount_due: checkout.totalAmount - view.fromBalance,
    billing_address_fields: view.billingAddressFields,
    trial_interval: checkout.trialInterval ?? null,
    trial_interval_count: checkout.trialIntervalCount ?? null,
    metadata: checkout.metadata,
    external_customer_id: externalId,
    customer_external_id: externalId,
    products: view.products.map(checkoutProductWire),
    product: checkoutProductWire(view.product),
    product_price: view.price,
    discount: view.discount,
    subscription_id: checkout.subscription?.id ?? null,
    attached_custom_fields: view.product.attached_custom_fields,
    customer_metadata: checkout.customerMetadata,
  };
}
export type CheckoutWire = ReturnType<typeof checkoutWire>;

/**
 * A checkout as its buyer sees it by client secret (Polar's `CheckoutPublic`): without the
 * seller's metadata and references, with the seller organization.
 */
export function checkoutPublicWire(
  checkout: CheckoutWire,
  organization: OrganizationWire,
): z.input<typeof checkoutPublicWireSchema> {
  const {
    metadata: _metadata,
    external_customer_id: _externalCustomerId,
    customer_external_id: _customerExternalId,
    subscription_id: _subscriptionId,
    customer_metadata: _customerMetadata,
    trial_interval: _trialInterval,
    trial_interval_count: _trialIntervalCount,
    ...visible
  } = checkout;
  return { ...visible, organization };
}
export type CheckoutPublicWire = ReturnType<typeof checkoutPublicWire>;
