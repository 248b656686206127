import { createHash } from 'node:crypto';
import type { EmailMessage, Mailer } from '../../integrations/mail/transport.ts';

export type { EmailMessage };

/**
 * The Message-ID of the mail `id` names: the same id always gives the same Message-ID. Hashed
 * because an id may hold characters a Message-ID cannot; the domain is the sender's.
 */
export function messageIdFor(id: string, from: string): string {
  const domain = /@([^\s<>@]+)>?$/.exec(from)?.[1] ?? 'tollgate.local';
  return `<${createHash('sha256').update(id).digest('hex').slice(0, 32)}@${domain}>`;
}

export function createMailActivities(mailer: Mailer) {
  return {
    /**
     * Hands one mail to the SMTP server. SMTP cannot make this idempotent: when an attempt fails
     * after the server accepted the mail (a timeout waiting for its answer), the retry sends it
     * again. Every attempt carries the same Message-ID, so receivers can tell the copies are one.
     */
    async sendEmail({ id, ...mail }: EmailMessage): Promise<{ messageId: string }> {
      return mailer.send({ ...mail, messageId: messageIdFor(id, mailer.from) });
    },
  };
}

export type MailActivities = ReturnType<typeof createMailActivities>;
