import { defineSignal } from '@temporalio/workflow';
import type { WebhookDeliverySettings } from '../domain/webhooks.ts';

/** The input of an endpoint's delivery workflow (`webhook-endpoint:<id>`). */
export interface WebhookEndpointInput {
  endpointId: string;
  settings: WebhookDeliverySettings;
  /** The task queue of the delivery activities: a queue of their own, so that endpoints that
   * hang hold none of the business activities' slots. */
  deliveryTaskQueue: string;
}

/** Sent (with start) by the relay whenever the endpoint has new or requeued events. */
export const webhookEventsQueued = defineSignal('webhookEventsQueued');
