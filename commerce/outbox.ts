import type { EntityManager } from '@mikro-orm/core';
import { OutboxEvent } from '../db/entities/index.ts';

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

/**
 * Records an event beside the change it reports: call it inside the transaction that writes the
 * change, with `data` the resource as /v1 answers it. The transaction's flush writes both or neither.
 */
export function appendEvent(
  em: EntityManager,
  organizationId: string,
  type: CommerceEventType,
  data: object,
): OutboxEvent {
  return em.create(OutboxEvent, {
    organization: organizationId,
    type,
    data: data as Record<string, unknown>,
  });
}
