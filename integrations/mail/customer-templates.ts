import { actionMail } from './templates.ts';
import type { MailContent } from './transport.ts';

/**
 * The mails a seller's customers receive: in the seller's name, each with a link into the
 * customer portal (a one-time sign-in link, see commerce/customer-sessions). Amounts come
 * formatted with their currency; dates are shown as days, in UTC.
 */

const day = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeZone: 'UTC' });
const formatDay = (date: Date) => day.format(date);

/** Why the customer receives a mail they did not ask for, under every notice. */
const customerNote = (organizationName: string) =>
  `You receive this email because you are a customer of ${organizationName}.`;

interface CustomerMailFacts {
  organizationName: string;
  /** A one-time link opening the portal (on the page the mail is about). */
  portalUrl: string;
}

interface SubscriptionFacts extends CustomerMailFacts {
  productName: string;
  /** What a renewal charges, formatted with its currency. */
  amount: string;
  interval: 'day' | 'week' | 'month' | 'year';
}

/** The link a customer asked for on the portal's sign-in page. */
export function portalSignIn({
  organizationName,
  url,
  expiresInMinutes,
}: {
  organizationName: string;
  url: string;
  expiresInMinutes: number;
}): MailContent {
  return actionMail({
    subject: `Sign in to ${organizationName}`,
    paragraphs: [
      `Use this link to sign in to your ${organizationName} customer portal, where you manage your orders, subscriptions and payment methods.`,
      `The link works once and expires in ${expiresInMinutes} minutes.`,
    ],
    action: { label: 'Sign in', url },
    ignoreNote: 'If you did not ask to sign in, ignore this email: nobody can use it but you.',
  });
}

/** After a paid order: what was bought, what it cost, where the invoice is. */
export function orderReceipt({
  organizationName,
  portalUrl,
  productName,
  amount,
  paidAt,
  invoiceNumber,
}: CustomerMailFacts & {
  productName: string;
  amount: string;
  paidAt: Date;
  invoiceNumber: string | null;
}): MailContent {
  return actionMail({
    subject: `Your receipt from ${organizationName}`,
    paragraphs: [
      `Thank you for your purchase of ${productName}.`,
      `Amount paid: ${amount} on ${formatDay(paidAt)}${invoiceNumber ? ` (invoice ${invoiceNumber})` : ''}.`,
      'Your invoice can be downloaded from your order in the customer portal.',
    ],
    action: { label: 'View your order and invoice', url: portalUrl },
    ignoreNote: customerNote(organizationName),
  });
}

/** A new subscription: what it costs and when it is charged next (or when its trial ends). */
export function subscriptionStarted({
  organizationName,
  portalUrl,
  productName,
  amount,
  interval,
  trialEndsAt,
  nextChargeAt,
}: SubscriptionFacts & { trialEndsAt: Date | null; nextChargeAt: Date | null }): MailContent {
  const billing = trialEndsAt
    ? `Your free trial runs until ${formatDay(trialEndsAt)}; then you will be charged ${amount} every ${interval} until you cancel.`
    : `You will be charged ${amount} every ${interval} until you cancel${nextChargeAt ? `; the next charge is on ${formatDay(nextChargeAt)}` : ''}.`;
  return actionMail({
    subject: `Your ${productName} subscription with ${organizationName} has started`,
    paragraphs: [`Thank you for subscribing to ${productName}.`, billing],
    action: { label: 'Manage your subscription', url: portalUrl },
    ignoreNote: customerNote(organizationName),
  });
}

/** A few days before a trial ends and the first charge falls due. */
export function trialEnding({
  organizationName,
  portalUrl,
  productName,
  amount,
  interval,
  trialEndsAt,
}: SubscriptionFacts & { trialEndsAt: Date }): MailContent {
  return actionMail({
    subject: `Your ${productName} trial ends on ${formatDay(trialEndsAt)}`,
    paragraphs: [
      `Your free trial of ${productName} ends on ${formatDay(trialEndsAt)}.`,
      `Then your card will be charged ${amount}, and every ${interval} after that until you cancel. To change plans or cancel before then, open your subscription.`,
    ],
    action: { label: 'Manage your subscription', url: portalUrl },
    ignoreNote: customerNote(organizationName),
  });
}

/** A week before a yearly renewal: a large charge should come as no surprise. */
export function renewalUpcoming({
  organizationName,
  portalUrl,
  productName,
  amount,
  interval,
  renewsAt,
}: SubscriptionFacts & { renewsAt: Date }): MailContent {
  return actionMail({
    subject: `Your ${productName} subscription renews on ${formatDay(renewsAt)}`,
    paragraphs: [
      `Your ${productName} subscription renews on ${formatDay(renewsAt)}, and your card will be charged ${amount} for the next ${interval}.`,
      'To update your card, change plans or cancel before then, open your subscription.',
    ],
    action: { label: 'Manage your subscription', url: portalUrl },
    ignoreNote: customerNote(organizationName),
  });
}

/** A renewal that had failed is paid after all: the subscription runs on. */
export function paymentRecovered({
  organizationName,
  portalUrl,
  productName,
}: CustomerMailFacts & { productName: string }): MailContent {
  return actionMail({
    subject: `Your ${productName} subscription is active again`,
    paragraphs: [
      `Thank you: the payment for your ${productName} subscription went through, and your subscription is active again.`,
    ],
    action: { label: 'View your subscription', url: portalUrl },
    ignoreNote: customerNote(organizationName),
  });
}

/**
 * A subscription canceled: `endsAt` in the future when it runs to the end of its period
 * ("will cancel"), or the moment it ended.
 */
export function subscriptionCanceled({
  organizationName,
  portalUrl,
  productName,
  endsAt,
  ended,
}: CustomerMailFacts & { productName: string; endsAt: Date; ended: boolean }): MailContent {
  const paragraphs = ended
    ? [`Your ${productName} subscription ended on ${formatDay(endsAt)}.`]
    : [
        `Your ${productName} subscription is canceled and ends on ${formatDay(endsAt)}. You keep access until then, and you will not be charged again.`,
        'Changed your mind? You can resume it from the portal before that day.',
      ];
  return actionMail({
    subject: ended
      ? `Your ${productName} subscription has ended`
      : `Your ${productName} subscription will end on ${formatDay(endsAt)}`,
    paragraphs,
    action: { label: 'View your subscription', url: portalUrl },
    ignoreNote: customerNote(organizationName),
  });
}

/** The card on file expires before the next renewal charge. */
export function cardExpiring({
  organizationName,
  portalUrl,
  productName,
  card,
  validThrough,
  renewsAt,
}: CustomerMailFacts & {
  productName: string;
  /** e.g. `Visa card ending in 4242`. */
  card: string;
  /** The card's expiry as printed on it, `MM/YYYY`. */
  validThrough: string;
  renewsAt: Date;
}): MailContent {
  return actionMail({
    subject: `Update your card before your ${productName} renewal`,
    paragraphs: [
      `Your ${card} (valid through ${validThrough}) expires before your ${productName} subscription renews on ${formatDay(renewsAt)}.`,
      'Add a new card now so that your subscription continues without interruption.',
    ],
    action: { label: 'Update your card', url: portalUrl },
    ignoreNote: customerNote(organizationName),
  });
}
