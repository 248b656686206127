// The workflow bundle's entry point: every workflow the worker runs is exported here.

export { benefitGrant } from './benefit-grant.ts';
export { checkout } from './checkout.ts';
export { invitation } from './invitation.ts';
export { purgeExpiredRecords } from './purge-expired-records.ts';
export { sendEmail } from './send-email.ts';
export { webhookEndpoint } from './webhook-endpoint.ts';
