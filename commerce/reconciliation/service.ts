import type { EntityManager } from '@mikro-orm/postgresql';
import type Stripe from 'stripe';
import { executeBound } from '../../db/sql.ts';
import type { StripeClient } from '../../integrations/stripe/client.ts';

/**
 * Stripe's payments against the orders: every PaymentIntent that succeeded at Stripe should be
 * the payment of a paid order, for the amount recorded; every paid order that was charged should
 * have a PaymentIntent that succeeded. What disagrees is kept in `payment_mismatches`, one row
 * per PaymentIntent or order and kind, for an operator to look into.
 */

export const mismatchKinds = [
  'paid_without_order',
  'order_without_payment',
  'amount_differs',
] as const;
export type MismatchKind = (typeof mismatchKinds)[number];

export interface PaymentMismatch {
  id: string;
  kind: MismatchKind;
  paymentIntentId: string | null;
  orderId: string | null;
  organizationId: string | null;
  stripeAmount: number | null;
  recordedAmount: number | null;
  currency: string | null;
  /** When the PaymentIntent or the order was created. */
  occurredAt: Date;
  detectedAt: Date;
  lastSeenAt: Date;
}

type Found = Omit<PaymentMismatch, 'detectedAt' | 'lastSeenAt'>;

export interface ReconciliationWindow {
  /** PaymentIntents and orders created at or after it… */
  since: Date;
  /** …and before it. */
  until: Date;
}

export interface ReconciliationResult {
  paymentIntentsChecked: number;
  ordersChecked: number;
  mismatches: number;
}

/** Order statuses that mean the money came in (refunds come later and do not undo that). */
const paidStatuses = ['paid', 'refunded', 'partially_refunded'];

/** The PaymentIntents created within the window that succeeded, by id. */
async function succeededPaymentIntents(stripe: StripeClient, window: ReconciliationWindow) {
  const succeeded = new Map<string, Stripe.PaymentIntent>();
  // Stripe counts in whole seconds: those whose start lies within the window.
  const listed = stripe.paymentIntents.list({
    created: {
      gte: Math.ceil(window.since.getTime() / 1000),
      lte: Math.floor((window.until.getTime() - 1) / 1000),
    },
    limit: 100,
  });
  for await (const intent of listed) {
    if (intent.status === 'succeeded') succeeded.set(intent.id, intent);
  }
  return succeeded;
}

interface RecordedPayment {
  processor_id: string;
  amount: number;
  currency: string;
  organization_id: string;
  order_id: string | null;
  order_status: string | null;
}

/** Whether the PaymentIntent `id` succeeded at Stripe; false when Stripe does not know it. */
async function hasSucceeded(stripe: StripeClient, id: string): Promise<boolean> {
  try {
    return (await stripe.paymentIntents.retrieve(id)).status === 'succeeded';
  } catch (error) {
    if ((error as { statusCode?: number }).statusCode === 404) return false;
    throw error;
  }
}

/**
 * Compares the window's succeeded PaymentIntents with the payments and orders, and records what
 * disagrees. Idempotent: a mismatch found again keeps its row (its `last_seen_at` moves); one
 * recorded for this window that is no longer found (a payment recorded since) is removed.
 */
