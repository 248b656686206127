import { FlushMode, LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { businessMetrics } from '../../core/metrics.ts';
import { announcedHere, changeTopics } from '../../db/change-notifications.ts';
import {
  Order,
  OrderItem,
  Payment,
  ProductBenefit,
  Subscription,
} from '../../db/entities/index.ts';
import { subscriptionSettingsOf } from '../../db/entities/organization.ts';
import type {
  RenewalRecoverer,
  SubscriptionPaymentError,
  SubscriptionStatus,
} from '../../db/entities/subscription.ts';
import { newId } from '../../db/ids.ts';
import { rowOf } from '../../db/rows.ts';
import { executeBound } from '../../db/sql.ts';
import { nextBillingPeriod } from '../../domain/billing-periods.ts';
import type {
  SubscriptionChangeResult,
  SubscriptionSchedule,
} from '../../domain/subscription-schedule.ts';
import type { TaxMode } from '../../domain/tax.ts';
import type { StripeClient } from '../../integrations/stripe/client.ts';
import { paymentIdOf } from '../../integrations/stripe/payments.ts';
import {
  addBalanceEntry,
  availableBalance,
  balanceToUse,
  recordOrderDebit,
} from '../customers/balance.ts';
import {
  customerStateKey,
  customerStateWithSubscription,
  recordCustomerStateChange,
} from '../customers/state.ts';
import { commerceError } from '../errors.ts';
import { type Sale, saleTax, subscriptionBillingDetails } from '../orders/sale-tax.ts';
import { orderWire } from '../orders/schemas.ts';
import { type InvoiceCounterRow, invoiceNumberOf } from '../orders/service.ts';
import { appendEvent, type CommerceEventType } from '../outbox.ts';
import { renewalBill, taxedBill } from './renewal-bill.ts';
import { scheduleOf, subscriptionNow } from './schedule.ts';
import type { SubscriptionWire } from './schemas.ts';
import { serializeSubscriptions } from './service.ts';

/**
 * The business steps of a subscription's life that its workflow (workflows/subscription.ts)
 * takes: the renewal order, its settlement (paid, declined, resolved by finance) and the end.
 * Each is one transaction with the subscription's row locked, and each can run twice.
 */

/** What the workflow needs after a step: the schedule, and whose benefits to cycle or revoke. */
export interface LifecycleState {
  schedule: SubscriptionSchedule;
  organizationId: string;
  customerId: string;
  productId: string;
  /** The product grants benefits: only then are they cycled on renewal. */
  hasBenefits: boolean;
}

/** The renewal order of a period, as the workflow charges it, and who pays it. */
export interface RenewalOrder {
  orderId: string;
  status: Order['status'];
  totalAmount: number;
  /** What the card is charged: the total less what the customer's balance paid of it. */
  amountToCharge: number;
  currency: string;
  organizationId: string;
  customerId: string;
  stripeCustomerId: string | null;
  /** The saved card renewals charge off-session. */
  stripePaymentMethodId: string | null;
}

/** Hard declines: retrying the same card cannot succeed, so dunning stops at once. */
const hardDeclineCodes = new Set([
  'lost_card',
  'stolen_card',
  'fraudulent',
  'pickup_card',
  'restricted_card',
  'expired_card',
  'invalid_account',
  'revocation_of_authorization',
  'revocation_of_all_authorizations',
  'stop_payment_order',
  'do_not_honor',
]);

/** The renewal order of the period ending `periodEnd` has this id: inserted once, however often asked. */
export const renewalOrderIdOf = (subscriptionId: string, periodEnd: Date) =>
  paymentIdOf(`renewal:${subscriptionId}:${periodEnd.toISOString()}`);

/** The idempotency key of charge `attempt` of a renewal: a retried activity charges once. */
export const renewalChargeKey = (subscriptionId: string, periodEnd: Date, attempt: number) =>
  `renewal:${subscriptionId}:${periodEnd.toISOString()}:attempt:${attempt}`;

const ended = (status: SubscriptionStatus) =>
  status === 'canceled' || status === 'incomplete_expired';

/**
 * The subscription, its row alone locked (`for update of` its alias): the organization,
 * customer, test clock, product and discount read in the same query are not, or every renewal
 * of a seller would queue on its organization's row.
 */
function lockSubscription(tx: EntityManager, subscriptionId: string) {
  return tx.findOneOrFail(
    Subscription,
    { id: subscriptionId },
    {
      lockMode: LockMode.PESSIMISTIC_WRITE,
      lockTableAliases: ['s0'],
      populate: ['organization', 'customer', 'testClock', 'product', 'discount'],
    },
  );
}

/** The subscription (locked) and the renewal order of its period ending `periodEnd`. */
async function lockedRenewal(tx: EntityManager, subscriptionId: string, periodEnd: Date) {
  const subscription = await lockSubscription(tx, subscriptionId);
  // Its product read with it: the order's event shows it.
  const order = await tx.findOneOrFail(
    Order,
    { id: renewalOrderIdOf(subscriptionId, periodEnd) },
    { populate: ['product'] },
  );
  return { subscription, order };
}

/** The period after the one ending `periodEnd`, counted from the subscription's anchor. */
const periodAfter = (subscription: Subscription, periodEnd: Date) =>
  nextBillingPeriod(subscription.billingAnchor, subscription.recurringInterval, periodEnd);

async function lifecycleState(
  em: EntityManager,
  subscription: Subscription,
): Promise<LifecycleState> {
  const benefits = await em.count(ProductBenefit, { product: subscription.product.id });
  return lifecycleStateOf(em, subscription, benefits > 0);
}

/** The state of a subscription read with its test clock, whose product grants benefits or not. */
async function lifecycleStateOf(
  em: EntityManager,
  subscription: Subscription,
  hasBenefits: boolean,
): Promise<LifecycleState> {
  return {
    schedule: await scheduleOf(em, subscription),
    organizationId: subscription.organization.id,
    customerId: subscription.customer.id,
    productId: subscription.product.id,
    hasBenefits,
  };
}

/** The subscription's state, read without a change. */
export async function subscriptionLifecycleState(
  em: EntityManager,
  subscriptionId: string,
): Promise<LifecycleState> {
  const subscription = await em.findOneOrFail(
    Subscription,
    { id: subscriptionId },
    { populate: ['testClock'] },
  );
  return lifecycleState(em, subscription);
}

/** The subscription as /v1 shows it, with its schedule: what a finance action answers. */
export async function subscriptionResult(
  em: EntityManager,
  subscriptionId: string,
  publicUrl: string,
): Promise<SubscriptionChangeResult> {
  const subscription = await em.findOneOrFail(Subscription, { id: subscriptionId });
  return {
    subscription: await subscriptionWireOf(em, subscription, publicUrl),
    schedule: await scheduleOf(em, subscription),
  };
}

async function subscriptionWireOf(
  tx: EntityManager,
  subscription: Subscription,
  publicUrl: string,
) {
  const [wire] = await serializeSubscriptions(tx, [subscription], publicUrl);
  return wire as SubscriptionWire;
}

/**
 * The pending renewal order of the period ending `periodEnd` (billing_reason
 * subscription_cycle): the next period's prices and the prorations left by plan changes (the
 * subscription's pendingItems, which the order takes over). A credit larger than the order goes
 * to the customer's balance (renewal_credit); an order that owes something takes what it can
 * from the balance first (`from_balance_amount`, an order_debit). Billed and taxed on its net
 * amount for the customer as they stand now (`subscriptionBillingDetails`, `saleTax`; `stripe`
 * for an organization taxing with Stripe Tax, whose calculation the order keeps). Inserted once
 * under its deterministic id; asked again, it answers the one there. Records order.created (and
 * customer.state_changed when the balance moved).
 *
 * The order is read and priced without a lock (Stripe Tax asked meanwhile), then one statement
 * writes the order, its items, its event and the subscription's pending items taken over, on
 * condition that the subscription's row is still the version read (else all is read again): no
 * transaction waits on Stripe or between round trips. Only an order that moves the balance
 * writes in a transaction, which holds the balance's lock.
 */
export async function openRenewalOrder(
  em: EntityManager,
  subscriptionId: string,
  periodEnd: Date,
  stripe?: StripeClient,
): Promise<RenewalOrder> {
  const orderId = renewalOrderIdOf(subscriptionId, periodEnd);
  const counter = await renewalInvoiceNumber(em, subscriptionId, orderId);
  if (!counter) return writtenRenewalOrder(em, subscriptionId, orderId);
  // Nothing in the balance (the usual case): the order takes none, without the balance's lock.
  // A credit arriving meanwhile waits for the next order.
  const balanceAvailable = (await availableBalance(em, counter.customer_id, counter.currency)) > 0;
  const opening: RenewalOpening = {
    subscriptionId,
    periodEnd,
    invoiceNumber: invoiceNumberOf(counter),
    balanceAvailable,
    stripe: counter.tax_mode === 'stripe_tax' ? stripe : undefined,
  };
  for (let read = 1; read <= openReads; read++) {
    const opened = await openReadRenewal(em, opening);
    if (opened) return opened;
  }
  throw new Error(`subscription ${subscriptionId} kept changing while its renewal was opened`);
}

/** How often opening a renewal reads its rows again when the subscription changed meanwhile. */
const openReads = 5;

/** What opening a renewal order decided before reading it. */
interface RenewalOpening {
  subscriptionId: string;
  periodEnd: Date;
  /** Taken from the organization's counter (renewalInvoiceNumber). */
  invoiceNumber: string;
  /** The customer's balance held something: the order may take from it. */
  balanceAvailable: boolean;
  /** Set when the organization taxes with Stripe Tax. */
  stripe: StripeClient | undefined;
}

/** A renewal order written already (by an earlier run of the step), as it is. */
async function writtenRenewalOrder(em: EntityManager, subscriptionId: string, orderId: string) {
  const [order, subscription] = await Promise.all([
    em.findOneOrFail(Order, { id: orderId }),
    em.findOneOrFail(Subscription, { id: subscriptionId }, { populate: ['customer'] }),
  ]);
  return renewalOrderOf(order, subscription);
}

/**
 * Inserts the renewal order $4 (an `orders` row as JSON), its items $5 and its order.created
 * event ($6 its id, $7 the organization, $8 the order as /v1 shows it, $9 the time), and empties
 * the subscription's pending items, if the subscription's row is still version $2 (its xmin) and
 * order $3 is not written yet: answers `opened` 1, else 0 (nothing written).
 */
const openRenewalStatement = `
  with taken_over as (
    update subscriptions s set pending_items = '[]'::jsonb
    where s.id = $1 and s.xmin::text = $2 and not exists (select 1 from orders where id = $3)
    returning s.id
  ), opened as (
    insert into orders select * from jsonb_populate_record(null::orders, $4::jsonb)
    where exists (select 1 from taken_over)
    returning id
  ), itemized as (
    insert into order_items select * from jsonb_populate_recordset(null::order_items, $5::jsonb)
    where exists (select 1 from opened)
  ), recorded as (
    insert into outbox_events (id, organization_id, type, data, created_at)
    select $6, $7, 'order.created', $8::jsonb, $9 where exists (select 1 from opened)
  )
  select (select count(*) from opened)::int as opened`;

/**
 * One reading of openRenewalOrder: null when the subscription changed between the reading and
 * the write (nothing written).
 */
async function openReadRenewal(
  em: EntityManager,
  opening: RenewalOpening,
): Promise<RenewalOrder | null> {
  const { subscriptionId, periodEnd, invoiceNumber } = opening;
  const orderId = renewalOrderIdOf(subscriptionId, periodEnd);
  // The order is built here in memory only: this fork never writes (no flush before reads).
  const view = em.fork({ flushMode: FlushMode.COMMIT });
  // The version first: a change after it, even one the reads below see, fails the write.
  const [version] = await view.execute<{ version: string; written: boolean }[]>(
    `select s.xmin::text as version, exists (select 1 from orders where id = ?) as written
     from subscriptions s where s.id = ?`,
    [orderId, subscriptionId],
  );
  if (!version) throw new Error(`subscription ${subscriptionId} not found`);
  if (version.written) return writtenRenewalOrder(em, subscriptionId, orderId);
  const subscription = await view.findOneOrFail(
    Subscription,
    { id: subscriptionId },
    { populate: ['organization', 'customer', 'testClock', 'product', 'discount'] },
  );
  const { billedPeriod, untaxed, billedTo, sale } = await renewalSale(
    view,
    subscription,
    periodEnd,
  );
  const tax = await saleTax(view, sale, opening.stripe);
  const bill = taxedBill(untaxed, tax);
  const { customer, currency } = subscription;
  const organizationId = subscription.organization.id;

  const open = async (db: EntityManager): Promise<RenewalOrder | null> => {
    const fromBalance = opening.balanceAvailable
      ? await balanceToUse(db, customer.id, currency, bill.totalAmount)
      : 0;
    const built = { persist: false, processOnCreateHooksEarly: true };
    const order = view.create(
      Order,
      {
        id: orderId,
        organization: subscription.organization,
        customer,
        product: subscription.product,
        discount: subscription.discount ?? null,
        subscription,
        checkoutId: null,
        status: 'pending',
        billingReason: 'subscription_cycle',
        subtotalAmount: bill.subtotalAmount,
        discountAmount: bill.discountAmount,
        netAmount: bill.netAmount,
        taxAmount: bill.taxAmount,
        taxLines: bill.taxLines,
        stripeTaxCalculationId: tax.stripeTaxCalculationId,
        totalAmount: bill.totalAmount,
        fromBalanceAmount: fromBalance,
        currency,
        billingName: customer.name ?? null,
        billingAddress: billedTo.billingAddress ?? null,
        billingPeriodStart: billedPeriod.start,
        billingPeriodEnd: billedPeriod.end,
        invoiceNumber,
        metadata: subscription.metadata,
        customFieldData: subscription.customFieldData,
      },
      built,
    );
    const items = bill.items.map((item) =>
      view.create(
        OrderItem,
        {
          order,
          label: item.label,
          amount: item.amount,
          taxAmount: item.taxAmount,
          proration: item.proration,
          seats: item.seats,
          productPrice: item.productPriceId,
        },
        built,
      ),
    );
    const [row] = await executeBound<{ opened: number }>(db, openRenewalStatement, [
      subscriptionId,
      version.version,
      orderId,
      JSON.stringify(rowOf(view, Order, order)),
      JSON.stringify(items.map((item) => rowOf(view, OrderItem, item))),
      newId(),
      organizationId,
      JSON.stringify(orderWire(order, items)),
      order.createdAt,
    ]);
    if (!row?.opened) return null;
    if (await moveRenewalBalance(db, order, bill.creditToBalance)) {
      await recordCustomerStateChange(db, organizationId, customer.id);
    }
    return renewalOrderOf(order, subscription);
  };
  return opening.balanceAvailable || bill.creditToBalance > 0 ? em.transactional(open) : open(em);
}

/**
 * The sale the renewal of the period ending `periodEnd` makes: the closed and the billed
 * periods, the untaxed bill and who it is billed to.
 */
async function renewalSale(em: EntityManager, subscription: Subscription, periodEnd: Date) {
  const closedPeriod = { start: subscription.currentPeriodStart, end: periodEnd };
  const billedPeriod = periodAfter(subscription, periodEnd);
  const untaxed = await renewalBill(em, subscription, closedPeriod, billedPeriod);
  const billedTo = await subscriptionBillingDetails(em, subscription);
  const sale: Sale = {
    organizationId: subscription.organization.id,
    productId: subscription.product.id,
    customer: billedTo,
    currency: subscription.currency,
    netAmount: untaxed.netAmount,
    reference: renewalOrderIdOf(subscription.id, periodEnd),
  };
  return { billedPeriod, untaxed, billedTo, sale };
}

interface RenewalCounterRow extends InvoiceCounterRow {
  tax_mode: TaxMode | null;
  customer_id: string;
  currency: string;
}

/**
 * The invoice number of a renewal order not written yet (null: written already), taken from its
 * organization's counter in a statement of its own: inside the renewal's transaction, the
 * counter's row would stay locked until that commits, and every renewal of the seller would
 * queue on it. A number taken by a renewal whose transaction then fails is skipped, never
 * reused: numbers stay unique, with rare gaps.
 */
async function renewalInvoiceNumber(
  em: EntityManager,
  subscriptionId: string,
  orderId: string,
): Promise<RenewalCounterRow | null> {
  // With it, what is decided before the transaction: whether Stripe Tax is asked, and whose
  // balance in which currency the order may use.
  const [row] = await em.execute<RenewalCounterRow[]>(
    `update organizations o set last_invoice_number = o.last_invoice_number + 1
     from subscriptions s
     where s.id = ? and o.id = s.organization_id
       and not exists (select 1 from orders where id = ?)
     returning o.slug, o.last_invoice_number, o.tax_settings ->> 'mode' as tax_mode,
       s.customer_id, s.currency`,
    [subscriptionId, orderId],
  );
  return row ?? null;
}

/**
 * The renewal order's balance entries, once each: the credit a negative renewal leaves
 * (one per subscription period: the order is), or what the order took from the balance.
 */
async function moveRenewalBalance(tx: EntityManager, order: Order, creditToBalance: number) {
  const owner = {
    organizationId: order.organization.id,
    customerId: order.customer.id,
    currency: order.currency,
    orderId: order.id,
    subscriptionId: order.subscription?.id ?? null,
  };
  const credited =
    creditToBalance > 0 &&
    (await addBalanceEntry(tx, {
      ...owner,
      amount: creditToBalance,
      kind: 'renewal_credit',
      reason: `Credit left by renewal ${order.invoiceNumber}`,
    }));
  const debited = await recordOrderDebit(tx, order);
  return credited || debited;
}

const renewalOrderOf = (order: Order, subscription: Subscription): RenewalOrder => ({
  orderId: order.id,
  status: order.status,
  totalAmount: order.totalAmount,
  amountToCharge: order.totalAmount - order.fromBalanceAmount,
  currency: order.currency,
  organizationId: subscription.organization.id,
  customerId: subscription.customer.id,
  stripeCustomerId: subscription.customer.stripeCustomerId ?? null,
  stripePaymentMethodId: subscription.stripePaymentMethodId ?? null,
});

/**
 * Who paid a failed renewal outside the dunning schedule, and the card they paid with: it
 * becomes the card later renewals charge (a customer's new card; null: the saved one).
 */
export interface RenewalRecovery {
  by: RenewalRecoverer;
  paymentMethodId: string | null;
}

/**
 * The renewal of the period ending `periodEnd` paid (by `paymentId`; null: free, or resolved by
 * finance without a charge): the order paid, the next period begun, dunning cleared, the
 * subscription active. A renewal that had failed is marked recovered (by `recovery`'s payer; by
 * dunning when a scheduled retry paid it, by finance when it was resolved without a charge).
 * Records order.updated, order.paid, subscription.updated (and subscription.active when it was
 * trialing, past due or unpaid) and customer.state_changed. Done already, it changes nothing.
 *
 * One statement writes it all, the order, the payment, the subscription and the events (built
 * beforehand from the rows as read, the settlement applied in memory), on condition that the
 * subscription's row is still the version read (else all is read again): no transaction stays
 * open between round trips.
 */
export async function settleRenewalPaid(
  em: EntityManager,
  subscriptionId: string,
  periodEnd: Date,
  paymentId: string | null,
  publicUrl: string,
  recovery?: RenewalRecovery,
): Promise<LifecycleState> {
  for (let read = 1; read <= settleReads; read++) {
    const settled = await settleReadRenewal(
      em,
      subscriptionId,
      periodEnd,
      paymentId,
      publicUrl,
      recovery,
    );
    if (!settled) continue;
    if (settled.paidNow) businessMetrics.renewalsPaid.inc();
    return settled.state;
  }
  throw new Error(`subscription ${subscriptionId} kept changing while its renewal was settled`);
}

/** How often a settlement reads its rows again when the subscription changed meanwhile. */
const settleReads = 5;

/**
 * Pays the renewal order and begins the next period, if the subscription's row is still version
 * $2 (its xmin) and the order still pending, with the events $12 (`[{id, type, data}]`) and the
 * customer's state change announced ($11: the organization; $13, $14: pg_notify's channel and
 * key): answers `settled` 1, else 0 (nothing written). Recovery and status follow the row
 * itself: they are what the caller computed from that version.
 */
const settleRenewalStatement = `
  with advanced as (
    update subscriptions s set
      current_period_start = $4, current_period_end = $5,
      status = case when s.status in ('canceled', 'incomplete_expired') then s.status else 'active' end,
      recovered_at = case when s.past_due_at is null then s.recovered_at else $6 end,
      recovered_by = case when s.past_due_at is null then s.recovered_by else $7 end,
      last_payment_attempt_at = case when $8::uuid is null then s.last_payment_attempt_at else $6 end,
      stripe_payment_method_id = coalesce($9, s.stripe_payment_method_id),
      past_due_at = null, dunning_attempts = 0, next_payment_attempt_at = null,
      last_payment_error = null, modified_at = $10
    where s.id = $1 and s.xmin::text = $2
      and exists (select 1 from orders o where o.id = $3 and o.status = 'pending')
    returning s.id
  ), paid as (
    update orders set status = 'paid', modified_at = $10
    where id = $3 and status = 'pending' and exists (select 1 from advanced)
    returning id
  ), charged as (
    update payments set order_id = $3, status = 'succeeded'
    where id = $8::uuid and exists (select 1 from paid)
  ), recorded as (
    -- A microsecond apart, in the order given: the relays read events by created_at.
    insert into outbox_events (id, organization_id, type, data, created_at)
    select e.id, $11, e.type, e.data, $10::timestamptz + e.position * interval '1 microsecond'
    from rows from (jsonb_to_recordset($12::jsonb) as (id uuid, type text, data jsonb))
      with ordinality as e(id, type, data, position)
    where exists (select 1 from paid)
  )
  select (select count(*) from paid)::int as settled,
    (select pg_notify($13, $14)::text from paid) as announced`;

/**
 * One reading of settleRenewalPaid: null when the subscription changed between the reading and
 * the write (nothing written).
 */
async function settleReadRenewal(
  em: EntityManager,
  subscriptionId: string,
  periodEnd: Date,
  paymentId: string | null,
  publicUrl: string,
  recovery: RenewalRecovery | undefined,
): Promise<{ state: LifecycleState; paidNow: boolean } | null> {
  // The events' sources, changed in memory only: this fork never writes (no flush before reads).
  const view = em.fork({ flushMode: FlushMode.COMMIT });
  // The version first: a change after it, even one the reads below see, fails the write.
  const [version] = await view.execute<{ version: string; has_benefits: boolean }[]>(
    `select s.xmin::text as version,
       exists (select 1 from product_benefits b where b.product_id = s.product_id) as has_benefits
     from subscriptions s where s.id = ?`,
    [subscriptionId],
  );
  if (!version) throw new Error(`subscription ${subscriptionId} not found`);
  const subscription = await view.findOneOrFail(
    Subscription,
    { id: subscriptionId },
    { populate: ['organization', 'customer', 'testClock', 'product', 'discount'] },
  );
  const order = await view.findOneOrFail(
    Order,
    { id: renewalOrderIdOf(subscriptionId, periodEnd) },
    { populate: ['product', 'discount'] },
  );
  const stateOf = () => lifecycleStateOf(view, subscription, version.has_benefits);
  if (order.status !== 'pending') return { state: await stateOf(), paidNow: false };
  const items = await view.find(
    OrderItem,
    { order: order.id },
    { orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] },
  );

  const modifiedAt = new Date();
  order.status = 'paid';
  order.modifiedAt = modifiedAt;
  const now = subscription.testClock ? subscription.testClock.frozenTime : new Date();
  const recoveredBy = recovery?.by ?? (paymentId ? 'dunning' : 'finance');
  if (subscription.pastDueAt) {
    subscription.recoveredAt = now;
    subscription.recoveredBy = recoveredBy;
  }
  if (paymentId) subscription.lastPaymentAttemptAt = now;
  if (recovery?.paymentMethodId) subscription.stripePaymentMethodId = recovery.paymentMethodId;
  const comesBack = subscription.status !== 'active';
  const next = periodAfter(subscription, periodEnd);
  subscription.currentPeriodStart = next.start;
  subscription.currentPeriodEnd = next.end;
  if (!ended(subscription.status)) subscription.status = 'active';
  subscription.pastDueAt = null;
  subscription.dunningAttempts = 0;
  subscription.nextPaymentAttemptAt = null;
  subscription.lastPaymentError = null;
  subscription.modifiedAt = modifiedAt;
  const paidOrder = orderWire(order, items);
  const wire = await subscriptionWireOf(view, subscription, publicUrl);
  const organizationId = subscription.organization.id;
  const customerId = subscription.customer.id;
  const customerState = await customerStateWithSubscription(view, organizationId, customerId, {
    ...customerStateRowOf(subscription),
  });
  const events: { type: CommerceEventType; data: object }[] = [
    { type: 'order.updated', data: paidOrder },
    { type: 'order.paid', data: paidOrder },
    { type: 'subscription.updated', data: wire },
  ];
  if (comesBack && subscription.status === 'active') {
    events.push({ type: 'subscription.active', data: wire });
  }
  if (customerState) events.push({ type: 'customer.state_changed', data: customerState });
  const stateKey = customerStateKey(organizationId, customerId);

  const [row] = await executeBound<{ settled: number }>(em, settleRenewalStatement, [
    subscriptionId,
    version.version,
    order.id,
    next.start,
    next.end,
    now,
    recoveredBy,
    paymentId,
    recovery?.paymentMethodId ?? null,
    modifiedAt,
    organizationId,
    JSON.stringify(events.map((event) => ({ id: newId(), ...event }))),
    changeTopics.customerState,
    stateKey,
  ]);
  if (!row?.settled) return null;
  announcedHere('customerState', stateKey);
  return { state: await stateOf(), paidNow: true };
}

