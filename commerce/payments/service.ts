import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type Stripe from 'stripe';
import { Payment } from '../../db/entities/index.ts';
import type { PaymentStatus } from '../../db/entities/order.ts';
import { findPage, inList, type ListQuery } from '../../db/listing.ts';
import { sql, sqlCondition } from '../../db/sql.ts';
import type { PaymentOutcome } from '../../domain/payments.ts';
import { resourceNotFound } from '../errors.ts';
import type { paymentSortFields } from './schemas.ts';

export interface PaymentListFilter {
  checkoutIds: string[];
  orderIds: string[];
  statuses: PaymentStatus[];
  methods: string[];
  customerEmails: string[];
}

const sortColumns = {
  created_at: 'createdAt',
  status: 'status',
  amount: 'amount',
  method: 'method',
} as const;

/**
 * Payments whose customer (the order's, else the checkout's) has one of `emails`, compared
 * case-insensitively.
 */
function paidByAnyOf(emails: string[]) {
  const lowerEmails = emails.map((email) => email.toLowerCase());
  return sqlCondition(
    (payment) =>
      sql`exists (select 1 from customers cu where lower(cu.email) in (${lowerEmails})
        and cu.id = coalesce((select o.customer_id from orders o where o.id = ${payment}.order_id),
          (select c.customer_id from checkouts c where c.id = ${payment}.checkout_id)))`,
  );
}

/** A page of the organization's payments, every filter given narrowing it. */
export function listPayments(
  em: EntityManager,
  organizationId: string,
  query: ListQuery<PaymentListFilter, (typeof paymentSortFields)[number]>,
): Promise<[Payment[], number]> {
  return findPage(em, Payment, {
    where: [
      { organization: organizationId },
      inList('checkoutId', query.checkoutIds),
      inList('order', query.orderIds),
      inList('status', query.statuses),
      inList('method', query.methods),
      query.customerEmails.length > 0 && paidByAnyOf(query.customerEmails),
    ],
    sorting: query.sorting,
    sortKeys: sortColumns,
    page: query.page,
  });
}

