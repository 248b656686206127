import type { FilterQuery } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { invalidField } from '../../core/errors.ts';
import { Order } from '../../db/entities/index.ts';
import { decimalAmount } from '../../domain/money.ts';
import { ratePercent, type TaxLine } from '../../domain/tax.ts';
import { isoDateTime } from '../wire.ts';

/** GET /v1/orders/export's range: UTC days, both included; either end may be left open. */
export const orderExportQuery = z
  .object({ start_date: z.iso.date().optional(), end_date: z.iso.date().optional() })
  .loose();
export type OrderExportQuery = z.infer<typeof orderExportQuery>;

/** Refuses a reversed range (422 at `end_date`), as the metrics do. */
export function checkOrderExportRange({ start_date, end_date }: OrderExportQuery): void {
  if (start_date && end_date && end_date < start_date) {
    throw invalidField(['query', 'end_date'], 'End date must be on or after the start date.');
  }
}

/** The accounting export's columns (Tollgate's own): one row per order, amounts as decimal text. */
export const orderExportHeader = [
  'Invoice Number',
  'Date',
  'Customer Email',
  'Billing Name',
  'Country',
  'Tax ID',
  'Currency',
  'Subtotal',
  'Discount',
  'Net',
  'Tax',
  'Total',
  'Refunded',
  'Refunded Tax',
  'Status',
  'Tax Lines',
] as const;

/** `VAT DE (DE) 19%: 3.61`, each tax line of the order, joined by `; `. */
function taxLinesText(lines: readonly TaxLine[]): string {
  return lines
    .map((line) => {
      const kind = [line.inclusive && ' inclusive', line.reverseCharge && ' reverse charge']
        .filter(Boolean)
        .join('');
      const rate = ratePercent(line.rateBps);
      return `${line.displayName} (${line.jurisdiction}) ${rate}${kind}: ${decimalAmount(line.taxAmount)}`;
    })
    .join('; ');
}

/** One order as a row of the export. The tax id is the customer's (orders do not keep their own). */
function orderExportRow(order: Order): string[] {
  return [
    order.invoiceNumber,
    isoDateTime(order.createdAt),
    order.customer.email,
    order.billingName ?? '',
    order.billingAddress?.country ?? '',
    order.customer.taxId?.[0] ?? '',
    order.currency,
    decimalAmount(order.subtotalAmount),
    decimalAmount(order.discountAmount),
    decimalAmount(order.netAmount),
    decimalAmount(order.taxAmount),
    decimalAmount(order.totalAmount),
    decimalAmount(order.refundedAmount),
    decimalAmount(order.refundedTaxAmount),
    order.status,
    taxLinesText(order.taxLines),
  ];
}

/** The start of the UTC day after `date` (`2025-03-31` → 2025-04-01T00:00Z). */
const dayAfter = (date: string) => new Date(Date.parse(date) + 86_400_000);

/** Every order of the organization made in the range, as export rows, oldest first, read in chunks. */
export async function* orderExportRows(
  em: EntityManager,
  organizationId: string,
  { start_date, end_date }: OrderExportQuery,
) {
  const where: FilterQuery<Order> = { organization: organizationId };
  if (start_date || end_date) {
    where.createdAt = {
      ...(start_date && { $gte: new Date(start_date) }),
      ...(end_date && { $lt: dayAfter(end_date) }),
    };
  }
  const orders = em.stream(Order, {
    where,
    populate: ['customer'],
    orderBy: [{ createdAt: 'asc' }, { id: 'asc' }],
    chunkSize: 500,
    disableIdentityMap: true,
  });
  for await (const order of orders) yield orderExportRow(order);
}