/** The subscription as the customer's state lists it (see customerStateWithSubscription). */
const customerStateRowOf = (subscription: Subscription) => ({
  id: subscription.id,
  created_at: subscription.createdAt.toISOString(),
  modified_at: subscription.modifiedAt?.toISOString() ?? null,
  custom_field_data: subscription.customFieldData,
  metadata: subscription.metadata,
  status: subscription.status,
  amount: subscription.amount,
  currency: subscription.currency,
  recurring_interval: subscription.recurringInterval,
  current_period_start: subscription.currentPeriodStart.toISOString(),
  current_period_end: subscription.currentPeriodEnd?.toISOString() ?? null,
  trial_start: subscription.trialStart?.toISOString() ?? null,
  trial_end: subscription.trialEnd?.toISOString() ?? null,
  cancel_at_period_end: subscription.cancelAtPeriodEnd,
  canceled_at: subscription.canceledAt?.toISOString() ?? null,
  started_at: subscription.startedAt?.toISOString() ?? null,
  ends_at: subscription.endsAt?.toISOString() ?? null,
  product_id: subscription.product.id,
  discount_id: subscription.discount?.id ?? null,
});

/**
 * Charge `attempt` of the renewal of the period ending `periodEnd` failed: the subscription is
 * past due (since its first failure), the next retry is scheduled `dunningRetryDays` after that
 * first failure, by the subscription's clock; a hard decline, or the last retry, schedules none.
 * Records subscription.updated, and customer.state_changed on the first failure (the
 * subscription leaves the customer's active ones). Recorded already (the same attempt), it
 * changes nothing.
 */
