import { z } from 'zod';
import type { Refund } from '../../db/entities/refund.ts';
import { metadataInput } from '../../domain/metadata.ts';
import { refundReasons, refundStatuses } from '../../domain/refunds.ts';
import { dateTimeWireSchema, isoDateTime, isoDateTimeOrNull, metadataWireSchema } from '../wire.ts';

export const refundSortFields = ['created_at', 'amount'] as const;

/** Polar's `RefundCreate`: `amount` is pre-tax, in minor units; the tax follows pro rata. */
export const refundCreateInput = z.object({
  order_id: z.uuid(),
  reason: z.enum(refundReasons),
  amount: z.int().min(1),
  comment: z.string().trim().max(10_000).nullable().optional(),
  revoke_benefits: z.boolean().default(false),
  metadata: metadataInput.default({}),
});
export type RefundCreateInput = z.infer<typeof refundCreateInput>;

/** Polar's `Refund`. */
export const refundWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    metadata: metadataWireSchema,
    status: z.enum(refundStatuses),
    reason: z.enum(refundReasons),
    amount: z.int(),
    tax_amount: z.int(),
    currency: z.string(),
    organization_id: z.uuid(),
    order_id: z.uuid(),
    subscription_id: z.uuid().nullable(),
    customer_id: z.uuid(),
    revoke_benefits: z.boolean(),
    /** Tollgate's addition: the credit note's number, once the refund succeeded. */
    credit_note_number: z.string().nullable(),
    /**
     * Tollgate's addition: what of `amount` + `tax_amount` goes back to the customer's balance
     * instead of the card (an order paid partly from the balance refunds the card first).
     */
    to_balance_amount: z.int(),
  })
  .meta({ id: 'Refund' });
export type RefundWire = z.input<typeof refundWireSchema>;

/** A refund as /v1 answers it (Polar's `Refund`). */
export function refundWire(refund: Refund): RefundWire {
  return {
    id: refund.id,
    created_at: isoDateTime(refund.createdAt),
    modified_at: isoDateTimeOrNull(refund.modifiedAt),
    metadata: refund.metadata,
    status: refund.status,
    reason: refund.reason,
    amount: refund.amount,
    tax_amount: refund.taxAmount,
    currency: refund.currency,
    organization_id: refund.organization.id,
    order_id: refund.order.id,
    subscription_id: refund.subscription?.id ?? null,
    customer_id: refund.customer.id,
    revoke_benefits: refund.revokeBenefits,
    credit_note_number: refund.creditNoteNumber ?? null,
    to_balance_amount: refund.toBalanceAmount,
  };
}
