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

/**
 * How deliveries are made, decided by the process that queues them (the relay) and carried in
 * the endpoint workflow's input, so a test can shorten the schedule without touching the clock.
 */
export interface WebhookDeliverySettings {
  /**
   * The wait after each consecutive failed attempt, before the next one (each ±20% at random).
   * One more failure than it has entries disables the endpoint. The default, from
   * TOLLGATE_WEBHOOK_RETRY_DELAYS: 10 s, 1 min, 5 min, 30 min, 2 h, 6 h, 12 h, 24 h, 24 h —
   * ten attempts over about 2.9 days, so an endpoint down for a weekend still gets everything.
   */
  retryDelaysMs: number[];
  /** An attempt without a complete answer head by then fails. */
  timeoutMs: number;
  /** Refuse URLs whose host resolves to an internal address (on in production: SSRF). */
  guardAddresses: boolean;
  /** The dashboard, linked from the mail telling owners an endpoint was disabled. */
  dashboardUrl: string;
}
