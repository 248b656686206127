import { z } from 'zod';
import type { Config } from '../../config/env.ts';
import { invalidField } from '../../core/errors.ts';
import type { WebhookDelivery, WebhookEndpoint, WebhookEvent } from '../../db/entities/index.ts';
import {
  type CommerceEventType,
  commerceEventTypes,
  webhookFormats,
} from '../../domain/webhooks.ts';
import { dateTimeInput, dateTimeWireSchema, isoDateTime, isoDateTimeOrNull } from '../wire.ts';

const urlInput = z.string().trim().min(1).max(2048);
/** Polar's (deprecated) own secret: at least 32 characters, kept as given. */
const secretInput = z.string().min(32).max(255);
/** The events to send, each once. */
const eventsInput = z.array(z.enum(commerceEventTypes)).transform((types) => [...new Set(types)]);

export const webhookEndpointCreateInput = z.object({
  url: urlInput,
  format: z.enum(webhookFormats),
  events: eventsInput,
  secret: secretInput.nullish(),
  organization_id: z.uuid().nullish(),
});
export type WebhookEndpointCreateInput = z.infer<typeof webhookEndpointCreateInput>;

/**
 * Polar's `WebhookEndpointUpdate` (absent or null keeps the value), and Tollgate's `enabled`:
 * `true` turns an endpoint disabled after failing back on, and its queued events flow again.
 */
export const webhookEndpointUpdateInput = z.object({
  url: urlInput.nullish(),
  format: z.enum(webhookFormats).nullish(),
  events: eventsInput.nullish(),
  secret: secretInput.nullish(),
  enabled: z.boolean().nullish(),
});
export type WebhookEndpointUpdateInput = z.infer<typeof webhookEndpointUpdateInput>;

/** `start_timestamp` and `end_timestamp` bound deliveries (and replays) by creation time. */
export const timeRangeQuery = z
  .object({
    start_timestamp: dateTimeInput.optional(),
    end_timestamp: dateTimeInput.optional(),
  })
  .loose();

/** Tollgate's replay of an endpoint's events created in a time range (both ends included). */
export const webhookReplayInput = z.object({
  start_timestamp: dateTimeInput,
  end_timestamp: dateTimeInput,
});
export type WebhookReplayInput = z.infer<typeof webhookReplayInput>;

/**
 * Endpoint URLs are https, as in Polar; development and test also take http to the local host,
 * where test receivers listen.
 */
export function checkEndpointUrl(url: string, env: Config['env']) {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw invalidField(['body', 'url'], 'Input should be a valid URL', 'url_parsing');
  }
  const local = ['127.0.0.1', 'localhost', '[::1]'].includes(parsed.hostname);
  const allowed =
    parsed.protocol === 'https:' || (parsed.protocol === 'http:' && local && env !== 'production');
  if (!allowed) throw invalidField(['body', 'url'], "URL scheme should be 'https'", 'url_scheme');
}

/** Polar's `WebhookEndpoint`, with Tollgate's `enabled`. */
export const webhookEndpointWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    url: z.string(),
    format: z.enum(webhookFormats),
    /** Empty except in the answers of create and secret reset. */
    secret: z.string(),
    organization_id: z.uuid(),
    events: z.array(z.enum(commerceEventTypes)),
    enabled: z.boolean(),
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpointWire = z.input<typeof webhookEndpointWireSchema>;

/** Polar's `WebhookEvent`: the payload as the JSON text that was sent. */
export const webhookEventWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    last_http_code: z.int().nullable(),
    succeeded: z.boolean().nullable(),
    payload: z.string(),
    type: z.string(),
    is_archived: z.boolean(),
  })
  .meta({ id: 'WebhookEvent' });

/** Polar's `WebhookDelivery`, with Tollgate's attempt number, duration and failure reason. */
export const webhookDeliveryWireSchema = z
  .object({
    id: z.uuid(),
    created_at: dateTimeWireSchema,
    modified_at: dateTimeWireSchema.nullable(),
    succeeded: z.boolean(),
    http_code: z.int().nullable(),
    response: z.string().nullable(),
    webhook_event: webhookEventWireSchema,
    endpoint_id: z.uuid(),
    attempt: z.int(),
    duration_ms: z.int(),
    error: z.string().nullable(),
  })
  .meta({ id: 'WebhookDelivery' });

/** What a replay requeued (Tollgate's own). */
export const webhookReplayWireSchema = z.object({ requeued: z.int() });

/**
 * Polar's `WebhookEndpoint`. The signing secret is answered only where it was just made (create
 * and reset, `revealSecret`), never on reads: anyone who may read webhooks is not thereby able to
 * forge their events. Elsewhere `secret` is empty, which the SDK's schema (a required string)
 * takes and no verifier mistakes for a key.
 */
export function webhookEndpointWire(
  endpoint: WebhookEndpoint,
  { revealSecret = false }: { revealSecret?: boolean } = {},
): WebhookEndpointWire {
  return {
    id: endpoint.id,
    created_at: isoDateTime(endpoint.createdAt),
    modified_at: isoDateTimeOrNull(endpoint.modifiedAt),
    url: endpoint.url,
    format: endpoint.format,
    secret: revealSecret ? endpoint.secret : '',
    organization_id: endpoint.organization.id,
    // Only types the create and update inputs took are stored.
    events: endpoint.events as CommerceEventType[],
    // Tollgate's: false once the endpoint failed past the threshold (see the update's `enabled`).
    enabled: endpoint.enabled,
  };
}

export function webhookEventWire(event: WebhookEvent): z.input<typeof webhookEventWireSchema> {
  return {
    id: event.id,
    created_at: isoDateTime(event.createdAt),
    modified_at: isoDateTimeOrNull(event.modifiedAt),
    last_http_code: event.lastHttpCode ?? null,
    succeeded: event.succeeded ?? null,
    payload: event.payload,
    type: event.type,
    is_archived: event.isArchived,
  };
}

/** Polar's `WebhookDelivery`, with Tollgate's attempt number, duration and failure reason. */
export function webhookDeliveryWire(
  delivery: WebhookDelivery,
): z.input<typeof webhookDeliveryWireSchema> {
  return {
    id: delivery.id,
    created_at: isoDateTime(delivery.createdAt),
    modified_at: isoDateTimeOrNull(delivery.modifiedAt),
    succeeded: delivery.succeeded,
    http_code: delivery.httpCode ?? null,
    response: delivery.response ?? null,
    webhook_event: webhookEventWire(delivery.webhookEvent),
    endpoint_id: delivery.endpoint.id,
    attempt: delivery.attempt,
    duration_ms: delivery.durationMs,
    error: delivery.error ?? null,
  };
}