/** One payment of the organization; another organization's is not found. */
export async function getPayment(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<Payment> {
  const payment = await em.findOne(Payment, { id, organization: organizationId });
  if (!payment) throw resourceNotFound('Payment not found');
  return payment;
}

/** A payment about to be attempted: who takes the money, how much, and who waits for it. */
export interface PaymentAttempt {
  paymentId: string;
  organizationId: string;
  checkoutId: string | null;
  /** The workflow signalled with the outcome, e.g. `checkout:<id>` or `subscription:<id>`. */
  workflowId: string;
  amount: number;
  currency: string;
}

/** The pending Payment row of an attempt; a retried attempt finds the one it wrote. */
export async function recordPaymentAttempt(
  em: EntityManager,
  attempt: PaymentAttempt,
): Promise<void> {
  await em
    .createQueryBuilder(Payment)
    .insert({
      id: attempt.paymentId,
      organization: attempt.organizationId,
      checkoutId: attempt.checkoutId,
      status: 'pending',
      amount: attempt.amount,
      currency: attempt.currency,
      method: 'card',
      methodMetadata: {},
      createdAt: new Date(),
    })
    .onConflict('id')
    .ignore()
    .execute();
}

type Card = Pick<Stripe.PaymentMethod.Card, 'brand' | 'last4' | 'exp_month' | 'exp_year'>;

/** The card of a PaymentIntent when Stripe sent it expanded (or in the payment error). */
function cardOf(paymentIntent: Stripe.PaymentIntent): Card | null {
  const method =
    typeof paymentIntent.payment_method === 'object' && paymentIntent.payment_method
      ? paymentIntent.payment_method
      : paymentIntent.last_payment_error?.payment_method;
  const card = method?.card;
  if (!card) return null;
  return {
    brand: card.brand,
    last4: card.last4,
    exp_month: card.exp_month,
    exp_year: card.exp_year,
  };
}

/**
 * What a PaymentIntent's state means for its attempt; null while Stripe has not decided
 * (`processing`, or not yet confirmed).
 */
export function paymentOutcomeOf(
  paymentIntent: Stripe.PaymentIntent,
  paymentId: string,
): PaymentOutcome | null {
  const card = cardOf(paymentIntent);
  const error = paymentIntent.last_payment_error;
  const base = {
    paymentId,
    paymentIntentId: paymentIntent.id,
    declineCode: null,
    message: null,
    cardBrand: card?.brand ?? null,
    cardLast4: card?.last4 ?? null,
  };
  switch (paymentIntent.status) {
    case 'succeeded':
      return { ...base, status: 'succeeded' };
    case 'requires_action':
      return { ...base, status: 'requires_action' };
    case 'requires_payment_method':
      if (!error) return null;
      return {
        ...base,
        status: 'failed',
        declineCode: error.decline_code ?? error.code ?? 'payment_failed',
        message: error.message ?? null,
      };
    case 'canceled':
      return {
        ...base,
        status: 'failed',
        declineCode: 'canceled',
        message: 'The payment was canceled.',
      };
    default:
      return null;
  }
}

/** The final outcome a settled payment's row holds (whatever a later answer of Stripe says). */
function settledOutcomeOf(payment: Payment, paymentIntent: Stripe.PaymentIntent): PaymentOutcome {
  const card = cardOf(paymentIntent);
  const succeeded = payment.status === 'succeeded';
  return {
    paymentId: payment.id,
    paymentIntentId: payment.processorId ?? paymentIntent.id,
    status: succeeded ? 'succeeded' : 'failed',
    declineCode: succeeded ? null : (payment.declineReason ?? 'payment_failed'),
    message: succeeded ? null : (payment.declineMessage ?? null),
    cardBrand: card?.brand ?? null,
    cardLast4: card?.last4 ?? null,
  };
}

/**
 * Writes what Stripe said about an attempt onto its Payment (locked, so the answer of the
 * API call and the webhook's event, arriving together, apply one after the other): the
 * PaymentIntent id, the card, and a final status once — a settled payment is never reopened
 * (`settledBefore`: it was settled already, by whichever of the two came first, and the
 * outcome answered is the one settled). `answeredBefore`: a PaymentIntent's state was recorded
 * before (the charge's own answer, or an earlier event). Null when no such payment exists (a
 * PaymentIntent made elsewhere).
 */
export async function recordPaymentOutcome(
  em: EntityManager,
  paymentId: string,
  paymentIntent: Stripe.PaymentIntent,
): Promise<{
  payment: Payment;
  outcome: PaymentOutcome | null;
  settledBefore: boolean;
  answeredBefore: boolean;
} | null> {
  return em.transactional(async (tx) => {
    const payment = await tx.findOne(
      Payment,
      { id: paymentId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!payment) return null;
    const settledBefore = payment.status !== 'pending';
    const answeredBefore = Boolean(payment.processorId);
    const outcome = settledBefore
      ? settledOutcomeOf(payment, paymentIntent)
      : paymentOutcomeOf(paymentIntent, paymentId);
    payment.processorId ??= paymentIntent.id;
    const card = cardOf(paymentIntent);
    if (card) payment.methodMetadata = { ...payment.methodMetadata, ...card };
    if (payment.status === 'pending' && outcome?.status === 'succeeded') {
      payment.status = 'succeeded';
    } else if (payment.status === 'pending' && outcome?.status === 'failed') {
      payment.status = 'failed';
      payment.declineReason = outcome.declineCode?.slice(0, 255) ?? null;
      payment.declineMessage = outcome.message?.slice(0, 255) ?? null;
    }
    await tx.flush();
    // Events carry the payment method's id only: the card is the one recorded before.
    const { brand, last4 } = payment.methodMetadata;
    return {
      payment,
      settledBefore,
      answeredBefore,
      outcome: outcome && {
        ...outcome,
        cardBrand: outcome.cardBrand ?? (typeof brand === 'string' ? brand : null),
        cardLast4: outcome.cardLast4 ?? (typeof last4 === 'string' ? last4 : null),
      },
    };
  });
}
