import type { Middleware } from 'koa';
import type { Tracing } from '../../core/trace-context.ts';

/** The semantic conventions' `http.route` (ATTR_HTTP_ROUTE), not imported: only its name is needed. */
const httpRoute = 'http.route';

/**
 * With tracing on (api/app.ts adds this only then), the request's server span, opened by node's
 * http instrumentation (core/tracing.ts), is named after the route template that answered
 * (`POST /v1/checkouts/:id`, not the path with its ids), as @opentelemetry/instrumentation-koa
 * does for Koa 2 only (0.47 patches koa <3). Every answer, the errors above all, says its trace
 * id in `x-trace-id`: the key to its trace and to its log lines.
 */
export function traceRequests(tracing: Tracing): Middleware {
  return async (ctx, next) => {
    const span = tracing.activeSpan();
    if (!span) return next();
    ctx.set('x-trace-id', span.spanContext().traceId);
    try {
      await next();
    } finally {
      // Set by @koa/router on the context of the route that matched.
      const route: unknown = ctx._matchedRoute;
      if (typeof route === 'string') {
        span.updateName(`${ctx.method} ${route}`);
        span.setAttribute(httpRoute, route);
      }
    }
  };
}