export async function recordRenewalDecline(
  em: EntityManager,
  subscriptionId: string,
  periodEnd: Date,
  attempt: number,
  paymentId: string | null,
  error: SubscriptionPaymentError,
  publicUrl: string,
): Promise<LifecycleState> {
  let declinedNow = false;
  const state = await em.transactional(async (tx) => {
    const { subscription, order } = await lockedRenewal(tx, subscriptionId, periodEnd);
    const recorded = subscription.dunningAttempts >= attempt;
    if (recorded || order.status !== 'pending' || ended(subscription.status)) {
      return lifecycleState(tx, subscription);
    }
    if (paymentId) await tx.nativeUpdate(Payment, { id: paymentId }, { order: order.id });
    const now = await subscriptionNow(tx, subscription);
    const pastDueAt = subscription.pastDueAt ?? now;
    if (!subscription.pastDueAt) {
      // A new failure: the last one's recovery is history.
      subscription.recoveredAt = null;
      subscription.recoveredBy = null;
    }
    subscription.lastPaymentAttemptAt = now;
    const { dunningRetryDays } = subscriptionSettingsOf(subscription.organization);
    const retryDay = hardDeclineCodes.has(error.code) ? undefined : dunningRetryDays[attempt - 1];
    const wasActive = subscription.status === 'active' || subscription.status === 'trialing';
    if (subscription.status !== 'unpaid') subscription.status = 'past_due';
    subscription.pastDueAt = pastDueAt;
    subscription.dunningAttempts = attempt;
    subscription.nextPaymentAttemptAt =
      retryDay === undefined ? null : new Date(pastDueAt.getTime() + retryDay * 86_400_000);
    subscription.lastPaymentError = error;
    subscription.modifiedAt = new Date();
    await tx.flush();
    const organizationId = subscription.organization.id;
    appendEvent(
      tx,
      organizationId,
      'subscription.updated',
      await subscriptionWireOf(tx, subscription, publicUrl),
    );
    if (wasActive) await recordCustomerStateChange(tx, organizationId, subscription.customer.id);
    declinedNow = true;
    return lifecycleState(tx, subscription);
  });
  if (declinedNow) businessMetrics.renewalsFailed.inc();
  return state;
}

