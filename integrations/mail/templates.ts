import type { MailContent } from './transport.ts';

const htmlEntities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Makes text safe inside HTML elements and double- or single-quoted attributes. */
export const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (character) => htmlEntities[character] ?? character);

export interface ActionMail {
  subject: string;
  /** What happened and what the link does, one paragraph each. */
  paragraphs: string[];
  action: { label: string; url: string };
  /** What to do if the reader did not ask for this mail. */
  ignoreNote: string;
}

/** The one shape every account mail has: a few sentences, a link, a note; as text and as HTML. */
export function actionMail({ subject, paragraphs, action, ignoreNote }: ActionMail): MailContent {
  const text = [...paragraphs, `${action.label}:\n${action.url}`, ignoreNote].join('\n\n');
  const html = `<!doctype html>
<html>
<body style="font-family: sans-serif; line-height: 1.5; color: #1f2328">
${paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')}
<p><a href="${escapeHtml(action.url)}">${escapeHtml(action.label)}</a></p>
<p style="color: #59636e">If the link does not open, copy this address into your browser:<br>
${escapeHtml(action.url)}</p>
<p style="color: #59636e">${escapeHtml(ignoreNote)}</p>
</body>
</html>
`;
  return { subject, text, html };
}

export function verifyEmail({ url }: { url: string }): MailContent {
  return actionMail({
    subject: 'Verify your email address',
    paragraphs: [
      'Confirm that this is your email address to finish setting up your Tollgate account.',
    ],
    action: { label: 'Verify email address', url },
    ignoreNote: 'If you did not create a Tollgate account, you can ignore this email.',
  });
}

export function resetPassword({ url }: { url: string }): MailContent {
  return actionMail({
    subject: 'Reset your password',
    paragraphs: ['Someone asked to reset the password of your Tollgate account.'],
    action: { label: 'Choose a new password', url },
    ignoreNote: 'If that was not you, ignore this email: your password stays as it is.',
  });
}

export function confirmAccountDeletion({ url }: { url: string }): MailContent {
  return actionMail({
    subject: 'Confirm deleting your account',
    paragraphs: [
      'You asked to delete your Tollgate account.',
      'Deleting it removes your data and cannot be undone.',
    ],
    action: { label: 'Delete my account', url },
    ignoreNote: 'If you did not ask for this, ignore this email: your account stays.',
  });
}

export function confirmEmailChange({
  url,
  newEmail,
}: {
  url: string;
  newEmail: string;
}): MailContent {
  return actionMail({
    subject: 'Confirm your new email address',
    paragraphs: [`You asked to change the email address of your Tollgate account to ${newEmail}.`],
    action: { label: 'Confirm the change', url },
    ignoreNote: 'If you did not ask for this, ignore this email: your address stays as it is.',
  });
}

/** A mail that only tells something: a few sentences, as text and as HTML. */
export function noticeMail({ subject, paragraphs }: { subject: string; paragraphs: string[] }) {
  const html = `<!doctype html>
<html>
<body style="font-family: sans-serif; line-height: 1.5; color: #1f2328">
${paragraphs.map((paragraph) => `<p>${escapeHtml(paragraph)}</p>`).join('\n')}
</body>
</html>
`;
  return { subject, text: paragraphs.join('\n\n'), html };
}

export interface InvitationMailFacts {
  organizationName: string;
  inviterEmail: string;
  role: string;
  expiresAt: Date;
  url: string;
}

export function invitation({
  organizationName,
  inviterEmail,
  role,
  expiresAt,
  url,
}: InvitationMailFacts): MailContent {
  return actionMail({
    subject: `You are invited to join ${organizationName} on Tollgate`,
    paragraphs: [
      `${inviterEmail} invited you to join ${organizationName} on Tollgate as ${role}.`,
      `The invitation is valid until ${expiresAt.toUTCString()}.`,
    ],
    action: { label: 'Accept the invitation', url },
    ignoreNote: 'If you do not want to join, ignore this email: the invitation will expire.',
  });
}

