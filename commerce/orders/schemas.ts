import { z } from 'zod';
import type { Order, OrderItem } from '../../db/entities/index.ts';
import { orderBillingReasons, orderStatuses } from '../../db/entities/order.ts';
import { addressInput } from '../../domain/addresses.ts';
import { declineReasonOf } from '../../domain/decline-reasons.ts';
import type { RenewalRetryOutcome } from '../../domain/subscription-schedule.ts';
import {
  addressWire,
  addressWireSchema,
  customerWire,
  customerWireSchema,
} from '../customers/schemas.ts';
import { discountBaseWire, discountBaseWireSchema } from '../discounts/schemas.ts';
import { productBaseWire, productBaseWireSchema } from '../products/schemas.ts';
import { subscriptionCoreWire, subscriptionCoreWireSchema } from '../subscriptions/schemas.ts';
import { taxLineWire, taxLineWireSchema } from '../tax-rates/schemas.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull, metadataWireSchema } from '../wire.ts';

export const orderSortFields = [
  'created_at',
  'status',
  'invoice_number',
  'amount',
  'net_amount',
  'customer',
  'product',
  'discount',
  'subscription',
] as const;

export const productBillingTypeFilter = z.enum(['one_time', 'recurring']);

/**
 * The signed link's token of an invoice (or credit note) document, and Tollgate's own `format`:
 * `pdf` for the PDF (as `Accept: application/pdf` asks), HTML otherwise.
 */
export const invoiceDocumentQuery = z
  .object({ token: z.string().min(1), format: z.enum(['html', 'pdf']).optional() })
  .loose();

/** The portal's order list searches the product's name (`query`). */
export const customerOrderListQuery = z
  .object({ query: z.string().trim().min(1).optional() })
  .loose();

/** Polar's `OrderUpdate`: both keys are required, either may be null. */
export const orderUpdateInput = z.object({
  billing_name: z.string().trim().max(255).nullable(),
  billing_address: addressInput.nullable(),
});
export type OrderUpdateInput = z.infer<typeof orderUpdateInput>;

/** Polar's `OrderItemSchema`. */
export const orderItemWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    label: z.string(),
    amount: z.int(),
    tax_amount: z.int(),
    proration: z.boolean(),
    product_price_id: z.uuid().nullable(),
  })
  .meta({ id: 'OrderItemSchema' });

/** Polar's `Order`. */
export const orderWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    status: z.enum(orderStatuses),
    paid: z.boolean(),
    subtotal_amount: z.int(),
    discount_amount: z.int(),
    net_amount: z.int(),
    tax_amount: z.int(),
    /** Tollgate's addition: the lines behind `tax_amount` (empty when nothing was taxed). */
    tax_lines: z.array(taxLineWireSchema),
    total_amount: z.int(),
    from_balance_amount: z.int(),
    refunded_amount: z.int(),
    refunded_tax_amount: z.int(),
    currency: z.string(),
    billing_reason: z.enum(orderBillingReasons),
    billing_name: z.string().nullable(),
    billing_address: addressWireSchema.nullable(),
    invoice_number: z.string(),
    is_invoice_generated: z.boolean(),
    customer_id: z.uuid(),
    product_id: z.uuid(),
    discount_id: z.uuid().nullable(),
    subscription_id: z.uuid().nullable(),
    checkout_id: z.uuid().nullable(),
    metadata: metadataWireSchema,
    custom_field_data: z.record(z.string(), z.unknown()),
    customer: customerWireSchema,
    user_id: z.uuid(),
    product: productBaseWireSchema,
    discount: discountBaseWireSchema.nullable(),
    subscription: subscriptionCoreWireSchema.nullable(),
    items: z.array(orderItemWireSchema),
  })
  .meta({ id: 'Order' });
export type OrderWire = z.input<typeof orderWireSchema>;

/** Polar's `OrderInvoice`: where the invoice is. */
export const orderInvoiceWireSchema = z.object({ url: z.string() }).meta({ id: 'OrderInvoice' });

