import type { EntityManager } from '@mikro-orm/postgresql';
import { type Customer, Order, type Organization, Subscription } from '../../db/entities/index.ts';
import {
  type CustomerEmailSettings,
  customerEmailSettingsOf,
} from '../../db/entities/organization.ts';
import type { SqlFragment } from '../../db/sql.ts';
import { cardExpiresBefore } from '../../domain/card-expiry.ts';
import { formatMoney } from '../../domain/money.ts';
import * as templates from '../../integrations/mail/customer-templates.ts';
import type { EmailMessage, MailContent } from '../../integrations/mail/transport.ts';
import type { StripeClient } from '../../integrations/stripe/client.ts';
import { findCustomerPaymentMethod } from '../../integrations/stripe/payment-methods.ts';
import { portalSignInUrl } from '../customer-sessions/service.ts';
import type { OutboxEventRow } from '../outbox.ts';
import { mailSellerAboutEvent, sellerMailEventTypes } from '../seller-notifications/service.ts';

/**
 * The mails that keep a seller's customers informed: read from the outbox (a receipt when an
 * order is paid, a subscription started, canceled or recovered) and from the calendar (a trial
 * ending, a yearly renewal coming, a card expiring before the next charge). Each mail has a
 * stable id, claimed in `customer_mails` once it is handed over: whoever runs this twice, the
 * customer gets it once. Handing over (starting the mail's workflow) is the caller's `deliver`,
 * a network call: no transaction waits on it. It must itself ignore a second start of the same
 * mail, as a run stopped between the handing over and the claim hands it over again.
 */

export type DeliverMail = (message: EmailMessage) => Promise<void>;

export type CustomerMailKind =
  | 'order-receipt'
  | 'subscription-started'
  | 'subscription-canceled'
  | 'payment-recovered'
  | 'trial-ending'
  | 'renewal-upcoming'
  | 'card-expiring';

/** Which organization setting turns each kind on or off. */
const settingOf: Record<CustomerMailKind, keyof CustomerEmailSettings> = {
  'order-receipt': 'orderConfirmation',
  'subscription-started': 'subscriptionConfirmation',
  'subscription-canceled': 'subscriptionCancellation',
  'payment-recovered': 'paymentRecovered',
  'trial-ending': 'trialEnding',
  'renewal-upcoming': 'renewalReminder',
  'card-expiring': 'cardExpiring',
};

interface PlannedMail {
  /** Stable: the same fact always names the same mail. */
  id: string;
  kind: CustomerMailKind;
  customer: Customer;
  organization: Organization;
  /** The portal page the mail's link opens. */
  returnTo: string;
  content: (portalUrl: string) => MailContent;
}

/**
 * Sends `mail` unless the organization turned its kind off, the customer is deleted, or it was
 * sent before: issues its portal link, delivers it, then claims its id. Each is a statement of
 * its own; a run stopped before the claim delivers again, with a new link, and `deliver` sends
 * the mail once.
 */
async function sendOnce(
  em: EntityManager,
  mail: PlannedMail,
  publicUrl: string,
  deliver: DeliverMail,
): Promise<boolean> {
  if (!customerEmailSettingsOf(mail.organization)[settingOf[mail.kind]]) return false;
  if (mail.customer.deletedAt) return false;
  const [sent] = await em.execute<{ id: string }[]>('select id from customer_mails where id = ?', [
    mail.id,
  ]);
  if (sent) return false;
  const portalUrl = await portalSignInUrl(em, {
    customerId: mail.customer.id,
    returnTo: mail.returnTo,
    publicUrl,
  });
  await deliver({ id: `customer:${mail.id}`, to: mail.customer.email, ...mail.content(portalUrl) });
  await em.execute(
    'insert into customer_mails (id, customer_id, kind) values (?, ?, ?) on conflict (id) do nothing',
    [mail.id, mail.customer.id, mail.kind],
  );
  return true;
}

const subscriptionPopulate = ['customer', 'product', 'organization'] as const;

function subscriptionFacts(subscription: Subscription) {
  return {
    organizationName: subscription.organization.name,
    productName: subscription.product.name,
    amount: formatMoney(subscription.amount, subscription.currency),
    interval: subscription.recurringInterval,
  };
}

const subscriptionMail = (
  subscription: Subscription,
  kind: CustomerMailKind,
  id: string,
  content: PlannedMail['content'],
): PlannedMail => ({
  id,
  kind,
  customer: subscription.customer,
  organization: subscription.organization,
  returnTo: `/portal/subscriptions/${subscription.id}`,
  content,
});

// Outbox events

