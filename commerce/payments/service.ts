import type { EntityManager } from '@mikro-orm/postgresql';
import type Stripe from 'stripe';
import { Payment } from '../../db/entities/index.ts';
import type { PaymentStatus } from '../../db/entities/order.ts';
import { findPage, inList, type ListQuery } from '../../db/listing.ts';
import { executeBound, sql, sqlCondition } from '../../db/sql.ts';
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

/**
 * The Payment an outcome is recorded on, and what its row holds when that outcome is the first
 * word of it (the organization unknown for a PaymentIntent made elsewhere).
 */
export type PaymentOfIntent = Omit<PaymentAttempt, 'workflowId' | 'organizationId'> & {
  organizationId: string | null;
};

/**
 * The Payment `paymentId` a PaymentIntent was made for, as its metadata (see chargeAttempt) and
 * amount tell it.
 */
export function paymentOfIntent(
  paymentId: string,
  paymentIntent: Stripe.PaymentIntent,
): PaymentOfIntent {
  const metadata = paymentIntent.metadata ?? {};
  return {
    paymentId,
    organizationId: metadata.organization_id ?? null,
    checkoutId: metadata.checkout_id ?? null,
    amount: paymentIntent.amount,
    currency: paymentIntent.currency,
  };
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

/**
 * A Payment row as recordPaymentOutcome finds it (`…_before`, null when it wrote the row) and
 * leaves it.
 */
interface RecordedPaymentRow {
  status_before: PaymentStatus | null;
  processor_id_before: string | null;
  processor_id: string;
  decline_reason: string | null;
  decline_message: string | null;
  method_metadata: Record<string, unknown>;
}

/** The final outcome a settled payment's row holds (whatever a later answer of Stripe says). */
function settledOutcomeOf(
  row: RecordedPaymentRow,
  paymentId: string,
  paymentIntent: Stripe.PaymentIntent,
): PaymentOutcome {
  const card = cardOf(paymentIntent);
  const succeeded = row.status_before === 'succeeded';
  return {
    paymentId,
    paymentIntentId: row.processor_id,
    status: succeeded ? 'succeeded' : 'failed',
    declineCode: succeeded ? null : (row.decline_reason ?? 'payment_failed'),
    message: succeeded ? null : (row.decline_message ?? null),
    cardBrand: card?.brand ?? null,
    cardLast4: card?.last4 ?? null,
  };
}

/** What recordPaymentOutcome answers: the outcome, and what the Payment held before. */
export interface RecordedPaymentOutcome {
  outcome: PaymentOutcome | null;
  /** Settled already (by the charge's answer or an event), whatever Stripe says now. */
  settledBefore: boolean;
  /** A PaymentIntent's state was recorded before (the charge's own answer, or an earlier event). */
  answeredBefore: boolean;
}

/**
 * Records what Stripe said about an attempt on its Payment, in one statement. The first word of
 * it (the charge's own answer, or an event that came first) writes the row with its values; a
 * later one updates it when it changes anything, locking the row (so the answer of the API call and the webhook's event,
 * arriving together, apply one after the other) and reading it as it was: the PaymentIntent id,
 * the card, and a final status once — a settled payment is never reopened (`settledBefore`: it
 * was settled already, by whichever of the two came first, and the outcome answered is the one
 * settled). Null when no such payment exists and none can be written (a PaymentIntent made
 * elsewhere names no organization). Runs in `em`'s transaction when it has one.
 */
export async function recordPaymentOutcome(
  em: EntityManager,
  payment: PaymentOfIntent,
  paymentIntent: Stripe.PaymentIntent,
): Promise<RecordedPaymentOutcome | null> {
  const decided = paymentOutcomeOf(paymentIntent, payment.paymentId);
  const settling = decided?.status === 'succeeded' || decided?.status === 'failed' ? decided : null;
  const card = cardOf(paymentIntent);
  const record = () =>
    executeBound<RecordedPaymentRow>(
      em,
      // `before` is the row as it was, locked. A later word changing nothing writes nothing (an
      // event after the charge's own answer); no row: written, unless another statement writes
      // it at once (this one then answers nothing, and runs again to update it).
      `with before as (
         select id, status, processor_id, decline_reason, decline_message, method_metadata
         from payments where id = $1 for update),
       updated as (
         update payments p set
           processor_id = coalesce(p.processor_id, $2),
           method_metadata = p.method_metadata || $3::jsonb,
           status = case when p.status = 'pending' and $4::text is not null then $4 else p.status end,
           decline_reason = case when p.status = 'pending' and $4::text = 'failed' then $5
             else p.decline_reason end,
           decline_message = case when p.status = 'pending' and $4::text = 'failed' then $6
             else p.decline_message end,
           modified_at = $7
         from before where p.id = before.id
           and (p.processor_id is null or ($4::text is not null and p.status = 'pending')
             or p.method_metadata || $3::jsonb is distinct from p.method_metadata)
         returning before.status as status_before, before.processor_id as processor_id_before,
           p.processor_id, p.decline_reason, p.decline_message, p.method_metadata),
       unchanged as (
         select status, processor_id, processor_id, decline_reason, decline_message, method_metadata
         from before where not exists (select 1 from updated)),
       inserted as (
         insert into payments (id, organization_id, checkout_id, status, amount, currency, method,
           method_metadata, decline_reason, decline_message, processor_id, created_at)
         select $1, $8, $9, coalesce($4::text, 'pending'), $10, $11, 'card', $3::jsonb,
           case when $4::text = 'failed' then $5 end, case when $4::text = 'failed' then $6 end,
           $2, $7
         where $8::uuid is not null and not exists (select 1 from before)
         -- Every unique index an arbiter: a concurrent insert of the same payment (the charge's
         -- answer and Stripe's webhook) may meet on processor_id before id.
         on conflict do nothing
         returning null::text as status_before, null::text as processor_id_before,
           processor_id, decline_reason, decline_message, method_metadata)
       select * from updated union all select * from unchanged
       union all select * from inserted`,
      [
        payment.paymentId,
        paymentIntent.id,
        JSON.stringify(card ?? {}),
        settling?.status ?? null,
        settling?.declineCode?.slice(0, 255) ?? null,
        settling?.message?.slice(0, 255) ?? null,
        new Date(),
        payment.organizationId,
        payment.checkoutId,
        payment.amount,
        payment.currency,
      ],
    );
  const [row] = await record();
  // Nothing written though the payment could be: written meanwhile, so updated now.
  const recorded = row ?? (payment.organizationId ? (await record())[0] : undefined);
  if (!recorded) return null;
  const settledBefore = recorded.status_before !== null && recorded.status_before !== 'pending';
  const outcome = settledBefore
    ? settledOutcomeOf(recorded, payment.paymentId, paymentIntent)
    : decided;
  // Events carry the payment method's id only: the card is the one recorded before.
  const { brand, last4 } = recorded.method_metadata;
  return {
    settledBefore,
    answeredBefore: Boolean(recorded.processor_id_before),
    outcome: outcome && {
      ...outcome,
      cardBrand: outcome.cardBrand ?? (typeof brand === 'string' ? brand : null),
      cardLast4: outcome.cardLast4 ?? (typeof last4 === 'string' ? last4 : null),
    },
  };
}
