import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseBody } from '../../api/validation.ts';
import { startRefund } from '../../processes/starters.ts';
import { callerOf, scope } from '../http/caller.ts';
import {
  booleanParameter,
  idsParameter,
  listParameters,
  listRoute,
  pageParameters,
  sortingParameter,
} from '../http/listing.ts';
import { readIdParam } from '../http/request.ts';
import { refundCreateInput, refundSortFields, refundWire } from './schemas.ts';
import { createRefund, getRefund, listRefunds } from './service.ts';

/** The query of the refund list (documented by refunds:list). */
export const refundListParameters = listParameters({
  ids: idsParameter('id'),
  orderIds: idsParameter('order_id'),
  subscriptionIds: idsParameter('subscription_id'),
  customerIds: idsParameter('customer_id'),
  succeeded: booleanParameter('succeeded'),
  sorting: sortingParameter(refundSortFields, '-created_at'),
  page: pageParameters,
  organizationIds: idsParameter('organization_id'),
});

/** /v1/refunds: money given back on orders, each carried out by its workflow (§4.13). */
export function refundRoutes({ orm, temporal }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/refunds' });
  const startWorkflow = (refundId: string) => startRefund(temporal, refundId);

  router.get(
    '/',
    scope('refunds:read'),
    listRoute({
      query: refundListParameters,
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