/** The outbox events customers are mailed about. */
export const customerMailEventTypes = [
  'order.paid',
  'subscription.created',
  'subscription.canceled',
  'subscription.active',
] as const;

const textOf = (value: unknown) => (typeof value === 'string' ? value : null);

/** The mail an event calls for, from the rows as they are now; null when none. */
async function mailForEvent(em: EntityManager, event: OutboxEventRow): Promise<PlannedMail | null> {
  const id = textOf(event.data.id);
  const types: readonly string[] = customerMailEventTypes;
  if (!id || !types.includes(event.type)) return null;
  if (event.type === 'order.paid') {
    const order = await em.findOne(Order, id, { populate: subscriptionPopulate });
    // A free order (a trial's first) has nothing to receipt.
    if (!order || order.totalAmount <= 0) return null;
    const paidAt = order.modifiedAt ?? order.createdAt;
    return {
      id: `order-receipt:${order.id}`,
      kind: 'order-receipt',
      customer: order.customer,
      organization: order.organization,
      returnTo: `/portal/orders/${order.id}`,
      content: (portalUrl) =>
        templates.orderReceipt({
          organizationName: order.organization.name,
          portalUrl,
          productName: order.product.name,
          amount: formatMoney(order.totalAmount, order.currency),
          paidAt,
          invoiceNumber: order.invoiceNumber,
        }),
    };
  }
  const subscription = await em.findOne(Subscription, id, { populate: subscriptionPopulate });
  if (!subscription) return null;
  const facts = subscriptionFacts(subscription);
  if (event.type === 'subscription.created') {
    if (subscription.status !== 'active' && subscription.status !== 'trialing') return null;
    const trialEndsAt = subscription.status === 'trialing' ? (subscription.trialEnd ?? null) : null;
    return subscriptionMail(
      subscription,
      'subscription-started',
      `subscription-started:${subscription.id}`,
      (portalUrl) =>
        templates.subscriptionStarted({
          ...facts,
          portalUrl,
          trialEndsAt,
          nextChargeAt: subscription.currentPeriodEnd ?? null,
        }),
    );
  }
  if (event.type === 'subscription.canceled') {
    const endedAt = textOf(event.data.ended_at);
    const endsAt = endedAt ?? textOf(event.data.ends_at);
    const canceledAt = textOf(event.data.canceled_at) ?? event.id;
    // Taken back (uncanceled) before the mail went: nothing to say any more.
    if (!endsAt || (!endedAt && !subscription.cancelAtPeriodEnd)) return null;
    return subscriptionMail(
      subscription,
      'subscription-canceled',
      `subscription-canceled:${subscription.id}:${canceledAt}`,
      (portalUrl) =>
        templates.subscriptionCanceled({
          organizationName: facts.organizationName,
          productName: facts.productName,
          portalUrl,
          endsAt: new Date(endsAt),
          ended: endedAt !== null,
        }),
    );
  }
  if (event.type === 'subscription.active') {
    // Active again after a failed renewal (not a trial converting): the renewal was recovered.
    const recoveredAt = textOf(event.data.recovered_at);
    if (!recoveredAt || subscription.recoveredAt?.toISOString() !== recoveredAt) return null;
    return subscriptionMail(
      subscription,
      'payment-recovered',
      `payment-recovered:${subscription.id}:${recoveredAt}`,
      (portalUrl) =>
        templates.paymentRecovered({
          organizationName: facts.organizationName,
          productName: facts.productName,
          portalUrl,
        }),
    );
  }
  return null;
}

/** The outbox events the relay reads: those customers are mailed about, and the seller's. */
const relayedEventTypes = [...new Set([...customerMailEventTypes, ...sellerMailEventTypes])];

/**
 * Outbox events of the last day of the types customers (or sellers, about dunning) are mailed
 * about that no relay has read yet, oldest first. (Older ones are not mailed late: a receipt a
 * day late is noise.)
 */
export function unreadCustomerMailEvents(
  em: EntityManager,
  limit = 200,
): Promise<OutboxEventRow[]> {
  return em.execute<OutboxEventRow[]>(
    `select e.id, e.type, e.data from outbox_events e
     where e.type in (?) and e.created_at > now() - interval '1 day'
       and not exists (select 1 from customer_mail_events read where read.event_id = e.id)
     order by e.created_at, e.id limit ?`,
    [relayedEventTypes, limit],
  );
}

/**
 * Reads one outbox event: sends the mail it calls for, to the customer and, for a dunning fact,
 * to the seller's owners and admins (commerce/seller-notifications), then marks it read. A relay
 * reading the same event at the same time hands the same mails over, which `deliver` sends once.
 * Answers whether a mail went out.
 */
