// The workflow bundle's entry point: every workflow the worker runs is exported here.

export { benefitGrant } from './benefit-grant.ts';
export { checkout } from './checkout.ts';
export { customerReminders } from './customer-reminders.ts';
export { customerSignIn } from './customer-sign-in.ts';
export { invitation } from './invitation.ts';
export { purgeExpiredRecords } from './purge-expired-records.ts';
export { refund } from './refund.ts';
export { sendEmail } from './send-email.ts';
export { subscription } from './subscription.ts';
export { testClockAdvance } from './test-clock-advance.ts';
export {
  upkeepCustomerReminders,
  upkeepExpireUploads,
  upkeepPurgeExpired,
  upkeepReconcilePayments,
} from './upkeep.ts';
export { webhookEndpoint } from './webhook-endpoint.ts';
