import type { EntityManager } from '@mikro-orm/core';
import type { Config } from '../../config/env.ts';
import {
  Organization,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEvent,
} from '../../db/entities/index.ts';
import { findPage, type ListQuery, newestFirst } from '../../db/listing.ts';
import { resourceNotFound } from '../errors.ts';
import { organizationWire } from '../organizations/schemas.ts';
import { webhookBody } from './payloads.ts';
import { announceQueued } from './queue.ts';
import {
  checkEndpointUrl,
  type WebhookEndpointCreateInput,
  type WebhookEndpointUpdateInput,
  type WebhookReplayInput,
} from './schemas.ts';
import { generateWebhookSecret } from './signing.ts';

export async function createWebhookEndpoint(
  em: EntityManager,
  organizationId: string,
  input: WebhookEndpointCreateInput,
  env: Config['env'],
): Promise<WebhookEndpoint> {
  checkEndpointUrl(input.url, env);
  const endpoint = em.create(WebhookEndpoint, {
    organization: organizationId,
    url: input.url,
    format: input.format,
    events: input.events,
    secret: input.secret ?? generateWebhookSecret(),
  });
  await em.flush();
  return endpoint;
}

export function listWebhookEndpoints(
  em: EntityManager,
  organizationId: string,
  { page }: ListQuery,
): Promise<[WebhookEndpoint[], number]> {
  return findPage(em, WebhookEndpoint, {
    where: [{ organization: organizationId }],
    thenBy: newestFirst,
    page,
  });
}

/** An endpoint of the organization; other organizations' are not found. */
export async function getWebhookEndpoint(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<WebhookEndpoint> {
  const endpoint = await em.findOne(WebhookEndpoint, { id, organization: organizationId });
  if (!endpoint) throw resourceNotFound('Webhook endpoint not found');
  return endpoint;
}

/**
 * Applies the given fields; `enabled: true` on a disabled endpoint starts its count of failures
 * afresh and sends its queued events again.
 */
export async function updateWebhookEndpoint(
  em: EntityManager,
  organizationId: string,
  id: string,
  input: WebhookEndpointUpdateInput,
  env: Config['env'],
): Promise<WebhookEndpoint> {
  if (input.url != null) checkEndpointUrl(input.url, env);
  return em.transactional(async (tx) => {
    const endpoint = await getWebhookEndpoint(tx, organizationId, id);
    if (input.url != null) endpoint.url = input.url;
    if (input.format != null) endpoint.format = input.format;
    if (input.events != null) endpoint.events = input.events;
    if (input.secret != null) endpoint.secret = input.secret;
    if (input.enabled === false && endpoint.enabled) {
      endpoint.enabled = false;
      endpoint.disabledAt = new Date();
      endpoint.disabledReason = 'disabled through the API';
    }
    if (input.enabled === true && !endpoint.enabled) {
      endpoint.enabled = true;
      endpoint.disabledAt = null;
      endpoint.disabledReason = null;
      endpoint.consecutiveFailures = 0;
      await announceQueued(tx, endpoint.id);
    }
    return endpoint;
  });
}

/** A new generated secret: deliveries from now on are signed with it. */
export async function resetWebhookEndpointSecret(
  em: EntityManager,
  organizationId: string,
  id: string,
): Promise<WebhookEndpoint> {
  const endpoint = await getWebhookEndpoint(em, organizationId, id);
  endpoint.secret = generateWebhookSecret();
  await em.flush();
  return endpoint;
}

/** Deletes the endpoint with its queue and delivery log; its workflow then stops. */
export async function deleteWebhookEndpoint(em: EntityManager, organizationId: string, id: string) {
  const endpoint = await getWebhookEndpoint(em, organizationId, id);
  await em.nativeDelete(WebhookEndpoint, { id: endpoint.id });
}

export interface DeliveryFilter {
  endpointIds: string[];
  start: Date | undefined;
  end: Date | undefined;
}

/** A page of the organization's delivery attempts, newest first, with their events. */
export function listWebhookDeliveries(
  em: EntityManager,
  organizationId: string,
  { endpointIds, start, end, page }: ListQuery<DeliveryFilter>,
): Promise<[WebhookDelivery[], number]> {
  return findPage(em, WebhookDelivery, {
    where: [
      {
        endpoint: {
          organization: organizationId,
          ...(endpointIds.length > 0 && { id: { $in: endpointIds } }),
        },
      },
      (start || end) && {
        createdAt: { ...(start && { $gte: start }), ...(end && { $lte: end }) },
      },
    ],
    thenBy: newestFirst,
    page,
    populate: ['webhookEvent'],
  });
}

/**
 * Queues a webhook event again, whatever became of it: it is sent before the endpoint's events
 * queued after it (the queue is in creation order), as soon as the endpoint is enabled.
 */
export async function redeliverWebhookEvent(
  em: EntityManager,
  organizationId: string,
  eventId: string,
): Promise<void> {
  await em.transactional(async (tx) => {
    const event = await tx.findOne(WebhookEvent, {
      id: eventId,
      endpoint: { organization: organizationId },
    });
    if (!event) throw resourceNotFound('Webhook event not found');
    event.succeeded = null;
    event.nextAttemptAt = null;
    await announceQueued(tx, event.endpoint.id);
  });
}

/**
 * Tollgate's test event (Polar has none): queues to the endpoint, whatever events it subscribes
 * to, an `organization.updated` event carrying the organization as it is, in the endpoint's
 * format, sent and logged like any other, so the seller sees what their receiver answers. A
 * real event type, because Polar's SDK refuses unknown ones (its receivers' validateEvent, its
 * delivery log's schema); this one changes nothing a receiver keeps. Answers the queued event.
 */
export async function sendTestWebhookEvent(
  em: EntityManager,
  organizationId: string,
  endpointId: string,
): Promise<WebhookEvent> {
  return em.transactional(async (tx) => {
    const endpoint = await getWebhookEndpoint(tx, organizationId, endpointId);
    const organization = organizationWire(await tx.findOneOrFail(Organization, organizationId));
    const now = new Date();
    const type = 'organization.updated';
    const event = tx.create(WebhookEvent, {
      endpoint,
      type,
      payload: webhookBody(endpoint.format, type, now.toISOString(), organization),
      createdAt: now,
    });
    await tx.flush();
    await announceQueued(tx, endpoint.id);
    return event;
  });
}

/**
 * Tollgate's manual replay (Polar has none): every event of the endpoint created in the range
 * is queued again and sent in its original order. Answers how many.
 */
export async function replayWebhookEvents(
  em: EntityManager,
  organizationId: string,
  endpointId: string,
  { start_timestamp, end_timestamp }: WebhookReplayInput,
): Promise<number> {
  return em.transactional(async (tx) => {
    const endpoint = await getWebhookEndpoint(tx, organizationId, endpointId);
    const requeued = await tx.nativeUpdate(
      WebhookEvent,
      {
        endpoint: endpoint.id,
        createdAt: { $gte: start_timestamp, $lte: end_timestamp },
        succeeded: { $ne: null },
      },
      { succeeded: null, nextAttemptAt: null, modifiedAt: new Date() },
    );
    if (requeued > 0) await announceQueued(tx, endpoint.id);
    return requeued;
  });
}
