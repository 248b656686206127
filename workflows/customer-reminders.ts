import { continueAsNew, log, proxyActivities, sleep } from '@temporalio/workflow';
import type { CustomerMailActivities } from '../activities/customer-mails.ts';

const { sendCustomerReminders } = proxyActivities<CustomerMailActivities>({
  // A pass reads every subscription due a reminder and may look cards up at Stripe.
  startToCloseTimeout: '15 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** How often reminders are looked for: a reminder is due days ahead, an hour late is fine. */
const interval = '1 hour';
/** Passes per run before the history starts over (continue-as-new keeps it short). */
const passesPerRun = 24;

/**
 * Sends the customer reminders that fell due (trial ending, yearly renewal, card expiring), once
 * an hour, for ever. One runs (`customer-reminders`, started by the worker); each reminder is
 * sent once however often a pass finds it.
 */
export async function customerReminders(): Promise<void> {
  for (let pass = 0; pass < passesPerRun; pass++) {
    try {
      await sendCustomerReminders();
    } catch (error) {
      // The next pass finds what this one missed.
      log.warn('customer reminders pass failed', { error });
    }
    await sleep(interval);
  }
  await continueAsNew<typeof customerReminders>();
}