/**
 * The open renewal order of the period ending `periodEnd`, for a charge outside the dunning
 * schedule: `orderId`, when named (a customer retrying an order of the portal), must be it;
 * refused with OrderNotEligibleForRetry when it is another order or paid already.
 */
export async function retryableRenewalOrder(
  em: EntityManager,
  subscriptionId: string,
  periodEnd: Date,
  orderId: string | null,
  stripe?: StripeClient,
): Promise<RenewalOrder> {
  const order = await openRenewalOrder(em, subscriptionId, periodEnd, stripe);
  if ((orderId && order.orderId !== orderId) || order.status !== 'pending') {
    throw commerceError('OrderNotEligibleForRetry');
  }
  return order;
}

/** A charge of the renewal ending `periodEnd` outside the schedule: its Payment joins the order. */
export async function attachRenewalPayment(
  em: EntityManager,
  subscriptionId: string,
  periodEnd: Date,
  paymentId: string,
): Promise<void> {
  await em.nativeUpdate(
    Payment,
    { id: paymentId },
    { order: renewalOrderIdOf(subscriptionId, periodEnd) },
  );
}

/**
 * A charge of the renewal ending `periodEnd` asked outside the dunning schedule (a customer's
 * retry, finance's "retry now") was declined: the error and the attempt's time are kept, and
 * dunning goes on exactly as scheduled (its attempts and next retry unchanged). Records
 * subscription.updated. The renewal paid or the subscription ended meanwhile, it changes nothing.
 */
