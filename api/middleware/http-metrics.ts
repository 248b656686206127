import type { Middleware } from 'koa';
import { httpRequestDuration } from '../../core/metrics.ts';

/** What Koa's router leaves on the context: the template of the route that answered. */
interface RoutedContext {
  _matchedRoute?: string | RegExp;
}

/**
 * Times every request into tollgate_http_request_duration_seconds, labelled with the route
 * template the router matched (`/v1/orders/:id`), never the path itself: ids and secrets in
 * paths would make a series per request. Requests no router matched (the dashboard's files,
 * unknown paths) share one label.
 */
export function httpMetrics(): Middleware {
  return async (ctx, next) => {
    const stopTimer = httpRequestDuration.startTimer();
    let status: number | undefined;
    try {
      await next();
    } catch (error) {
      // Past the error middleware only what Koa answers itself: its status, or 500.
      status = (error as { status?: number }).status ?? 500;
      throw error;
    } finally {
      const route = (ctx as RoutedContext)._matchedRoute;
      stopTimer({
        route: route === undefined ? 'unmatched' : String(route),
        method: ctx.method,
        status: status ?? ctx.status,
      });
    }
  };
}
