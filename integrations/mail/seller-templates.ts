import { actionMail } from './templates.ts';
import type { MailContent } from './transport.ts';

/**
 * The mails a seller's owners and admins receive about their customers' subscriptions: when a
 * renewal fails and dunning starts, and when dunning ends (paid after all, or given up). Each
 * links to the dashboard's failed-renewals page. Amounts come formatted with their currency;
 * dates are shown as days, in UTC.
 */

const day = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' });
const formatDay = (date: Date) => day.format(date);

interface DunningFacts {
  organizationName: string;
  customerEmail: string;
  productName: string;
  /** What the renewal charges, formatted with its currency. */
  amount: string;
  /** The dashboard's failed-renewals page. */
  dashboardUrl: string;
}

/** Why the reader receives it, under every notice. */
const sellerNote = (organizationName: string) =>
  `You receive this email as an owner or admin of ${organizationName}. Dunning notifications can be turned off in the organization's notification settings.`;

/** A renewal charge failed: the subscription is past due and its retries are scheduled. */
export function dunningStarted({
  organizationName,
  customerEmail,
  productName,
  amount,
  dashboardUrl,
  declineReason,
  nextRetryAt,
}: DunningFacts & { declineReason: string | null; nextRetryAt: Date | null }): MailContent {
  return actionMail({
    subject: `Renewal failed: ${customerEmail}'s ${productName} subscription is past due`,
    paragraphs: [
      `The ${amount} renewal of ${customerEmail}'s ${productName} subscription was declined${declineReason ? `: ${declineReason}` : '.'}`,
      nextRetryAt
        ? `The customer was asked to update their card. The payment is tried again on ${formatDay(nextRetryAt)}.`
        : 'The customer was asked to update their card. No further retry is scheduled.',
    ],
    action: { label: 'View failed renewals', url: dashboardUrl },
    ignoreNote: sellerNote(organizationName),
  });
}

/** Who paid a renewal after it failed, in words. */
const recoveredByWords = {
  customer: 'The customer paid it from the customer portal.',
  finance: 'Your team settled it.',
  dunning: 'A scheduled retry paid it.',
} as const;

/** A failed renewal was paid after all: dunning is over, the subscription active again. */
export function dunningRecovered({
  organizationName,
  customerEmail,
  productName,
  amount,
  dashboardUrl,
  recoveredBy,
}: DunningFacts & { recoveredBy: keyof typeof recoveredByWords | null }): MailContent {
  return actionMail({
    subject: `Recovered: ${customerEmail}'s ${productName} subscription is active again`,
    paragraphs: [
      `The ${amount} renewal of ${customerEmail}'s ${productName} subscription that had failed is paid, and the subscription is active again.`,
      ...(recoveredBy ? [recoveredByWords[recoveredBy]] : []),
    ],
    action: { label: 'View recovered renewals', url: dashboardUrl },
    ignoreNote: sellerNote(organizationName),
  });
}

/** The last retry failed too: dunning gave up, the subscription canceled (or left unpaid). */
export function dunningFailed({
  organizationName,
  customerEmail,
  productName,
  amount,
  dashboardUrl,
  status,
  lastAttemptAt,
}: DunningFacts & { status: 'canceled' | 'unpaid'; lastAttemptAt: Date | null }): MailContent {
  const last = lastAttemptAt ? ` (last attempt on ${formatDay(lastAttemptAt)})` : '';
  return actionMail({
    subject: `Payment failed: ${customerEmail}'s ${productName} subscription is ${status}`,
    paragraphs: [
      `Every retry of the ${amount} renewal of ${customerEmail}'s ${productName} subscription failed${last}.`,
      status === 'canceled'
        ? 'Dunning has ended and the subscription is canceled for a failed payment.'
        : 'Dunning has ended and the subscription is unpaid: it no longer renews until your team settles it or cancels it.',
    ],
    action: { label: 'View failed renewals', url: dashboardUrl },
    ignoreNote: sellerNote(organizationName),
  });
}
