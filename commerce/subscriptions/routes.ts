import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  listPage,
  readMetadataFilter,
  readPage,
  readQueryBoolean,
  readQueryIds,
  readQueryList,
  readSorting,
} from '../http/listing.ts';
import { readIdParam } from '../http/wire.ts';
import { subscriptionSortFields } from './schemas.ts';
import {
  externalIdFilter,
  getSubscription,
  listSubscriptions,
  serializeSubscriptions,
} from './service.ts';

/**
 * /v1/subscriptions, read side: what customers subscribe to. Changing a subscription (cancel,
 * revoke, plan change) comes with the subscriptions issue.
 */
export function subscriptionRoutes({ orm, config }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/subscriptions' });
  const { publicUrl } = config.api;

  router.get('/', scope('subscriptions:read'), async (ctx) => {
    const caller = callerOf(ctx);
    const page = readPage(ctx);
    const sorting = readSorting(ctx, subscriptionSortFields, '-started_at');
    const filter = {
      productIds: readQueryIds(ctx, 'product_id'),
      customerIds: readQueryIds(ctx, 'customer_id'),
      externalCustomerIds: readQueryList(ctx, 'external_customer_id', externalIdFilter),
      discountIds: readQueryIds(ctx, 'discount_id'),
      active: readQueryBoolean(ctx, 'active'),
      metadata: readMetadataFilter(ctx),
    };
    ctx.body = await listPage(
      ctx,
      caller,
      page,
      () => listSubscriptions(orm.em, caller.organizationId, filter, sorting, page),
      (subscriptions) => serializeSubscriptions(orm.em, subscriptions, publicUrl),
    );
  });

  router.get('/:id', scope('subscriptions:read'), async (ctx) => {
    const id = readIdParam(ctx);
    const subscription = await getSubscription(orm.em, callerOf(ctx).organizationId, id);
    const [wire] = await serializeSubscriptions(orm.em, [subscription], publicUrl);
    ctx.body = wire;
  });

  return router;
}
