import { proxyActivities } from '@temporalio/workflow';
import type { CustomerMailActivities } from '../activities/customer-mails.ts';
import type { MailActivities } from '../activities/mail/index.ts';
import type { CustomerSignInInput } from '../processes/customer-mails.ts';
import { mailActivityOptions, stepOptions } from './activity-options.ts';

const steps = proxyActivities<CustomerMailActivities>(stepOptions);
const mail = proxyActivities<MailActivities>(mailActivityOptions);

/**
 * A customer asked for a sign-in link: when a live customer of the organization has that
 * address, a fresh link is mailed to it; otherwise nothing happens (and the asker is not told).
 */
export async function customerSignIn(input: CustomerSignInInput): Promise<void> {
  const message = await steps.customerSignInMail(input);
  if (message) await mail.sendEmail(message);
}
