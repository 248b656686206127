import { z } from 'zod';
import { type Payment, paymentStatuses } from '../../db/entities/order.ts';
import { isoDateTime, isoDateTimeOrNull } from '../wire.ts';

export const paymentSortFields = ['created_at', 'status', 'amount', 'method'] as const;

export const paymentStatusFilter = z.enum(paymentStatuses);

/**
 * Polar's Payment: a `CardPayment` (method `card` with the card's brand and last digits) once
 * Stripe told which card paid, a `GenericPayment` (no `method_metadata`) until then.
 */
export function paymentWire(payment: Payment) {
  const { brand, last4 } = payment.methodMetadata;
  const card = typeof brand === 'string' && typeof last4 === 'string';
  return {
    id: payment.id,
    created_at: isoDateTime(payment.createdAt),
    modified_at: isoDateTimeOrNull(payment.modifiedAt),
    processor: 'stripe',
    status: payment.status,
    amount: payment.amount,
    currency: payment.currency,
    method: payment.method,
    decline_reason: payment.declineReason,
    decline_message: payment.declineMessage,
    organization_id: payment.organization.id,
    checkout_id: payment.checkoutId,
    order_id: payment.order?.id ?? null,
    ...(payment.processorId ? { processor_metadata: { intent_id: payment.processorId } } : {}),
    ...(card ? { method_metadata: payment.methodMetadata } : {}),
  };
}

export type PaymentWire = ReturnType<typeof paymentWire>;
