import { z } from 'zod';
import type { Order, OrderItem } from '../../db/entities/index.ts';
import { addressInput } from '../../domain/addresses.ts';
import { declineReasonOf } from '../../domain/decline-reasons.ts';
import type { RenewalRetryOutcome } from '../../domain/subscription-schedule.ts';
import { addressWire, customerWire } from '../customers/schemas.ts';
import { discountBaseWire } from '../discounts/schemas.ts';
import { productBaseWire } from '../products/schemas.ts';
import { subscriptionCoreWire } from '../subscriptions/schemas.ts';
import { isoDateTime, isoDateTimeOrNull } from '../wire.ts';

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

/** Polar's `OrderUpdate`: both keys are required, either may be null. */
export const orderUpdateInput = z.object({
  billing_name: z.string().trim().max(255).nullable(),
  billing_address: addressInput.nullable(),
});
export type OrderUpdateInput = z.infer<typeof orderUpdateInput>;

/** A line of an order (Polar's `OrderItemSchema`). */
export function orderItemWire(item: OrderItem) {
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
export function orderWire(order: Order, items: OrderItem[]) {
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
export type OrderWire = ReturnType<typeof orderWire>;

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
