import type { EntityManager } from '@mikro-orm/core';
import { OutboxEvent } from '../db/entities/index.ts';
import type { CommerceEventType } from '../domain/webhooks.ts';

export { type CommerceEventType, commerceEventTypes } from '../domain/webhooks.ts';

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

/** An outbox event as the mail relays read it (by SQL): its id, type and resource. */
export interface OutboxEventRow {
  id: string;
  type: string;
  data: Record<string, unknown>;
}