export async function mailCustomerAboutEvent(
  em: EntityManager,
  event: OutboxEventRow,
  { publicUrl, deliver }: { publicUrl: string; deliver: DeliverMail },
): Promise<boolean> {
  const db = em.fork();
  const [read] = await db.execute<{ event_id: string }[]>(
    'select event_id from customer_mail_events where event_id = ?',
    [event.id],
  );
  if (read) return false;
  const mail = await mailForEvent(db, event);
  const customerMailed = mail ? await sendOnce(db, mail, publicUrl, deliver) : false;
  const sellerMails = await mailSellerAboutEvent(db, event, { publicUrl, deliver });
  await db.execute(
    'insert into customer_mail_events (event_id) values (?) on conflict (event_id) do nothing',
    [event.id],
  );
  return customerMailed || sellerMails > 0;
}

// Reminders

/** Ahead of their day: a trial's end, a yearly renewal, and the charge a card must last until. */
export const reminderLeadDays = { trialEnding: 3, renewalUpcoming: 7, cardExpiring: 30 };

/** A subscription's own time: its test clock's, or `now`. */
const clockNow = `coalesce((select tc.frozen_time from test_clocks tc where tc.id = s.test_clock_id), ?::timestamptz)`;

/** The live subscriptions (not ending at their period's end) that `condition` finds due. */
async function dueSubscriptions(
  em: EntityManager,
  condition: SqlFragment,
): Promise<Subscription[]> {
  const rows = await em.execute<{ id: string }[]>(
    `select s.id from subscriptions s where s.cancel_at_period_end = false and ${condition.sql}`,
    condition.params,
  );
  if (rows.length === 0) return [];
  return em.find(
    Subscription,
    { id: { $in: rows.map((row) => row.id) } },
    { populate: subscriptionPopulate },
  );
}

/**
 * The subscription's card as its customer holds it at Stripe (brand, digits, expiry); null when
 * the customer no longer holds it or it is no card.
 */
async function subscriptionCard(stripe: StripeClient, subscription: Subscription) {
  const { stripeCustomerId } = subscription.customer;
  const paymentMethodId = subscription.stripePaymentMethodId;
  if (!stripeCustomerId || !paymentMethodId) return null;
  const method = await findCustomerPaymentMethod(stripe, stripeCustomerId, paymentMethodId);
  if (!method?.card) return null;
  const { brand, last4, exp_month: expMonth, exp_year: expYear } = method.card;
  return { brand, last4, expMonth, expYear };
}

/**
 * Sends the reminders due at `now` (each subscription by its own clock): trials ending within 3
 * days (trials longer than that: a shorter one's start mail says when it ends), yearly renewals
 * within 7 days, and cards that stop working before a charge due within 30 days (each card
 * looked up once per renewal). Each reminder is sent once (sendOnce); answers how many went.
 */
