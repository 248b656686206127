import { z } from 'zod';
import type { Checkout } from '../../db/entities/index.ts';
import { recurringIntervals } from '../../db/entities/product.ts';
import { addressInput } from '../../domain/addresses.ts';
import type { BillingAddressFields, CheckoutFlags } from '../../domain/checkout-amounts.ts';
import { metadataInput } from '../../domain/metadata.ts';
import { checkoutLinkProductWire } from '../checkout-links/schemas.ts';
import { addressWire } from '../customers/schemas.ts';
import type { discountBaseWire } from '../discounts/schemas.ts';
import type { OrganizationWire } from '../organizations/schemas.ts';
import type { PriceWire } from '../products/schemas.ts';
import type { ProductWire } from '../products/service.ts';
import { isoDateTime, isoDateTimeOrNull } from '../wire.ts';

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

/**
 * A product as a checkout offers it (Polar's `CheckoutProduct`): benefits reduced to their
 * public part, without the seller's metadata and custom-field settings.
 */
export function checkoutProductWire(product: ProductWire) {
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
  billingAddressFields: BillingAddressFields;
  activeTrial: { interval: (typeof recurringIntervals)[number]; count: number; end: Date } | null;
}

/** A checkout as the seller's API answers it (Polar's `Checkout`). */
export function checkoutWire(checkout: Checkout, view: CheckoutView) {
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
export function checkoutPublicWire(checkout: CheckoutWire, organization: OrganizationWire) {
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
