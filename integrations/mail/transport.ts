import nodemailer from 'nodemailer';
import type { RuntimeConfig } from '../../config/env.ts';

/** What a mail says, as the templates make it. */
export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

/** A mail to send, under the caller's stable name (its copies all carry one Message-ID). */
export interface EmailMessage extends MailContent {
  /** The caller's stable name for this mail, e.g. `verify-email:<token id>`. */
  id: string;
  to: string;
}

export interface OutgoingMail extends MailContent {
  to: string;
  /** `<unique@domain>`; without one, nodemailer makes a random one. */
  messageId?: string;
}

export interface Mailer {
  /** The sender of every mail, `Name <address>` or a bare address. */
  from: string;
  /** Resolves once the SMTP server has accepted the mail. */
  send(mail: OutgoingMail): Promise<{ messageId: string }>;
}

export type MailerSettings = Pick<RuntimeConfig['mail'], 'smtpUrl' | 'from'>;

/**
 * Sends mail through the SMTP server at `smtpUrl`: a relay in production, the capture server
 * (devstack/smtp-capture.ts) under `npm start` and `npm test`. One connection per mail.
 */
export function createMailer({ smtpUrl, from }: MailerSettings): Mailer {
  const transport = nodemailer.createTransport({
    url: smtpUrl,
    // An unreachable relay fails the attempt quickly; the workflow's retry policy waits it out.
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    from,
    async send({ to, subject, text, html, messageId }) {
      const sent = await transport.sendMail({ from, to, subject, text, html, messageId });
      return { messageId: sent.messageId };
    },
  };
}
