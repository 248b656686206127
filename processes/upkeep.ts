/**
 * The periodic upkeep: each job a workflow that a Temporal Schedule starts (upkeep-schedules.ts
 * creates the schedules when a worker starts). Ids and type names here, the code in
 * workflows/upkeep.ts.
 */
import { workflowTypes } from './workflow-ids.ts';

/** Each job's schedule id; a run's workflow id is it plus the time the schedule started it. */
export const upkeepScheduleIds = {
  purgeExpired: 'upkeep-purge-expired',
  expireUploads: 'upkeep-expire-uploads',
  customerReminders: 'upkeep-customer-reminders',
  reconcilePayments: 'upkeep-reconcile-payments',
} as const;

export type UpkeepJob = keyof typeof upkeepScheduleIds;

/** Each job's workflow type (processes/workflow-ids.ts names every registered workflow). */
export const upkeepWorkflowTypes = {
  purgeExpired: workflowTypes.upkeepPurgeExpired,
  expireUploads: workflowTypes.upkeepExpireUploads,
  customerReminders: workflowTypes.upkeepCustomerReminders,
  reconcilePayments: workflowTypes.upkeepReconcilePayments,
} as const satisfies Record<UpkeepJob, string>;

export interface PurgeExpiredSummary {
  /** ISO datetime: what had expired by then is gone. */
  before: string;
  sessionsDeleted: number;
  verificationsDeleted: number;
  customerSessionsDeleted: number;
  customerSignInLinksDeleted: number;
  customerMailRecordsDeleted: number;
}

export interface ExpireUploadsSummary {
  before: string;
  uploadsDeleted: number;
}

export interface CustomerRemindersSummary {
  remindersSent: number;
}

export interface ReconcilePaymentsInput {
  /** How far back each run looks: runs overlap, so one that failed is covered by the next. */
  lookbackSeconds: number;
}

export interface ReconcilePaymentsSummary {
  since: string;
  until: string;
  paymentIntentsChecked: number;
  ordersChecked: number;
  mismatches: number;
}