export async function recordRetryDecline(
  em: EntityManager,
  subscriptionId: string,
  periodEnd: Date,
  paymentId: string | null,
  error: SubscriptionPaymentError,
  publicUrl: string,
): Promise<LifecycleState> {
  let declinedNow = false;
  const state = await em.transactional(async (tx) => {
    const { subscription, order } = await lockedRenewal(tx, subscriptionId, periodEnd);
    if (order.status !== 'pending' || ended(subscription.status)) {
      return lifecycleState(tx, subscription);
    }
    if (paymentId) await tx.nativeUpdate(Payment, { id: paymentId }, { order: order.id });
    subscription.lastPaymentError = error;
    subscription.lastPaymentAttemptAt = await subscriptionNow(tx, subscription);
    subscription.modifiedAt = new Date();
    await tx.flush();
    appendEvent(
      tx,
      subscription.organization.id,
      'subscription.updated',
      await subscriptionWireOf(tx, subscription, publicUrl),
    );
    declinedNow = true;
    return lifecycleState(tx, subscription);
  });
  if (declinedNow) businessMetrics.renewalsFailed.inc();
  return state;
}

/** How a subscription ends: at its period's end as asked, or when dunning or finance gives up. */
export type SubscriptionEnding = 'period_end' | 'dunning_exhausted' | 'finance_cancel';

