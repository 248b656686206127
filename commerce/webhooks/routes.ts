import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  fieldParameter,
  idsParameter,
  listParameters,
  listRoute,
  pageParameters,
} from '../http/listing.ts';
import { parseCreateBody, readIdParam } from '../http/request.ts';
import {
  timeRangeQuery,
  webhookDeliveryWire,
  webhookEndpointCreateInput,
  webhookEndpointUpdateInput,
  webhookEndpointWire,
  webhookEventWire,
  webhookReplayInput,
} from './schemas.ts';
import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  getWebhookEndpoint,
  listWebhookDeliveries,
  listWebhookEndpoints,
  redeliverWebhookEvent,
  replayWebhookEvents,
  resetWebhookEndpointSecret,
  sendTestWebhookEvent,
  updateWebhookEndpoint,
} from './service.ts';

/** The query of the endpoint list (documented by webhooks:list_webhook_endpoints). */
export const webhookEndpointListParameters = listParameters({
  page: pageParameters,
  organizationIds: idsParameter('organization_id'),
});

/** The query of the delivery list (documented by webhooks:list_webhook_deliveries). */
export const webhookDeliveryListParameters = listParameters({
  endpointIds: idsParameter('endpoint_id'),
  start: fieldParameter(timeRangeQuery, 'start_timestamp'),
  end: fieldParameter(timeRangeQuery, 'end_timestamp'),
  page: pageParameters,
  organizationIds: idsParameter('organization_id'),
});

/**
 * /v1/webhooks: the endpoints a seller's events are sent to, the log of every delivery attempt,
 * redelivery of one event and (Tollgate's) replay of a time range and test events. Delivery itself runs in the
 * worker: processes/webhook-relay.ts and workflows/webhook-endpoint.ts.
 */
export function webhookRoutes({ orm, config }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/webhooks' });

  router.get(
    '/endpoints',
    scope('webhooks:read'),
    listRoute({
      query: webhookEndpointListParameters,
      list: (caller, query) => listWebhookEndpoints(orm.em, caller.organizationId, query),
      serialize: (endpoints) => endpoints.map((endpoint) => webhookEndpointWire(endpoint)),
    }),
  );

  router.post('/endpoints', scope('webhooks:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseCreateBody(ctx, webhookEndpointCreateInput, caller);
    const endpoint = await createWebhookEndpoint(orm.em, caller.organizationId, input, config.env);
    ctx.status = 201;
    ctx.body = webhookEndpointWire(endpoint, { revealSecret: true });
  });

  router.get('/endpoints/:id', scope('webhooks:read'), async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = webhookEndpointWire(
      await getWebhookEndpoint(orm.em, callerOf(ctx).organizationId, id),
    );
  });

  router.patch('/endpoints/:id', scope('webhooks:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const input = parseBody(ctx, webhookEndpointUpdateInput);
    const organizationId = callerOf(ctx).organizationId;
    ctx.body = webhookEndpointWire(
      await updateWebhookEndpoint(orm.em, organizationId, id, input, config.env),
    );
  });

  router.delete('/endpoints/:id', scope('webhooks:write'), async (ctx) => {
    const id = readIdParam(ctx);
    await deleteWebhookEndpoint(orm.em, callerOf(ctx).organizationId, id);
    ctx.status = 204;
  });

  router.patch('/endpoints/:id/secret', scope('webhooks:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const endpoint = await resetWebhookEndpointSecret(orm.em, callerOf(ctx).organizationId, id);
    ctx.body = webhookEndpointWire(endpoint, { revealSecret: true });
  });

  /** Tollgate's: `{start_timestamp, end_timestamp}` → 202 `{requeued}` (events sent again). */
  router.post('/endpoints/:id/replay', scope('webhooks:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const range = parseBody(ctx, webhookReplayInput);
    const requeued = await replayWebhookEvents(orm.em, callerOf(ctx).organizationId, id, range);
    ctx.status = 202;
    ctx.body = { requeued };
  });

  /** Tollgate's: queues a test event (`organization.updated`) to the endpoint → 202 with it. */
  router.post('/endpoints/:id/test', scope('webhooks:write'), async (ctx) => {
    const id = readIdParam(ctx);
    const event = await sendTestWebhookEvent(orm.em, callerOf(ctx).organizationId, id);
    ctx.status = 202;
    ctx.body = webhookEventWire(event);
  });

  router.get(
    '/deliveries',
    scope('webhooks:read'),
    listRoute({
      query: webhookDeliveryListParameters,
      list: (caller, query) => listWebhookDeliveries(orm.em, caller.organizationId, query),
      serialize: (deliveries) => deliveries.map(webhookDeliveryWire),
    }),
  );

  // Polar answers 202 with a JSON body the SDK parses: `null`.
  router.post('/events/:id/redeliver', scope('webhooks:write'), async (ctx) => {
    const id = readIdParam(ctx);
    await redeliverWebhookEvent(orm.em, callerOf(ctx).organizationId, id);
    ctx.status = 202;
    ctx.type = 'json';
    ctx.body = 'null';
  });

  return router;
}