export async function sendCustomerReminders(
  em: EntityManager,
  {
    publicUrl,
    deliver,
    stripe,
    now = new Date(),
  }: { publicUrl: string; deliver: DeliverMail; stripe: StripeClient; now?: Date },
): Promise<number> {
  let sent = 0;
  const send = async (mail: PlannedMail) => {
    if (await sendOnce(em, mail, publicUrl, deliver)) sent++;
  };

  const trials = await dueSubscriptions(em, {
    sql: `s.status = 'trialing' and s.trial_end > ${clockNow}
       and s.trial_end <= ${clockNow} + make_interval(days => ?)
       and s.trial_end - s.trial_start > make_interval(days => ?)`,
    params: [now, now, reminderLeadDays.trialEnding, reminderLeadDays.trialEnding],
  });
  for (const subscription of trials) {
    const trialEndsAt = subscription.trialEnd as Date;
    await send(
      subscriptionMail(
        subscription,
        'trial-ending',
        `trial-ending:${subscription.id}:${trialEndsAt.toISOString()}`,
        (portalUrl) =>
          templates.trialEnding({ ...subscriptionFacts(subscription), portalUrl, trialEndsAt }),
      ),
    );
  }

  const renewals = await dueSubscriptions(em, {
    sql: `s.status = 'active' and s.recurring_interval = 'year' and s.current_period_end > ${clockNow}
       and s.current_period_end <= ${clockNow} + make_interval(days => ?)`,
    params: [now, now, reminderLeadDays.renewalUpcoming],
  });
  for (const subscription of renewals) {
    const renewsAt = subscription.currentPeriodEnd as Date;
    await send(
      subscriptionMail(
        subscription,
        'renewal-upcoming',
        `renewal-upcoming:${subscription.id}:${renewsAt.toISOString()}`,
        (portalUrl) =>
          templates.renewalUpcoming({ ...subscriptionFacts(subscription), portalUrl, renewsAt }),
      ),
    );
  }

  const nextCharge = `(case when s.status = 'trialing' then s.trial_end else s.current_period_end end)`;
  const charging = await dueSubscriptions(em, {
    sql: `s.status in ('active', 'trialing') and s.stripe_payment_method_id is not null
       and ${nextCharge} > ${clockNow} and ${nextCharge} <= ${clockNow} + make_interval(days => ?)
       and not exists (select 1 from card_expiry_checks c where c.subscription_id = s.id
         and c.payment_method_id = s.stripe_payment_method_id and c.renews_at = ${nextCharge})`,
    params: [now, now, reminderLeadDays.cardExpiring],
  });
  for (const subscription of charging) {
    if (!customerEmailSettingsOf(subscription.organization).cardExpiring) continue;
    const renewsAt = (
      subscription.status === 'trialing' ? subscription.trialEnd : subscription.currentPeriodEnd
    ) as Date;
    const paymentMethodId = subscription.stripePaymentMethodId as string;
    const card = await subscriptionCard(stripe, subscription);
    if (card && cardExpiresBefore(card, renewsAt)) {
      await send(
        subscriptionMail(
          subscription,
          'card-expiring',
          `card-expiring:${subscription.id}:${paymentMethodId}:${renewsAt.toISOString()}`,
          (portalUrl) =>
            templates.cardExpiring({
              organizationName: subscription.organization.name,
              productName: subscription.product.name,
              portalUrl,
              card: `${capitalized(card.brand)} card ending in ${card.last4}`,
              validThrough: `${String(card.expMonth).padStart(2, '0')}/${card.expYear}`,
              renewsAt,
            }),
        ),
      );
    }
    // Checked once per card and renewal, whatever it showed; only once the mail it called for
    // went, so that a failed delivery leaves the card to check again.
    await em.execute(
      `insert into card_expiry_checks (subscription_id, payment_method_id, renews_at)
       values (?, ?, ?) on conflict do nothing`,
      [subscription.id, paymentMethodId, renewsAt],
    );
  }
  return sent;
}

const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

// Housekeeping

/** How long a sent mail's claim is kept: far past any day its fact could come due again. */
export const mailClaimRetentionDays = 90;

/**
 * Deletes the once-only records that can no longer stop a second mail, as of `before` (never
 * later than now), for the purge of expired records; answers how many went.
 * - Relay marks (`customer_mail_events`) older than two days: the relay reads only the last
 *   day's events.
 * - Mail claims (`customer_mails`) older than `mailClaimRetentionDays`, of customers on no test
 *   clock. An event's mail is claimed on the day of its event, and the relay never reads older
 *   events; a reminder is claimed at most 30 days before its date (a trial's end, a renewal),
 *   and is due only while that date is ahead, by real time for these customers: 90 days on, it
 *   is past for good. A test clock can stand still for months, keeping a reminder due, so its
 *   customers' claims stay (deleting the clock deletes no live subscription, see test-clocks).
 * - Card checks (`card_expiry_checks`) of a renewal already past by the subscription's clock:
 *   only a renewal still ahead is checked, and clocks only move forward.
 */
export async function deleteSpentMailRecords(em: EntityManager, before: Date): Promise<number> {
  const cutOff = `least(?::timestamptz, now())`;
  const counted = async (tx: EntityManager, deletion: SqlFragment) => {
    const [row] = await tx.execute<{ count: number }[]>(
      `with deleted as (${deletion.sql} returning 1) select count(*)::int as count from deleted`,
      deletion.params,
    );
    return row?.count ?? 0;
  };
  return em.transactional(async (tx) => {
    const marks = await counted(tx, {
      sql: `delete from customer_mail_events where handled_at < ${cutOff} - interval '2 days'`,
      params: [before],
    });
    const claims = await counted(tx, {
      sql: `delete from customer_mails m using customers c
       where c.id = m.customer_id and c.test_clock_id is null
         and m.created_at < ${cutOff} - make_interval(days => ?)`,
      params: [before, mailClaimRetentionDays],
    });
    const checks = await counted(tx, {
      sql: `delete from card_expiry_checks k using subscriptions s
       where s.id = k.subscription_id
         and k.renews_at < coalesce((select tc.frozen_time from test_clocks tc
           where tc.id = s.test_clock_id), ${cutOff})`,
      params: [before],
    });
    return marks + claims + checks;
  });
}
