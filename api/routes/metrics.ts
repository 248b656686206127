import Router from '@koa/router';
import { bearerTokenCheck } from '../../core/bearer-token.ts';
import { AppError } from '../../core/errors.ts';
import { metricsContentType, metricsText } from '../../core/metrics.ts';
import type { AppDependencies } from '../dependencies.ts';

/**
 * GET /metrics: Prometheus' text format, for a scraper presenting TOLLGATE_METRICS_TOKEN as its
 * bearer token. Without that setting the endpoint does not exist (404, as an unknown path): the
 * API's port is public, and metrics are no one's business by default. With several API
 * processes, any of them answers for all (core/metrics.ts).
 */
export function metricsRoutes({ config }: AppDependencies): Router {
  const router = new Router();
  const presentsToken = bearerTokenCheck(config.metrics.token);
  router.get('/metrics', async (ctx) => {
    if (config.metrics.token === undefined) {
      throw new AppError('not_found', 'NOT_FOUND', 'No route GET /metrics');
    }
    if (!presentsToken(ctx.get('authorization'))) {
      ctx.set('www-authenticate', 'Bearer');
      throw new AppError('unauthenticated', 'UNAUTHORIZED', 'A valid metrics token is required');
    }
    ctx.type = metricsContentType;
    ctx.body = await metricsText();
  });
  return router;
}
