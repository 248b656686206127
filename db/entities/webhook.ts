import { defineEntity, p } from '@mikro-orm/core';
import { webhookFormats } from '../../domain/webhooks.ts';
import { commerceTimestampColumns, idColumn } from './columns.ts';
import { Organization } from './organization.ts';
import { OutboxEvent } from './outbox-event.ts';

export { type WebhookFormat, webhookFormats } from '../../domain/webhooks.ts';

/** A seller's URL that receives the events it subscribes to, signed with its `whsec_` secret. */
const WebhookEndpointSchema = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: {
    id: idColumn(),
    organization: () => p.manyToOne(Organization).deleteRule('cascade').index(),
    url: p.text(),
    format: p.enum(webhookFormats),
    /** Needed in clear to sign every delivery, and answered in full on reads (as Polar does). */
    secret: p.string(),
    events: p.array<string>(),
    enabled: p.boolean().default(true),
    disabledAt: p.datetime().nullable(),
    disabledReason: p.string().nullable(),
    consecutiveFailures: p.integer().default(0),
    ...commerceTimestampColumns(),
  },
});

export class WebhookEndpoint extends WebhookEndpointSchema.class {}
WebhookEndpointSchema.setClass(WebhookEndpoint);

/**
 * One event to deliver to one endpoint (its id is the `webhook-id` header): the payload is
 * fixed when the event is relayed, so every attempt sends the same bytes.
 */
const WebhookEventSchema = defineEntity({
  name: 'WebhookEvent',
  tableName: 'webhook_events',
  uniques: [{ properties: ['endpoint', 'outboxEvent'] }],
  indexes: [{ properties: ['endpoint', 'createdAt'] }],
  properties: {
    id: idColumn(),
    endpoint: () => p.manyToOne(WebhookEndpoint).deleteRule('cascade'),
    outboxEvent: () => p.manyToOne(OutboxEvent).nullable().deleteRule('set null').index(),
    type: p.string(),
    payload: p.text(),
    succeeded: p.boolean().nullable(),
    lastHttpCode: p.integer().nullable(),
    attempts: p.integer().default(0),
    nextAttemptAt: p.datetime().nullable(),
    isArchived: p.boolean().default(false),
    ...commerceTimestampColumns(),
  },
});

export class WebhookEvent extends WebhookEventSchema.class {}
WebhookEventSchema.setClass(WebhookEvent);

/** One attempt at delivering a webhook event: what the endpoint answered and how long it took. */
const WebhookDeliverySchema = defineEntity({
  name: 'WebhookDelivery',
  tableName: 'webhook_deliveries',
  indexes: [{ properties: ['endpoint', 'createdAt'] }],
  properties: {
    id: idColumn(),
    webhookEvent: () => p.manyToOne(WebhookEvent).deleteRule('cascade').index(),
    endpoint: () => p.manyToOne(WebhookEndpoint).deleteRule('cascade'),
    attempt: p.integer(),
    succeeded: p.boolean(),
    httpCode: p.integer().nullable(),
    /** The first 2,048 characters of the answer's body. */
    response: p.text().nullable(),
    error: p.text().nullable(),
    durationMs: p.integer(),
    ...commerceTimestampColumns(),
  },
});

export class WebhookDelivery extends WebhookDeliverySchema.class {}
WebhookDeliverySchema.setClass(WebhookDelivery);
