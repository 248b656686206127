import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bodyParser } from '@koa/bodyparser';
import Koa from 'koa';
import serveStatic from 'koa-static';
import { ingestPaths } from '../commerce/events/routes.ts';
import { commerceRouting } from '../commerce/routes.ts';
import { projectRoot } from '../config/env.ts';
import { AppError } from '../core/errors.ts';
import { installedTracing } from '../core/trace-context.ts';
import { withRequestEntityManager } from '../db/request-context.ts';
import { authRoutes } from './auth/routes.ts';
import { checkoutNotices, checkoutPageRoutes } from './checkout-page.ts';
import type { AppDependencies } from './dependencies.ts';
import { resolveClientIp } from './middleware/client-ip.ts';
import { errorResponses } from './middleware/errors.ts';
import { httpMetrics } from './middleware/http-metrics.ts';
import { rejectUnstorableText } from './middleware/input-sanity.ts';
import { requestLog } from './middleware/request-log.ts';
import { securityHeaders } from './middleware/security-headers.ts';
import { traceRequests } from './middleware/tracing.ts';
import { routesFor } from './route-prefixes.ts';
import { apiReferenceRoutes } from './routes/api-reference.ts';
import { devOutboxRoutes } from './routes/dev-outbox.ts';
import { healthRoutes } from './routes/health.ts';
import { maintenanceRoutes } from './routes/maintenance.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { temporalCodecRoutes } from './routes/temporal-codec.ts';

export const dashboardDist = join(projectRoot, 'dashboard', 'dist');

const isApiPath = (path: string) => path.startsWith('/api/') || path.startsWith('/v1/');

/** The whole HTTP surface: API routers first, then the built dashboard for everything else. */
export function createApp(dependencies: AppDependencies): Koa {
  const { config } = dependencies;
  // X-Forwarded-* headers are believed only from the proxies TOLLGATE_TRUSTED_PROXIES names.
  const app = new Koa({ proxy: false });
  const tracing = installedTracing();
  if (tracing) app.use(traceRequests(tracing));
  app.use(httpMetrics());
  app.use(resolveClientIp(config.api.trustedProxies));
  app.use(requestLog(dependencies.logger));
  app.use(securityHeaders(config));
  app.use(errorResponses(dependencies.logger));
  // Every request gets its own identity map, so entities never leak between requests; forked
  // when the request first reads or writes, so answers from a cache skip it.
  app.use((_ctx, next) => withRequestEntityManager(dependencies.orm.em, next));
  // File parts are raw bytes streamed to storage, whatever Content-Type they carry; event
  // batches (up to 10 MB) are read by their route as they arrive.
  app.use((ctx, next) => {
    ctx.disableBodyParser =
      ctx.path.startsWith('/v1/files/uploads/') || ingestPaths.includes(ctx.path);
    return next();
  });
  app.use(
    bodyParser({
      enableTypes: ['json', 'form'],
      jsonLimit: '1mb',
      onError: (error) => {
        if ((error as { status?: unknown }).status === 413) {
          throw new AppError(
            'too_large',
            'PAYLOAD_TOO_LARGE',
            'The request body is larger than 1 MB',
          );
        }
        throw new AppError(
          'invalid',
          'INVALID_REQUEST_BODY',
          'The request body is not valid JSON or form data',
        );
      },
    }),
  );
  app.use(rejectUnstorableText());

  // An API path that no router answered is a JSON 404, never the dashboard page.
  app.use(async (ctx, next) => {
    await next();
    if (isApiPath(ctx.path) && ctx.status === 404 && ctx.body == null) {
      throw new AppError('not_found', 'NOT_FOUND', `No route ${ctx.method} ${ctx.path}`);
    }
  });

  // A known path with the wrong method answers as an unknown one (404), as Better Auth does:
  // its client sends calls without body fields as GET and expects exactly that. Each router is
  // tried only for paths its routes can match (`routesFor`).
  for (const routes of [
    // /api/auth/openapi.json is public: answered before auth's origin and rate-limit checks.
    routesFor(apiReferenceRoutes(dependencies)),
    routesFor(authRoutes(dependencies)),
    commerceRouting(dependencies),
    routesFor(healthRoutes(dependencies)),
    routesFor(maintenanceRoutes(dependencies)),
    routesFor(metricsRoutes(dependencies)),
    routesFor(temporalCodecRoutes(dependencies)),
    // Captured mail is shown in development, when the stack runs the capture server.
    ...(config.env === 'development' && config.mail.captureDir
      ? [routesFor(devOutboxRoutes(dependencies, config.mail.captureDir))]
      : []),
  ]) {
    app.use(routes);
  }

  const dashboardIndex = join(dashboardDist, 'index.html');
  if (existsSync(dashboardIndex)) {
    const indexPage = readFileSync(dashboardIndex);
    app.use(routesFor(checkoutPageRoutes(config, dashboardDist, checkoutNotices(dependencies))));
    app.use(serveStatic(dashboardDist));
    // The dashboard routes in the browser: any other page path gets its index page.
    app.use((ctx) => {
      if (ctx.method !== 'GET' || isApiPath(ctx.path)) return;
      ctx.type = 'html';
      ctx.body = indexPage;
    });
  }
  return app;
}