/**
 * Ends the subscription: canceled (ended_at by its clock) at the end of a period it was
 * canceled for, or when finance cancels it; after the last failed retry, as the organization's
 * dunningFinalStatus says (unpaid keeps it, without renewals, until finance acts), its cause
 * `payment_failed` (the date of the last attempt is lastPaymentAttemptAt). A canceled
 * subscription's end is subscription.revoked (Polar's event for access taken away; canceled
 * was announced when cancel_at_period_end was set, or is announced here when it was not), and
 * customer.state_changed follows. Ended already, it changes nothing.
 */
export function endSubscription(
  em: EntityManager,
  subscriptionId: string,
  ending: SubscriptionEnding,
  publicUrl: string,
): Promise<LifecycleState> {
  return em.transactional(async (tx) => {
    const subscription = await lockSubscription(tx, subscriptionId);
    const finalStatus =
      ending === 'dunning_exhausted'
        ? subscriptionSettingsOf(subscription.organization).dunningFinalStatus
        : 'canceled';
    if (ended(subscription.status) || subscription.status === finalStatus) {
      return lifecycleState(tx, subscription);
    }
    // Canceled at period end, it ends exactly then (a test clock may have jumped past it).
    const endedAt =
      ending === 'period_end'
        ? (subscription.endsAt ??
          subscription.currentPeriodEnd ??
          (await subscriptionNow(tx, subscription)))
        : await subscriptionNow(tx, subscription);
    subscription.status = finalStatus;
    subscription.nextPaymentAttemptAt = null;
    if (ending === 'dunning_exhausted') subscription.cancellationCause = 'payment_failed';
    if (finalStatus === 'canceled') {
      subscription.canceledAt ??= endedAt;
      subscription.endsAt ??= endedAt;
      subscription.endedAt = endedAt;
    }
    subscription.modifiedAt = new Date();
    await tx.flush();
    const organizationId = subscription.organization.id;
    const wire = await subscriptionWireOf(tx, subscription, publicUrl);
    appendEvent(tx, organizationId, 'subscription.updated', wire);
    if (finalStatus === 'canceled') {
      if (ending !== 'period_end') appendEvent(tx, organizationId, 'subscription.canceled', wire);
      appendEvent(tx, organizationId, 'subscription.revoked', wire);
    }
    await recordCustomerStateChange(tx, organizationId, subscription.customer.id);
    return lifecycleState(tx, subscription);
  });
}