export function invitationReminder({
  organizationName,
  inviterEmail,
  role,
  expiresAt,
  url,
}: InvitationMailFacts): MailContent {
  return actionMail({
    subject: `Reminder: your invitation to join ${organizationName} expires soon`,
    paragraphs: [
      `${inviterEmail} invited you to join ${organizationName} on Tollgate as ${role}.`,
      `The invitation expires on ${expiresAt.toUTCString()}.`,
    ],
    action: { label: 'Accept the invitation', url },
    ignoreNote: 'If you do not want to join, ignore this email: the invitation will expire.',
  });
}

/** To the inviter, once nobody answered in time. */
export function invitationExpired({
  organizationName,
  inviteeEmail,
}: {
  organizationName: string;
  inviteeEmail: string;
}): MailContent {
  return noticeMail({
    subject: `Your invitation of ${inviteeEmail} to ${organizationName} expired`,
    paragraphs: [
      `The invitation you sent to ${inviteeEmail} to join ${organizationName} on Tollgate expired without an answer.`,
      'To give them another chance, invite them again.',
    ],
  });
}

/**
 * To a subscriber whose renewal charge failed: what failed, what happens next, and the link
 * that opens their portal on the subscription to fix it (a new card, or, when the bank asks
 * for it, authenticating this payment).
 */
export function subscriptionPaymentFailed({
  organizationName,
  productName,
  amount,
  reason,
  nextAttemptAt,
  authenticationRequired,
  fixUrl,
}: {
  organizationName: string;
  productName: string;
  /** Formatted, with its currency. */
  amount: string;
  /** Why it failed, readable (see domain/decline-reasons.ts). */
  reason: string;
  /** The next retry; null when none follows (the subscription ends or waits for the seller). */
  nextAttemptAt: Date | null;
  /** The bank declined only because the card holder must authenticate (3-D Secure). */
  authenticationRequired: boolean;
  /** Signs the customer into the portal on this subscription. */
  fixUrl: string;
}): MailContent {
  const next = nextAttemptAt
    ? `Otherwise we will try again on ${nextAttemptAt.toUTCString()}.`
    : `Otherwise we will not try again, and your subscription will not renew.`;
  if (authenticationRequired) {
    return actionMail({
      subject: `Authenticate your payment of ${amount} for ${productName}`,
      paragraphs: [
        `Your bank asks you to confirm the payment of ${amount} that renews your ${productName} subscription with ${organizationName}.`,
        `Open the link below to authenticate this payment. ${next}`,
      ],
      action: { label: 'Authenticate this payment', url: fixUrl },
      ignoreNote: 'The link signs you in once and expires in a week.',
    });
  }
  return actionMail({
    subject: `Your payment of ${amount} for ${productName} failed`,
    paragraphs: [
      `We could not charge your card ${amount} to renew your ${productName} subscription with ${organizationName}: ${reason}`,
      `Update your payment method to pay now and keep your subscription. ${next}`,
    ],
    action: { label: 'Update your payment method', url: fixUrl },
    ignoreNote: 'The link signs you in once and expires in a week.',
  });
}

/** To a subscriber whose renewal failed, sent by the seller: the link to update their card. */
export function subscriptionUpdateCard({
  organizationName,
  productName,
  amount,
  fixUrl,
}: {
  organizationName: string;
  productName: string;
  amount: string;
  fixUrl: string;
}): MailContent {
  return actionMail({
    subject: `Update your payment method for ${productName}`,
    paragraphs: [
      `${organizationName} could not collect ${amount} to renew your ${productName} subscription.`,
      'Open the link below to add a card and pay now: your subscription carries on as before.',
    ],
    action: { label: 'Update your payment method', url: fixUrl },
    ignoreNote: 'The link signs you in once and expires in a week.',
  });
}