export async function reconcilePayments(
  em: EntityManager,
  stripe: StripeClient,
  window: ReconciliationWindow,
): Promise<ReconciliationResult> {
  const found: Found[] = [];
  const intents = await succeededPaymentIntents(stripe, window);

  const recorded = await executeBound<RecordedPayment>(
    em,
    `select p.processor_id, p.amount, p.currency, p.organization_id, o.id as order_id,
       o.status as order_status
     from payments p left join orders o on o.id = p.order_id
     where p.processor_id = any($1::text[])`,
    [[...intents.keys()]],
  );
  const paymentOf = new Map(recorded.map((payment) => [payment.processor_id, payment]));
  for (const intent of intents.values()) {
    const payment = paymentOf.get(intent.id);
    const base = {
      paymentIntentId: intent.id,
      stripeAmount: intent.amount_received,
      currency: intent.currency,
      occurredAt: new Date(intent.created * 1000),
    };
    if (!payment?.order_id || !paidStatuses.includes(payment.order_status ?? '')) {
      found.push({
        ...base,
        id: `paid_without_order:${intent.id}`,
        kind: 'paid_without_order',
        orderId: payment?.order_id ?? null,
        organizationId: payment?.organization_id ?? null,
        recordedAmount: payment?.amount ?? null,
      });
    } else if (
      payment.amount !== intent.amount_received ||
      payment.currency.toLowerCase() !== intent.currency.toLowerCase()
    ) {
      found.push({
        ...base,
        id: `amount_differs:${intent.id}`,
        kind: 'amount_differs',
        orderId: payment.order_id,
        organizationId: payment.organization_id,
        recordedAmount: payment.amount,
      });
    }
  }

  // Paid orders of the window that were charged: their succeeded payment's PaymentIntent.
  const orders = await executeBound<{
    id: string;
    organization_id: string;
    charged: number;
    currency: string;
    created_at: Date;
    processor_id: string | null;
  }>(
    em,
    `select o.id, o.organization_id, o.total_amount - o.from_balance_amount as charged,
       o.currency, o.created_at,
       (select p.processor_id from payments p where p.order_id = o.id and p.status = 'succeeded'
          and p.processor_id is not null order by p.created_at desc limit 1) as processor_id
     from orders o
     where o.status = any($1::text[]) and o.created_at >= $2 and o.created_at < $3
       and o.total_amount - o.from_balance_amount > 0`,
    [paidStatuses, window.since, window.until],
  );
  for (const order of orders) {
    const { processor_id: intentId } = order;
    if (intentId && (intents.has(intentId) || (await hasSucceeded(stripe, intentId)))) continue;
    found.push({
      id: `order_without_payment:${order.id}`,
      kind: 'order_without_payment',
      paymentIntentId: intentId,
      orderId: order.id,
      organizationId: order.organization_id,
      stripeAmount: null,
      recordedAmount: order.charged,
      currency: order.currency,
      occurredAt: new Date(order.created_at),
    });
  }

  await em.transactional(async (tx) => {
    for (const mismatch of found) {
      await executeBound(
        tx,
        `insert into payment_mismatches (id, kind, payment_intent_id, order_id, organization_id,
           stripe_amount, recorded_amount, currency, occurred_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         on conflict (id) do update set order_id = excluded.order_id,
           organization_id = excluded.organization_id, stripe_amount = excluded.stripe_amount,
           recorded_amount = excluded.recorded_amount, currency = excluded.currency,
           last_seen_at = now()`,
        [
          mismatch.id,
          mismatch.kind,
          mismatch.paymentIntentId,
          mismatch.orderId,
          mismatch.organizationId,
          mismatch.stripeAmount,
          mismatch.recordedAmount,
          mismatch.currency,
          mismatch.occurredAt,
        ],
      );
    }
    await executeBound(
      tx,
      `delete from payment_mismatches
       where occurred_at >= $1 and occurred_at < $2 and not (id = any($3::text[]))`,
      [window.since, window.until, found.map((mismatch) => mismatch.id)],
    );
  });
  return {
    paymentIntentsChecked: intents.size,
    ordersChecked: orders.length,
    mismatches: found.length,
  };
}

interface MismatchRow {
  id: string;
  kind: MismatchKind;
  payment_intent_id: string | null;
  order_id: string | null;
  organization_id: string | null;
  stripe_amount: number | null;
  recorded_amount: number | null;
  currency: string | null;
  occurred_at: Date;
  detected_at: Date;
  last_seen_at: Date;
}

/** The recorded mismatches, newest first, at most `limit`. */
export async function listPaymentMismatches(
  em: EntityManager,
  limit: number,
): Promise<PaymentMismatch[]> {
  const rows = await executeBound<MismatchRow>(
    em,
    `select * from payment_mismatches order by occurred_at desc, id limit $1`,
    [limit],
  );
  return rows.map((row) => ({
    id: row.id,
    kind: row.kind,
    paymentIntentId: row.payment_intent_id,
    orderId: row.order_id,
    organizationId: row.organization_id,
    stripeAmount: row.stripe_amount,
    recordedAmount: row.recorded_amount,
    currency: row.currency,
    occurredAt: new Date(row.occurred_at),
    detectedAt: new Date(row.detected_at),
    lastSeenAt: new Date(row.last_seen_at),
  }));
}
