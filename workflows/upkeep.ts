import { proxyActivities } from '@temporalio/workflow';
import type { CustomerMailActivities } from '../activities/customer-mails.ts';
import type { MaintenanceActivities } from '../activities/maintenance.ts';
import type { UpkeepActivities } from '../activities/upkeep.ts';
import type {
  CustomerRemindersSummary,
  ExpireUploadsSummary,
  PurgeExpiredSummary,
  ReconcilePaymentsInput,
  ReconcilePaymentsSummary,
} from '../processes/upkeep.ts';

/**
 * The periodic upkeep, one workflow per job, each started by its Temporal Schedule
 * (processes/upkeep-schedules.ts). Every step deletes, sends or records idempotently, so a run
 * that fails half-way is finished by the next one.
 */

const maintenance = proxyActivities<MaintenanceActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 5 },
});

const customerMails = proxyActivities<CustomerMailActivities>({
  // A pass reads every subscription due a reminder and may look cards up at Stripe.
  startToCloseTimeout: '15 minutes',
  retry: { initialInterval: '10 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

const upkeep = proxyActivities<UpkeepActivities>({
  // Lists a day or two of Stripe's PaymentIntents, page by page.
  startToCloseTimeout: '15 minutes',
  retry: { initialInterval: '30 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
});

/** Signing in leaves records that outlive their use: what has expired by now is deleted. */
export async function upkeepPurgeExpired(): Promise<PurgeExpiredSummary> {
  const before = new Date().toISOString();
  const sessionsDeleted = await maintenance.deleteExpiredSessions(before);
  const verificationsDeleted = await maintenance.deleteExpiredVerifications(before);
  const customerAccess = await maintenance.deleteExpiredCustomerAccess(before);
  const customerMailRecordsDeleted = await maintenance.deleteSpentMailRecords(before);
  return {
    before,
    sessionsDeleted,
    verificationsDeleted,
    customerSessionsDeleted: customerAccess.sessions,
    customerSignInLinksDeleted: customerAccess.signInLinks,
    customerMailRecordsDeleted,
  };
}

/** Files whose upload was never completed in time are deleted, with the parts stored so far. */
export async function upkeepExpireUploads(): Promise<ExpireUploadsSummary> {
  const before = new Date().toISOString();
  return { before, uploadsDeleted: await maintenance.deleteAbandonedUploads(before) };
}

/**
 * Customers hear ahead of time what is coming (a trial ending, a yearly renewal, a card that
 * expires before its next charge); each reminder is sent once however often this runs.
 */
export async function upkeepCustomerReminders(): Promise<CustomerRemindersSummary> {
  return { remindersSent: await customerMails.sendCustomerReminders() };
}

/**
 * Stripe's payments of the last `lookbackSeconds` against the orders: what disagrees is
 * recorded for an operator, and what a later look finds settled is cleared.
 */
export async function upkeepReconcilePayments({
  lookbackSeconds,
}: ReconcilePaymentsInput): Promise<ReconcilePaymentsSummary> {
  const until = new Date();
  const since = new Date(until.getTime() - lookbackSeconds * 1000);
  const window = { since: since.toISOString(), until: until.toISOString() };
  const result = await upkeep.reconcilePayments(window);
  return { ...window, ...result };
}
