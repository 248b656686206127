import type { FilterQuery } from '@mikro-orm/core';
import { Checkout, Order, Refund } from '../../db/entities/index.ts';
import type { Orm } from '../../db/orm.ts';
import type { StripeClient } from './client.ts';
import { recordStripeTaxTransaction, reverseStripeTaxTransaction } from './tax.ts';

/**
 * The paid order's Stripe Tax transaction, recorded from its calculation (its own: a renewal's
 * or a plan change's; else its checkout's) and kept on the order; nothing for an order not
 * priced by Stripe Tax, not paid, or that paid nothing (a trial's). Safe to run again: Stripe
 * answers a retry with the first transaction.
 */
export async function recordOrderTaxTransaction(
  { orm, stripe }: { orm: Orm; stripe: StripeClient },
  orderId: string,
): Promise<void> {
  const em = orm.em.fork();
  const order = await em.findOneOrFail(Order, orderId);
  if (order.stripeTaxTransactionId || order.status === 'pending' || order.totalAmount <= 0) return;
  const checkout = order.checkoutId ? await em.findOne(Checkout, order.checkoutId) : null;
  const calculationId = order.stripeTaxCalculationId ?? checkout?.stripeTaxCalculationId;
  if (!calculationId) return;
  const transactionId = await recordStripeTaxTransaction(stripe, { calculationId, orderId });
  await em.nativeUpdate(Order, { id: orderId }, { stripeTaxTransactionId: transactionId });
}

/**
 * The Stripe Tax transactions still owed: those of the paid orders matching `where` that have a
 * calculation of their own and none recorded yet (a plan change retried after its commit, a
 * renewal whose recording failed after it was paid). Each recorded as recordOrderTaxTransaction
 * does; answers how many.
 */
export async function recordMissingTaxTransactions(
  deps: { orm: Orm; stripe: StripeClient },
  where: FilterQuery<Order>,
): Promise<number> {
  const owed = await deps.orm.em.fork().find(
    Order,
    {
      $and: [
        where,
        {
          status: { $ne: 'pending' },
          stripeTaxCalculationId: { $ne: null },
          stripeTaxTransactionId: null,
        },
      ],
    },
    { fields: ['id'], orderBy: { createdAt: 'asc' } },
  );
  for (const order of owed) await recordOrderTaxTransaction(deps, order.id);
  return owed.length;
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
