import { type ActivityOptions, proxyActivities } from '@temporalio/workflow';
import type { EmailMessage, MailActivities } from '../activities/mail/index.ts';

/**
 * How every workflow sends mail. Ten attempts, waiting 1 s, 2 s, 4 s ... up to 5 min in between:
 * rides out about nine minutes of an unreachable or refusing SMTP server.
 */
export const mailActivityOptions: ActivityOptions = {
  startToCloseTimeout: '1 minute',
  retry: {
    initialInterval: '1 second',
    backoffCoefficient: 2,
    maximumInterval: '5 minutes',
    maximumAttempts: 10,
  },
};

const mail = proxyActivities<MailActivities>(mailActivityOptions);

/**
 * Sends one mail. Start it with `workflowIds.email(message.id)`: a second start of the same mail
 * is refused while the first runs (and for good with `workflowIdReusePolicy: 'REJECT_DUPLICATE'`),
 * and every attempt carries the same Message-ID.
 */
export async function sendEmail(message: EmailMessage): Promise<{ messageId: string }> {
  return mail.sendEmail(message);
}
