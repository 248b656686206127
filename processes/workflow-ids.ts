/**
 * Deterministic workflow ids: the same request always names the same workflow, so a retried
 * API call finds the running one instead of starting a second.
 */
export const workflowIds = {
  purgeExpiredRecords: (before: Date) => `purge-expired:${before.toISOString()}`,
  email: (id: string) => `email:${id}`,
  /** One per sign-in request of a customer (a random id: requests are never merged). */
  customerSignIn: (requestId: string) => `customer-sign-in:${requestId}`,
  /** The customer reminders' one run from before their schedule (processes/upkeep-schedules.ts). */
  customerReminders: () => 'customer-reminders',
  invitation: (id: string) => `invitation:${id}`,
  checkout: (id: string) => `checkout:${id}`,
  subscription: (id: string) => `subscription:${id}`,
  refund: (id: string) => `refund:${id}`,
  /** One per clock and target time: advancing twice to the same time wakes the subscriptions once. */
  testClockAdvance: (clockId: string, frozenTime: Date) =>
    `test-clock:${clockId}:${frozenTime.toISOString()}`,
  /** One per customer and benefit: granting twice finds the running grant. */
  benefitGrant: (customerId: string, benefitId: string) => `grant:${customerId}:${benefitId}`,
  /** One per webhook endpoint: the relay wakes the running one (processes/webhook-relay.ts). */
  webhookEndpoint: (endpointId: string) => `webhook-endpoint:${endpointId}`,
} as const;

/** The workflows' type names, as the worker registers them (workflows/index.ts exports them). */
export const workflowTypes = {
  benefitGrant: 'benefitGrant',
  checkout: 'checkout',
  customerReminders: 'customerReminders',
  customerSignIn: 'customerSignIn',
  invitation: 'invitation',
  purgeExpiredRecords: 'purgeExpiredRecords',
  refund: 'refund',
  sendEmail: 'sendEmail',
  subscription: 'subscription',
  testClockAdvance: 'testClockAdvance',
  upkeepCustomerReminders: 'upkeepCustomerReminders',
  upkeepExpireUploads: 'upkeepExpireUploads',
  upkeepPurgeExpired: 'upkeepPurgeExpired',
  upkeepReconcilePayments: 'upkeepReconcilePayments',
  webhookEndpoint: 'webhookEndpoint',
} as const;