/** Polar's `CustomerOrderPaymentStatus`. */
export const orderPaymentStatusWireSchema = z
  .object({ status: z.enum(['succeeded', 'failed', 'pending']), error: z.string().nullable() })
  .meta({ id: 'CustomerOrderPaymentStatus' });

/** Polar's `CustomerOrderPaymentConfirmation`, with Tollgate's `next_action_url`. */
export const paymentConfirmationWireSchema = z
  .object({
    status: z.string(),
    client_secret: z.string().optional(),
    next_action_url: z.string().optional(),
    error: z.string().optional(),
  })
  .meta({ id: 'CustomerOrderPaymentConfirmation' });

/** A line of an order (Polar's `OrderItemSchema`). */
export function orderItemWire(item: OrderItem): z.input<typeof orderItemWireSchema> {
  return {
    id: item.id,
    created_at: isoDateTime(item.createdAt),
    modified_at: isoDateTimeOrNull(item.modifiedAt),
    label: item.label,
    amount: item.amount,
    tax_amount: item.taxAmount,
    proration: item.proration,
    product_price_id: item.productPrice?.id ?? null,
  };
}

/**
 * An order as /v1 answers it (Polar's `Order`), with its customer, product, discount and
 * subscription loaded; `user_id` is Polar's deprecated alias of the customer id.
 */
export function orderWire(order: Order, items: OrderItem[]): OrderWire {
  return {
    id: order.id,
    created_at: isoDateTime(order.createdAt),
    modified_at: isoDateTimeOrNull(order.modifiedAt),
    status: order.status,
    paid: order.status !== 'pending',
    subtotal_amount: order.subtotalAmount,
    discount_amount: order.discountAmount,
    net_amount: order.netAmount,
    tax_amount: order.taxAmount,
    tax_lines: order.taxLines.map(taxLineWire),
    total_amount: order.totalAmount,
    from_balance_amount: order.fromBalanceAmount,
    refunded_amount: order.refundedAmount,
    refunded_tax_amount: order.refundedTaxAmount,
    currency: order.currency,
    billing_reason: order.billingReason,
    billing_name: order.billingName ?? null,
    billing_address: order.billingAddress ? addressWire(order.billingAddress) : null,
    invoice_number: order.invoiceNumber,
    is_invoice_generated: order.isInvoiceGenerated,
    customer_id: order.customer.id,
    product_id: order.product.id,
    discount_id: order.discount?.id ?? null,
    subscription_id: order.subscription?.id ?? null,
    checkout_id: order.checkoutId ?? null,
    metadata: order.metadata,
    custom_field_data: order.customFieldData,
    customer: customerWire(order.customer),
    user_id: order.customer.id,
    product: productBaseWire(order.product),
    discount: order.discount ? discountBaseWire(order.discount) : null,
    subscription: order.subscription ? subscriptionCoreWire(order.subscription) : null,
    items: items.map(orderItemWire),
  };
}

/** Polar's `CustomerOrderConfirmPayment`: a new card (confirmation token or payment method), or none. */
export const confirmRetryPaymentInput = z.object({
  confirmation_token_id: z
    .string()
    .regex(/^ctoken_[\w-]+$/, 'Not a confirmation token.')
    .nullish(),
  payment_method_id: z
    .string()
    .regex(/^pm_[\w-]+$/, 'Not a payment method.')
    .nullish(),
  payment_processor: z.literal('stripe').optional(),
});
export type ConfirmRetryPaymentInput = z.infer<typeof confirmRetryPaymentInput>;

/** Polar's `CustomerOrderPaymentConfirmation`: the secret only to authenticate, the reason only when declined. */
export function paymentConfirmationWire({
  status,
  clientSecret,
  nextActionUrl,
  error,
}: RenewalRetryOutcome) {
  return {
    status,
    ...(clientSecret && { client_secret: clientSecret }),
    // Tollgate's extra (the SDK drops it): the challenge's address when Stripe.js cannot run it.
    ...(nextActionUrl && { next_action_url: nextActionUrl }),
    ...(error && { error: declineReasonOf(error.code) ?? error.message }),
  };
}
