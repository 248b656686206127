import Router from '@koa/router';
import type { AppDependencies } from '../../api/dependencies.ts';
import { parseQuery } from '../../api/validation.ts';
import { callerOf, scope } from '../http/caller.ts';
import { organizationFilterMatches, readQueryIds, readQueryList } from '../http/listing.ts';
import { billingTypeFilter, metricsLimitsWire, metricsQuery } from './schemas.ts';
import { checkMetricsRange, readMetrics } from './service.ts';

/** /v1/metrics: the organization's sales, subscriptions and checkouts over time. */
export function metricRoutes({ orm }: AppDependencies): Router {
  const router = new Router({ prefix: '/v1/metrics' });

  router.get('/', scope('metrics:read'), async (ctx) => {
    const caller = callerOf(ctx);
    const query = parseQuery(ctx, metricsQuery);
    checkMetricsRange(query);
    const filter = {
      // Naming only other organizations counts nothing, as a list filter would find nothing.
      organizationIds: organizationFilterMatches(ctx, caller) ? [caller.organizationId] : [],
      productIds: readQueryIds(ctx, 'product_id'),
      customerIds: readQueryIds(ctx, 'customer_id'),
      billingTypes: readQueryList(ctx, 'billing_type', billingTypeFilter),
    };
    ctx.body = await readMetrics(orm.em, query, filter);
  });

  router.get('/limits', scope('metrics:read'), (ctx) => {
    ctx.body = metricsLimitsWire;
  });

  return router;
}
