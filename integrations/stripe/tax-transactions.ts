import { Checkout, Order, Refund } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import type { StripeClient } from './client.ts';
import { recordStripeTaxTransaction, reverseStripeTaxTransaction } from './tax.ts';

/**
 * The paid order's Stripe Tax transaction, recorded from its checkout's calculation and kept on
 * the order; nothing for an order whose checkout was not priced by Stripe Tax (or a trial's,
 * which paid nothing). Safe to run again: Stripe answers a retry with the first transaction.
 */
export async function recordOrderTaxTransaction(
  { orm, stripe }: { orm: Orm; stripe: StripeClient },
  orderId: string,
): Promise<void> {
  const em = orm.em.fork();
  const order = await em.findOneOrFail(Order, orderId);
  if (order.stripeTaxTransactionId || !order.checkoutId || order.totalAmount <= 0) return;
  const checkout = await em.findOneOrFail(Checkout, order.checkoutId);
  if (!checkout.stripeTaxCalculationId) return;
  const transactionId = await recordStripeTaxTransaction(stripe, {
    calculationId: checkout.stripeTaxCalculationId,
    orderId,
  });
  await em.nativeUpdate(Order, { id: orderId }, { stripeTaxTransactionId: transactionId });
}

/**
 * A succeeded refund's share of its order's Stripe Tax transaction, reversed: what the card got
 * back, tax included. Nothing for an order without one. Safe to run again (the refund's id is
 * the reversal's idempotency key).
 */
export async function reverseRefundTax(
  { orm, stripe }: { orm: Orm; stripe: StripeClient },
  refundId: string,
): Promise<void> {
  const em = orm.em.fork();
  const refund = await em.findOneOrFail(Refund, refundId, { populate: ['order'] });
  const transactionId = refund.order.stripeTaxTransactionId;
  if (refund.status !== 'succeeded' || !transactionId) return;
  await reverseStripeTaxTransaction(stripe, {
    transactionId,
    refundId,
    amount: refund.amount + refund.taxAmount,
  });
}
