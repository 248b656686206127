import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type Stripe from 'stripe';
import { invalidField } from '../../core/errors.ts';
import { businessMetrics } from '../../core/metrics.ts';
import { Order, Payment, Refund } from '../../db/entities/index.ts';
import type { RefundStatus } from '../../db/entities/refund.ts';
import { findPage, inList, type ListQuery } from '../../db/listing.ts';
import type { RefundOutcome, StripeRefundStatus } from '../../domain/refunds.ts';
import { addBalanceEntry } from '../customers/balance.ts';
import { announceCustomerStateChange } from '../customers/state.ts';
import { commerceError, resourceNotFound } from '../errors.ts';
import { nextCreditNoteNumber, serializeOrders } from '../orders/service.ts';
import { appendEvent } from '../outbox.ts';
import { type RefundCreateInput, type refundSortFields, refundWire } from './schemas.ts';

/** What an order has left to refund: its amounts less the refunded and pending ones. */
export interface RefundableRemainder {
  amount: number;
  taxAmount: number;
}

/**
 * The tax refunded with `amount` (pre-tax) of an order: `round(amount × tax / net)` (half up, in
 * exact integer arithmetic) capped at the tax left; refunding exactly the amount left refunds all
 * the tax left, so partial refunds never leave a cent of tax behind.
 */
export function refundTaxOf(
  order: { netAmount: number; taxAmount: number },
  amount: number,
  remainder: RefundableRemainder,
): number {
  if (amount === remainder.amount) return remainder.taxAmount;
  const net = BigInt(order.netAmount);
  if (net === 0n) return 0;
  const rounded = (2n * BigInt(amount) * BigInt(order.taxAmount) + net) / (2n * net);
  return Math.min(Number(rounded), remainder.taxAmount);
}

/** The order's amounts less what succeeded refunds gave back and pending ones will. */
async function remainderOf(tx: EntityManager, order: Order): Promise<RefundableRemainder> {
  const [pending] = await tx.execute<{ amount: string; tax_amount: string }[]>(
    `select coalesce(sum(amount), 0) as amount, coalesce(sum(tax_amount), 0) as tax_amount
     from refunds where order_id = ? and status = 'pending'`,
    [order.id],
  );
  return {
    amount: order.netAmount - order.refundedAmount - Number(pending?.amount ?? 0),
    taxAmount: order.taxAmount - order.refundedTaxAmount - Number(pending?.tax_amount ?? 0),
  };
}

/**
 * What of a refund of `total` (amount and tax) goes back to the customer's balance: an order
 * paid partly from the balance gives back to the card first, up to what the card paid less what
 * earlier refunds (pending or succeeded) gave back to it; the rest is credited to the balance.
 */
async function toBalanceOf(
  tx: EntityManager,
  order: Order,
  payment: Payment | null,
  total: number,
): Promise<number> {
  if (order.fromBalanceAmount <= 0) return 0;
  const [row] = await tx.execute<{ to_card: string }[]>(
    `select coalesce(sum(amount + tax_amount - to_balance_amount), 0) as to_card
     from refunds where order_id = ? and status in ('pending', 'succeeded')`,
    [order.id],
  );
  const cardLeft = Math.max((payment?.amount ?? 0) - Number(row?.to_card ?? 0), 0);
  return total - Math.min(total, cardLeft);
}

/** The order's succeeded card payment, whose PaymentIntent a refund gives money back through. */
function paidPaymentOf(em: EntityManager, orderId: string): Promise<Payment | null> {
  return em.findOne(
    Payment,
    { order: orderId, status: 'succeeded', processorId: { $ne: null } },
    { orderBy: { createdAt: 'desc' } },
  );
}

/**
 * A refund of an order, pending until its workflow settles it: the refund and the start of its
 * workflow share one transaction (the workflow starts just before the commit and waits for the
 * row), so a refund never exists without the workflow that carries it out. See insertRefund.
 */
export function createRefund(
  em: EntityManager,
  organizationId: string,
  input: RefundCreateInput,
  startWorkflow: (refundId: string) => Promise<unknown>,
): Promise<Refund> {
  return em.transactional(async (tx) => {
    const refund = await insertRefund(tx, organizationId, input);
    await startWorkflow(refund.id);
    return refund;
  });
}

