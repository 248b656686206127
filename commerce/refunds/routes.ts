import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { startRefund } from '../../processes/starters.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  listRoute,
  readPage,
  readQueryBoolean,
  readQueryIds,
  readSorting,
} from '../http/listing.ts';
import { readIdParam } from '../http/request.ts';
import { refundCreateInput, refundSortFields, refundWire } from './schemas.ts';
import { createRefund, getRefund, listRefunds } from './service.ts';

/** /v1/refunds: money given back on orders, each carried out by its workflow (§4.13). */
export function refundRoutes({ orm, temporal }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/refunds' });
  const startWorkflow = (refundId: string) => startRefund(temporal, refundId);

  router.get(
    '/',
    scope('refunds:read'),
    listRoute({
      read: (ctx) => ({
        ids: readQueryIds(ctx, 'id'),
        orderIds: readQueryIds(ctx, 'order_id'),
        subscriptionIds: readQueryIds(ctx, 'subscription_id'),
        customerIds: readQueryIds(ctx, 'customer_id'),
        succeeded: readQueryBoolean(ctx, 'succeeded'),
        sorting: readSorting(ctx, refundSortFields, '-created_at'),
        page: readPage(ctx),
      }),
      list: (caller, query) => listRefunds(orm.em, caller.organizationId, query),
      serialize: (refunds) => refunds.map(refundWire),
    }),
  );

  // Pending until its workflow settles it; 200, not 201: Polar's SDK reads a 201 as empty.
  router.post('/', scope('refunds:write'), async (ctx) => {
    const caller = callerOf(ctx);
    const input = parseBody(ctx, refundCreateInput);
    ctx.body = refundWire(await createRefund(orm.em, caller.organizationId, input, startWorkflow));
  });

  // Tollgate's own: Polar's API has no single-refund read.
  router.get('/:id', scope('refunds:read'), async (ctx) => {
    const id = readIdParam(ctx);
    ctx.body = refundWire(await getRefund(orm.em, callerOf(ctx).organizationId, id));
  });

  return router;
}
