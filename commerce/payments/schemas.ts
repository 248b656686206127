import { z } from 'zod';
import { type Payment, paymentStatuses } from '../../db/entities/order.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull } from '../wire.ts';

export const paymentSortFields = ['created_at', 'status', 'amount', 'method'] as const;

export const paymentStatusFilter = z.enum(paymentStatuses);

/**
 * Polar's `Payment`: `CardPayment` (method `card` with `method_metadata`) or `GenericPayment`.
 * `method_metadata` is kept open: it holds what Stripe told of the card (brand, last4, …).
 */
export const paymentWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    processor: z.literal('stripe'),
    status: z.enum(paymentStatuses),
    amount: z.int(),
    currency: z.string(),
    method: z.string(),
    decline_reason: z.string().nullable(),
    decline_message: z.string().nullable(),
    organization_id: z.uuid(),
    checkout_id: z.uuid().nullable(),
    order_id: z.uuid().nullable(),
    processor_metadata: z.object({ intent_id: z.string() }).optional(),
    method_metadata: z.looseObject({ brand: z.string(), last4: z.string() }).optional(),
  })
  .meta({ id: 'Payment' });
export type PaymentWire = z.input<typeof paymentWireSchema>;

/**
 * Polar's Payment: a `CardPayment` (method `card` with the card's brand and last digits) once
 * Stripe told which card paid, a `GenericPayment` (no `method_metadata`) until then.
 */
export function paymentWire(payment: Payment): PaymentWire {
  const { brand, last4 } = payment.methodMetadata;
  const card = typeof brand === 'string' && typeof last4 === 'string';
  return {
    id: payment.id,
    created_at: isoDateTime(payment.createdAt),
    modified_at: isoDateTimeOrNull(payment.modifiedAt),
    processor: 'stripe' as const,
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    method: payment.method,
    decline_reason: payment.declineReason ?? null,
    decline_message: payment.declineMessage ?? null,
    organization_id: payment.organization.id,
    checkout_id: payment.checkoutId ?? null,
    order_id: payment.order?.id ?? null,
    ...(payment.processorId ? { processor_metadata: { intent_id: payment.processorId } } : {}),
    ...(card ? { method_metadata: { ...payment.methodMetadata, brand, last4 } } : {}),
  };
}
