import { proxyActivities } from '@temporalio/workflow';
import type { EmailMessage, MailActivities } from '../activities/mail/index.ts';
import { mailActivityOptions } from './activity-options.ts';

const mail = proxyActivities<MailActivities>(mailActivityOptions);

/**
 * Sends one mail. Start it with `workflowIds.email(message.id)`: a second start of the same mail
 * is refused while the first runs (and for good with `workflowIdReusePolicy: 'REJECT_DUPLICATE'`),
 * and every attempt carries the same Message-ID.
 */
export async function sendEmail(message: EmailMessage): Promise<{ messageId: string }> {
  return mail.sendEmail(message);
}
