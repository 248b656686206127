import { trace } from '@opentelemetry/api';
import { ATTR_HTTP_ROUTE } from '@opentelemetry/semantic-conventions';
import type { Middleware } from 'koa';

/**
 * With tracing on (api/app.ts adds this only then), the request's server span, opened by node's
 * http instrumentation (core/tracing.ts), is named after the route template that answered
 * (`POST /v1/checkouts/:id`, not the path with its ids), as @opentelemetry/instrumentation-koa
 * does for Koa 2 only (0.47 patches koa <3). Every answer, the errors above all, says its trace
 * id in `x-trace-id`: the key to its trace and to its log lines.
 */
export function traceRequests(): Middleware {
  return async (ctx, next) => {
    const span = trace.getActiveSpan();
    if (!span) return next();
    ctx.set('x-trace-id', span.spanContext().traceId);
    try {
      await next();
    } finally {
      // Set by @koa/router on the context of the route that matched.
      const route: unknown = ctx._matchedRoute;
      if (typeof route === 'string') {
        span.updateName(`${ctx.method} ${route}`);
        span.setAttribute(ATTR_HTTP_ROUTE, route);
      }
    }
  };
}
