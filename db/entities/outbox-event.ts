import { defineEntity, p } from '@mikro-orm/core';
import { idColumn } from './columns.ts';
import { Organization } from './organization.ts';

/**
 * A commerce event (`product.created`, `customer.updated`, ...) written in the same transaction
 * as the change it reports. `data` is the resource as /v1 answers it at that moment; webhook
 * delivery and the dashboard read from here.
 */
const OutboxEventSchema = defineEntity({
  name: 'OutboxEvent',
  tableName: 'outbox_events',
  indexes: [{ properties: ['organization', 'createdAt'] }],
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade'),
    type: p.string(),
    data: p.json<Record<string, unknown>>(),
    createdAt: p.datetime().onCreate(() => new Date()),
    /** Set once the webhook relay has turned the event into its deliveries. */
    relayedAt: p.datetime().nullable(),
  },
});

export class OutboxEvent extends OutboxEventSchema.class {}
OutboxEventSchema.setClass(OutboxEvent);
