/**
 * The words of a refund, shared by the entity, the API's input schema and the dashboard's refund
 * form (this module has no server-only imports, so the browser bundles it).
 */
export const refundStatuses = ['pending', 'succeeded', 'failed', 'canceled'] as const;
export type RefundStatus = (typeof refundStatuses)[number];

export const refundReasons = [
  'duplicate',
  'fraudulent',
  'customer_request',
  'service_disruption',
  'satisfaction_guarantee',
  'other',
] as const;
export type RefundReason = (typeof refundReasons)[number];
