/**
 * The webhook vocabulary the API and the dashboard's forms check alike (browser-safe: the
 * entities, the outbox and commerce/webhooks/schemas.ts import it from here).
 */

/** The commerce events of the spec (section 4), as webhook endpoints subscribe to them. */
export const commerceEventTypes = [
  'checkout.created',
  'checkout.updated',
  'customer.created',
  'customer.updated',
  'customer.deleted',
  'customer.state_changed',
  'order.created',
  'order.updated',
  'order.paid',
  'order.refunded',
  'subscription.created',
  'subscription.updated',
  'subscription.active',
  'subscription.canceled',
  'subscription.uncanceled',
  'subscription.revoked',
  'refund.created',
  'refund.updated',
  'product.created',
  'product.updated',
  'benefit.created',
  'benefit.updated',
  'benefit_grant.created',
  'benefit_grant.cycled',
  'benefit_grant.updated',
  'benefit_grant.revoked',
  'organization.updated',
] as const;
export type CommerceEventType = (typeof commerceEventTypes)[number];

/** How a delivery's body is shaped: Polar's own JSON, or a Discord or Slack message. */
export const webhookFormats = ['raw', 'discord', 'slack'] as const;
export type WebhookFormat = (typeof webhookFormats)[number];
