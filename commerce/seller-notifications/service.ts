import type { EntityManager } from '@mikro-orm/postgresql';
import { Member, type Organization, Subscription } from '../../db/entities/index.ts';
import { notificationSettingsOf } from '../../db/entities/organization.ts';
import { formatMoney } from '../../domain/money.ts';
import { splitRoles } from '../../domain/permissions.ts';
import * as templates from '../../integrations/mail/seller-templates.ts';
import type { EmailMessage, MailContent } from '../../integrations/mail/transport.ts';
import type { OutboxEventRow } from '../outbox.ts';

/**
 * The mails a seller's owners and admins receive about dunning, read from the outbox by the
 * customer mail relay (commerce/customer-notifications): a renewal failed and dunning started,
 * it was paid after all, or dunning gave up. Each is handed to each owner and admin as its own
 * mail (one mail id per reader: a second start of it is ignored), then claimed by its stable id
 * in `seller_mails`, so that a relay stopped in between hands it over again.
 *
 * The claims are kept for good (the purge of expired records leaves them): a past-due
 * subscription announces the same fact again at each declined retry for as long as its dunning
 * lasts (retry days reach a year), an unpaid or canceled one keeps its cause in every later
 * update, so no age makes a claim safe to drop. They are a few short rows per failed renewal.
 */

export type SellerMailKind = 'dunning-started' | 'dunning-recovered' | 'dunning-failed';

/** The outbox events the seller may be mailed about. */
export const sellerMailEventTypes = ['subscription.updated', 'subscription.active'] as const;

/** The roles whose members are mailed. */
const mailedRoles = new Set(['owner', 'admin']);

/** The dashboard page each mail links to (dashboard/src/pages.tsx: `/failed-renewals`). */
const failedRenewalsPath = '/failed-renewals';

interface PlannedSellerMail {
  /** Stable: the same fact always names the same mail. */
  id: string;
  kind: SellerMailKind;
  organization: Organization;
  content: MailContent;
}

const textOf = (value: unknown) => (typeof value === 'string' ? value : null);
const dateOf = (value: unknown) => {
  const text = textOf(value);
  return text ? new Date(text) : null;
};

/**
 * The dunning mail an event calls for: a `subscription.updated` that finds the subscription past
 * due (dunning started, once per failed renewal: by the period it renews) or ended by dunning
 * (canceled, or unpaid, for a failed payment), a `subscription.active` after a recovery; null
 * for the others. What happened comes from the event; whose it is from the rows.
 */
async function sellerMailForEvent(
  em: EntityManager,
  event: OutboxEventRow,
  publicUrl: string,
): Promise<PlannedSellerMail | null> {
  const id = textOf(event.data.id);
  const status = textOf(event.data.status);
  const periodEnd = textOf(event.data.current_period_end);
  const recoveredAt = textOf(event.data.recovered_at);
  const started = event.type === 'subscription.updated' && status === 'past_due';
  const failed =
    event.type === 'subscription.updated' &&
    event.data.cancellation_cause === 'payment_failed' &&
    (status === 'canceled' || status === 'unpaid');
  const recovered = event.type === 'subscription.active' && recoveredAt !== null;
  if (!id || !(started || failed || recovered)) return null;
  const subscription = await em.findOne(Subscription, id, {
    populate: ['customer', 'product', 'organization'],
  });
  if (!subscription) return null;
  const facts = {
    organizationName: subscription.organization.name,
    customerEmail: subscription.customer.email,
    productName: subscription.product.name,
    amount: formatMoney(subscription.amount, subscription.currency),
    dashboardUrl: `${publicUrl}${failedRenewalsPath}`,
  };
  const mail = (kind: SellerMailKind, factId: string, content: MailContent) => ({
    id: `${kind}:${subscription.id}:${factId}`,
    kind,
    organization: subscription.organization,
    content,
  });
  if (started) {
    const stillDue = subscription.status === 'past_due';
    return mail(
      'dunning-started',
      periodEnd ?? event.id,
      templates.dunningStarted({
        ...facts,
        declineReason: textOf(event.data.last_payment_decline_reason),
        nextRetryAt: stillDue ? (subscription.nextPaymentAttemptAt ?? null) : null,
      }),
    );
  }
  if (failed) {
    return mail(
      'dunning-failed',
      periodEnd ?? event.id,
      templates.dunningFailed({
        ...facts,
        status: status as 'canceled' | 'unpaid',
        lastAttemptAt: dateOf(event.data.last_payment_attempt_at),
      }),
    );
  }
  const recoveredBy = textOf(event.data.recovered_by);
  return mail(
    'dunning-recovered',
    recoveredAt as string,
    templates.dunningRecovered({
      ...facts,
      recoveredBy:
        recoveredBy === 'customer' || recoveredBy === 'finance' || recoveredBy === 'dunning'
          ? recoveredBy
          : null,
    }),
  );
}

/** The organization's owners and admins (members of those roles, not banned): id and address. */
async function ownersAndAdmins(em: EntityManager, organizationId: string) {
  const members = await em.find(
    Member,
    { organization: organizationId },
    { populate: ['user'], orderBy: { createdAt: 'asc' } },
  );
  return members
    .filter(({ role, user }) => !user.banned && splitRoles(role).some((r) => mailedRoles.has(r)))
    .map(({ user }) => ({ userId: user.id, email: user.email }));
}

/**
 * Mails the organization's owners and admins about `event` when it is a dunning fact: unless the
 * organization turned dunning notifications off, or the fact was mailed before. Answers how many
 * mails were handed over.
 */
export async function mailSellerAboutEvent(
  em: EntityManager,
  event: OutboxEventRow,
  { publicUrl, deliver }: { publicUrl: string; deliver: (message: EmailMessage) => Promise<void> },
): Promise<number> {
  const mail = await sellerMailForEvent(em, event, publicUrl);
  if (!mail || !notificationSettingsOf(mail.organization).dunning) return 0;
  const [sent] = await em.execute<{ id: string }[]>('select id from seller_mails where id = ?', [
    mail.id,
  ]);
  if (sent) return 0;
  const readers = await ownersAndAdmins(em, mail.organization.id);
  for (const { userId, email } of readers) {
    await deliver({ id: `seller:${mail.id}:${userId}`, to: email, ...mail.content });
  }
  await em.execute(
    `insert into seller_mails (id, organization_id, kind) values (?, ?, ?)
     on conflict (id) do nothing`,
    [mail.id, mail.organization.id, mail.kind],
  );
  return readers.length;
}