/**
 * The pending refund, in the caller's transaction with the order locked, so concurrent refunds
 * see each other: the order is checked (found, paid through Stripe or from the balance, not
 * refunded already, a one-time purchase when benefits are to be revoked), the amount against
 * what is left (pending refunds included), the tax taken pro rata, the part going back to the
 * balance set (toBalanceOf); the refund is written with `refund.created`.
 */
async function insertRefund(
  tx: EntityManager,
  organizationId: string,
  input: RefundCreateInput,
): Promise<Refund> {
  const order = await tx.findOne(
    Order,
    { id: input.order_id, organization: organizationId },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
  if (!order) throw invalidField(['body', 'order_id'], 'Order not found');
  if (order.status === 'refunded') throw commerceError('RefundedAlready');
  if (order.status === 'pending') throw commerceError('NotPaidOrder');
  if (input.revoke_benefits && order.billingReason !== 'purchase') {
    throw commerceError(
      'BadRequest',
      'Benefits can be revoked by a refund of a one-time purchase only: ' +
        'a subscription revokes its benefits when it is revoked.',
    );
  }
  const remainder = await remainderOf(tx, order);
  if (input.amount > remainder.amount) {
    throw commerceError(
      'RefundAmountTooHigh',
      `Refund amount exceeds remaining order balance: ${Math.max(remainder.amount, 0)}`,
    );
  }
  const payment = await paidPaymentOf(tx, order.id);
  if (!payment && order.fromBalanceAmount <= 0) {
    throw commerceError('BadRequest', 'The order was not paid through Stripe: nothing to refund.');
  }
  const taxAmount = refundTaxOf(order, input.amount, remainder);
  const refund = tx.create(Refund, {
    organization: organizationId,
    order,
    subscription: order.subscription ?? null,
    customer: order.customer,
    status: 'pending',
    reason: input.reason,
    amount: input.amount,
    taxAmount,
    toBalanceAmount: await toBalanceOf(tx, order, payment, input.amount + taxAmount),
    currency: order.currency,
    comment: input.comment ?? null,
    revokeBenefits: input.revoke_benefits,
    metadata: input.metadata,
  });
  await tx.flush();
  appendEvent(tx, organizationId, 'refund.created', refundWire(refund));
  return refund;
}

/** What the refund workflow needs to ask Stripe for the money. */
export interface RefundCharge {
  organizationId: string;
  /** Amount and tax together, less what goes back to the balance: what goes back to the card. */
  amount: number;
  /** Null when nothing goes back to the card (an order the balance paid whole). */
  paymentIntentId: string | null;
}

/** The refund as the workflow's Stripe call needs it: the money and the PaymentIntent it came by. */
export async function refundChargeOf(em: EntityManager, refundId: string): Promise<RefundCharge> {
  const refund = await em.findOneOrFail(Refund, refundId);
  const amount = refund.amount + refund.taxAmount - refund.toBalanceAmount;
  if (amount === 0) {
    return { organizationId: refund.organization.id, amount, paymentIntentId: null };
  }
  const payment = await paidPaymentOf(em, refund.order.id);
  if (!payment?.processorId) throw new Error(`order ${refund.order.id} has no Stripe payment`);
  return { organizationId: refund.organization.id, amount, paymentIntentId: payment.processorId };
}

/** Stripe's refund in the workflow's terms: its id and, once final, how it ended. */
export function refundOutcomeOf(refund: Stripe.Refund): RefundOutcome {
  return {
    processorId: refund.id,
    status: (refund.status ?? 'pending') as StripeRefundStatus,
    failureReason: refund.failure_reason ?? null,
  };
}

/** Keeps Stripe's id of the refund (`re_…`); the same id again changes nothing. */
export async function recordRefundProcessorId(
  em: EntityManager,
  refundId: string,
  processorId: string,
): Promise<void> {
  await em.nativeUpdate(Refund, { id: refundId, processorId: null }, { processorId });
}

/** How a refund ended, and what its workflow does next. */
export interface SettledRefund {
  status: RefundStatus;
  revokeBenefits: boolean;
  orderId: string;
  customerId: string;
  productId: string;
}

/** The part of a succeeded refund that goes back to the customer's balance, credited once. */
async function creditRefundToBalance(tx: EntityManager, order: Order, refund: Refund) {
  if (refund.toBalanceAmount <= 0) return;
  await addBalanceEntry(tx, {
    organizationId: order.organization.id,
    customerId: order.customer.id,
    currency: refund.currency,
    amount: refund.toBalanceAmount,
    kind: 'refund',
    reason: `Refund of order ${order.invoiceNumber} (credit note ${refund.creditNoteNumber})`,
    // By its own key, not the order: an order may be refunded in several parts.
    idempotencyKey: `refund:${refund.id}`,
    subscriptionId: order.subscription?.id ?? null,
  });
}

/**
 * Stripe's final word on a refund, applied once in one transaction with the order locked. A
 * succeeded refund adds its amounts to the order's refunded ones (its part for the balance
 * credited to it), which makes the order `partially_refunded` or, once its whole net amount is back, `refunded` (events refund.updated,
 * order.refunded, order.updated and customer.state_changed); a failed or canceled one only frees
 * its amount (refund.updated). A refund settled already is answered as it is.
 */
export async function settleRefund(
  em: EntityManager,
  refundId: string,
  outcome: { status: 'succeeded' | 'failed' | 'canceled'; failureReason: string | null },
): Promise<SettledRefund> {
  let settledNow = false;
  const result = await em.transactional(async (tx) => {
    const [row] = await tx.execute<{ order_id: string }[]>(
      'select order_id from refunds where id = ?',
      [refundId],
    );
    if (!row) throw new Error(`refund ${refundId} not found`);
    // The order first, as a new refund locks it: both ways the same order of locks.
    const order = await tx.findOneOrFail(Order, row.order_id, {
      lockMode: LockMode.PESSIMISTIC_WRITE,
    });
    const refund = await tx.findOneOrFail(Refund, refundId, {
      lockMode: LockMode.PESSIMISTIC_WRITE,
    });
    const settled = {
      revokeBenefits: refund.revokeBenefits,
      orderId: order.id,
      customerId: order.customer.id,
      productId: order.product.id,
    };
    if (refund.status !== 'pending') return { ...settled, status: refund.status };
    refund.status = outcome.status;
    refund.failureReason = outcome.status === 'succeeded' ? null : outcome.failureReason;
    const organizationId = order.organization.id;
    if (outcome.status === 'succeeded') {
      order.refundedAmount += refund.amount;
      order.refundedTaxAmount += refund.taxAmount;
      order.status = order.refundedAmount >= order.netAmount ? 'refunded' : 'partially_refunded';
      order.modifiedAt = new Date();
      refund.creditNoteNumber = await nextCreditNoteNumber(tx, organizationId);
      await creditRefundToBalance(tx, order, refund);
    }
    await tx.flush();
    appendEvent(tx, organizationId, 'refund.updated', refundWire(refund));
    if (outcome.status === 'succeeded') {
      const [orderWire] = await serializeOrders(tx, [order]);
      appendEvent(tx, organizationId, 'order.refunded', orderWire as object);
      appendEvent(tx, organizationId, 'order.updated', orderWire as object);
      await announceCustomerStateChange(tx, organizationId, order.customer.id);
    }
    settledNow = true;
    return { ...settled, status: refund.status };
  });
  if (settledNow) businessMetrics.refunds.inc({ status: result.status });
  return result;
}

export interface RefundListFilter {
  ids: string[];
  orderIds: string[];
  subscriptionIds: string[];
  customerIds: string[];
  succeeded?: boolean | undefined;
}

const sortColumns = { created_at: 'createdAt', amount: 'amount' } as const;

/** A page of the organization's refunds, every filter given narrowing it. */
export function listRefunds(
  em: EntityManager,
  organizationId: string,
  query: ListQuery<RefundListFilter, (typeof refundSortFields)[number]>,
): Promise<[Refund[], number]> {
  const { succeeded } = query;
  return findPage(em, Refund, {
    where: [
      { organization: organizationId },
      inList('id', query.ids),
      inList('order', query.orderIds),
      inList('subscription', query.subscriptionIds),
      inList('customer', query.customerIds),
      succeeded !== undefined && { status: succeeded ? 'succeeded' : { $ne: 'succeeded' } },
    ],
    sorting: query.sorting,
    sortKeys: sortColumns,
    page: query.page,
  });
}

/** A refund of the organization; other organizations' are not found. */
export async function getRefund(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<Refund> {
  const refund = await em.findOne(Refund, { id, organization: organizationId });
  if (!refund) throw resourceNotFound('Refund not found');
  return refund;
}
